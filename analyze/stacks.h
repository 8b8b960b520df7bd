/* SPDX-License-Identifier: MIT */
/*
 * stacks.h - the CPU call stacks captured at API calls (analyze/stacks.c):
 * their frames, symbolized lazily, and what the stack records held. The
 * model loads them (model.h: gpa_stacks_add_*, gpa_stacks_link).
 */
#ifndef GPA_STACKS_H
#define GPA_STACKS_H

#include "analyze/model.h"

/*
 * Frames of the CPU call stack captured at API call row `api`, outermost first;
 * 0 when none was captured. Symbolized lazily (function name demangled, or
 * "module+0xOFF" when unknown); the strings live as long as the model.
 */
uint32_t gpa_api_stack_depth(struct gpa_model *m, uint32_t api);
const char *gpa_api_stack_frame(struct gpa_model *m, uint32_t api, uint32_t i);

/* The raw pc of that frame (a return address); 0 when out of range. */
uint64_t gpa_api_stack_pc(struct gpa_model *m, uint32_t api, uint32_t i);

/* Frames one stack yields at most, whatever a file says. */
#define GPA_STACK_MAX_FRAMES 256

/* What the call-stack records of the model held, and what was skipped. */
struct gpa_stack_info {
	uint64_t nodes, stacks, modules; /* records kept (stacks: distinct calls) */
	uint64_t api_rows;               /* API rows with a stack */
	uint64_t bad_nodes;              /* id 0 or defined twice: ignored */
	uint64_t bad_parents;            /* parent missing or not below the id: cut there */
	uint64_t bad_stacks;             /* naming a node the file lacks: skipped */
	uint64_t bad_modules;            /* empty address range: skipped */
	uint64_t unreadable_modules;     /* module files missing or not ELF (so far) */
	uint64_t build_id_mismatch;      /* module files of another build (so far) */
};
void gpa_stacks_get_info(const struct gpa_model *m, struct gpa_stack_info *out);

#endif /* GPA_STACKS_H */
