/* SPDX-License-Identifier: MIT */
/*
 * memory.h - the tables and chart of 'gpuprof memory' (report/memory.c,
 * report/memory-svg.c; docs/memory.md).
 */
#ifndef GPR_MEMORY_H
#define GPR_MEMORY_H

#include "report/report.h"

struct gpa_memory;
struct gpa_mem_pool;
enum gpr_memory_tables {
	GPR_MEM_DEVICES = 1 << 0,  /* per device: peak, phase, reserved, fragmentation */
	GPR_MEM_OWNERS = 1 << 1,   /* live at each peak by allocating range */
	GPR_MEM_STEPS = 1 << 2,    /* per step: peak, live at end, short-lived allocations */
	GPR_MEM_LEAKS = 1 << 3,    /* growth across steps and the sites still holding it */
	GPR_MEM_CALLS = 1 << 4,    /* memory-management API calls */
	GPR_MEM_TIMELINE = 1 << 5, /* every event with the totals after it (on request) */
	GPR_MEM_DEFAULT = (1 << 5) - 1,
};

/* "devices", "owners", "steps", "leaks", "calls", "timeline" -> a bit; -1 unknown. */
int gpr_memory_table_parse(const char *name);
/* "cuda:0", "hip:1", "cpu"; "pid N " before it with several processes. */
void gpr_memory_device_name(struct gp_strbuf *sb, const struct gpa_model *m,
			    const struct gpa_mem_pool *p);
/* Fills t (caller releases) with one GPR_MEM_* table. 0, -GP_ERR_API, -GP_ERR_NOMEM. */
int gpr_memory_table(struct gpr_table *t, unsigned table, const struct gpa_model *m,
		     const struct gpa_memory *r);
/*
 * The tables in mask: text and Markdown (one line per device, then the
 * non-empty tables), CSV, or one JSON object (schema gpuprof-memory/2).
 */
int gpr_memory_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
		      unsigned mask, const struct gpa_model *m, const struct gpa_memory *r);
/*
 * Allocated and reserved bytes over time as one SVG document (a panel per
 * device; report/memory-svg.c). Returns 0 or -GP_ERR_NOMEM.
 */
int gpr_memory_svg(struct gp_strbuf *out, const struct gpa_model *m, const struct gpa_memory *r);

#endif
