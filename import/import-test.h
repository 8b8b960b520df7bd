/* SPDX-License-Identifier: MIT */
/*
 * import-test.h - switches for the importers' tests and fuzz targets; not part
 * of import/'s public interface.
 */
#ifndef GPA_IMPORT_TEST_H
#define GPA_IMPORT_TEST_H

#include <stdbool.h>
#include <stddef.h>

/*
 * For tests: false makes gpa_import_kineto read every event through its
 * token loop, the reference its fast path (whole events read straight from
 * the buffer) must agree with byte for byte; true (the default) again.
 * Process-wide, not thread-safe.
 */
void gpa_import_kineto_fast_path(bool on);

/*
 * For tests: the least bytes of events in the buffer for which
 * gpa_import_kineto_threads() hands part of them to its side thread
 * (default 32 KiB; 0 splits every buffer), and from then on every such
 * buffer is split (by default the import times a few buffers each way now
 * and then and reads the rest the faster way). Process-wide, not
 * thread-safe.
 */
void gpa_import_kineto_split_min(size_t bytes);

#endif
