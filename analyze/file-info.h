/* SPDX-License-Identifier: MIT */
/*
 * file-info.h - what `gpuprof info` shows about one trace file (analyze/file-info.c):
 * its header, process, devices, record counts, losses and problems, read
 * straight from the file without building a model.
 */
#ifndef GPA_FILE_INFO_H
#define GPA_FILE_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "trace/trace.h"

struct gpa_device_info {
	uint32_t id;
	char *name;
	uint8_t cc_major, cc_minor;
	uint32_t num_sms;
	uint64_t global_mem_bytes;
	uint64_t global_mem_bw_kbps;
	uint32_t core_clock_khz;
};

struct gpa_problem {
	uint32_t chunk_index;
	uint64_t offset;
	int err;
	char *reason;
};

/* What `gpuprof info` shows about one trace file. */
struct gpa_file_info {
	char *path;
	int source; /* enum gpa_input_format: GPZ, or the format imported (the rest is of the result) */
	uint16_t major, minor;
	uint64_t file_bytes;
	uint64_t chunks, strings;
	bool has_footer, truncated;
	uint64_t truncated_at;
	uint64_t problem_count;           /* corrupt chunks skipped */
	GP_VEC(struct gpa_problem) problems; /* corruption and truncation, in file order */

	bool has_process;
	struct {
		uint32_t pid, ppid;
		char *host, *exe, *cmdline, *launcher, *gpuprof_version, *settings, *status;
		int32_t rank, local_rank, world_size, local_world_size;
		uint32_t driver_version, runtime_version, cupti_version, nccl_version;
		bool has_exit;
		int32_t exit_status;
	} process;

	GP_VEC(struct gpa_device_info) devices;
	uint64_t records[GPT_KIND__MAX];
	uint64_t events;                  /* activity records: not metadata */
	bool has_span;                    /* some activity record has a time */
	uint64_t first_ts, last_ts;       /* over activity records */
	uint64_t start_realtime;          /* CLOCK_REALTIME at first_ts, 0 if unknown */
	uint64_t losses[GPT_LOSS__MAX];   /* records lost by cause */
	uint64_t loss_total;
	uint64_t overhead_ns;             /* sum of OVERHEAD record durations */
	uint64_t overhead_union_ns;       /* time under some OVERHEAD record (they overlap) */
	uint64_t overhead_records;
	/* devices named by GPU records (kernel, copy, set), ascending; at most GPA_INFO_WORK_DEVS */
	GP_VEC(uint32_t) work_devs;
};

#define GPA_INFO_WORK_DEVS 64

/* Whether records of this kind are activity (counted as events) or metadata. */
bool gpa_kind_is_event(enum gpt_kind kind);

/*
 * Reads a whole trace and fills *out (caller releases with
 * gpa_file_info_release, also after an error). Returns 0 when the file could
 * be read to its end (corrupt chunks and truncation are reported in *out),
 * or a negative error with the reason in errbuf.
 */
int gpa_file_info_read(const char *path, struct gpa_file_info *out, char *errbuf,
		       size_t errlen);
void gpa_file_info_release(struct gpa_file_info *fi);

/* The format fi was read from: "gpz", "kineto" or "nsys" (gpa_input_format_name, import.h). */
const char *gpa_file_info_source(const struct gpa_file_info *fi);

/* Name of a record kind ("kernel"); NULL for numbers that are not record kinds. */
const char *gpa_kind_name(unsigned kind);
/* Name of a loss cause ("cupti-dropped"); "unknown" when out of range. */
const char *gpa_loss_cause_name(unsigned cause);

#endif /* GPA_FILE_INFO_H */
