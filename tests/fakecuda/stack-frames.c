/* SPDX-License-Identifier: MIT */
/*
 * stack-frames - prints the symbolized call stack of every API call that
 * has one, through gpa_api_stack_depth/gpa_api_stack_frame, for the
 * call-stack tests:
 *
 *   <correlation> <api name> <depth> <frame;frame;...>   (outermost first)
 *
 * then one line "info nodes=N stacks=N modules=N api_rows=N bad_nodes=N
 * bad_parents=N bad_stacks=N bad_modules=N unreadable=N mismatch=N".
 *
 * usage: stack-frames TRACE...
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/stacks.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	struct gpa_model m;
	struct gpa_stack_info si;
	char err[512];

	if (argc < 2) {
		fprintf(stderr, "usage: stack-frames TRACE...\n");
		return 2;
	}
	if (gpa_model_load(&m, (const char *const *)argv + 1, (size_t)argc - 1, NULL, err,
			   sizeof(err))) {
		fprintf(stderr, "stack-frames: %s\n", err);
		return 1;
	}
	for (uint32_t a = 0; a < m.api.n; a++) {
		uint32_t n = gpa_api_stack_depth(&m, a);
		if (!n) {
			continue;
		}
		printf("%u %s %u ", m.api.corr[a], gpa_model_str(&m, gpa_api_name(&m, a)), n);
		for (uint32_t i = 0; i < n; i++) {
			printf("%s%s", i ? ";" : "", gpa_api_stack_frame(&m, a, i));
		}
		printf("\n");
	}
	gpa_stacks_get_info(&m, &si);
	printf("info nodes=%" PRIu64 " stacks=%" PRIu64 " modules=%" PRIu64 " api_rows=%" PRIu64
	       " bad_nodes=%" PRIu64 " bad_parents=%" PRIu64 " bad_stacks=%" PRIu64
	       " bad_modules=%" PRIu64 " unreadable=%" PRIu64 " mismatch=%" PRIu64 "\n",
	       si.nodes, si.stacks, si.modules, si.api_rows, si.bad_nodes, si.bad_parents,
	       si.bad_stacks, si.bad_modules, si.unreadable_modules, si.build_id_mismatch);
	gpa_model_release(&m);
	return 0;
}
