/* SPDX-License-Identifier: MIT */
/*
 * stacks.c - CPU call stacks captured at API calls, symbolized lazily.
 */
#include "base/compat.h"
#include "analyze/analyze.h"

uint32_t gpa_api_stack_depth(struct gpa_model *m, uint32_t api)
{
	(void)m;
	(void)api;
	return 0;
}

const char *gpa_api_stack_frame(struct gpa_model *m, uint32_t api, uint32_t i)
{
	(void)m;
	(void)api;
	(void)i;
	return NULL;
}
