/* SPDX-License-Identifier: MIT */
/*
 * install-prog - a user's program built against an installed gpuprof alone (the
 * headers and static libraries under PREFIX): writes one kernel record to x.gpz.
 * Built by `make install-prog PREFIX=...` for tests/e2e/t0006-install.sh.
 */
#include "trace/trace.h"

#include <stdio.h>

int main(void)
{
	struct gpt_writer *w;
	struct gpt_kernel k = {.start = 5, .end = 9};
	if (gpt_writer_open("x.gpz", NULL, &w) || gpt_writer_add(w, GPT_KIND_KERNEL, &k) ||
	    gpt_writer_close(w)) {
		return 1;
	}
	puts("written");
	return 0;
}
