/* SPDX-License-Identifier: MIT */
/*
 * import-test.h - switches for the importers' tests and fuzz targets; not part
 * of import/'s public interface.
 */
#ifndef GPA_IMPORT_TEST_H
#define GPA_IMPORT_TEST_H

#include <stdbool.h>

/*
 * For tests: false makes gpa_import_kineto read every event through its
 * token loop, the reference its fast path (whole events read straight from
 * the buffer) must agree with byte for byte; true (the default) again.
 * Process-wide, not thread-safe.
 */
void gpa_import_kineto_fast_path(bool on);

#endif
