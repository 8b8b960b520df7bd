/* SPDX-License-Identifier: MIT */
/*
 * perfetto-drive - load traces into the model and export them with
 * gpr_export_perfetto (gpr_export_pftrace when OUT ends in .pftrace); prints
 * the load and export times on stderr (docs/export.md has figures).
 *
 *   perfetto-drive OUT.json TRACE...     (tests/e2e/t2505-export-perfetto.sh)
 *   perfetto-drive OUT.pftrace TRACE...
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "report/report.h"
#include "report/export.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct gpa_model m;
	char err[512] = "";
	struct timespec a, b, c;

	if (argc < 3) {
		fprintf(stderr, "usage: prog OUT TRACE...\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (gpa_model_load(&m, (const char *const *)argv + 2, (size_t)argc - 2, NULL, err,
			   sizeof(err))) {
		fprintf(stderr, "load: %s\n", err);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	size_t n = strlen(argv[1]);
	bool proto = n > 8 && !strcmp(argv[1] + n - 8, ".pftrace");
	if (proto ? gpr_export_pftrace(&m, argv[1], NULL, err, sizeof(err))
		  : gpr_export_perfetto(&m, argv[1], err, sizeof(err))) {
		fprintf(stderr, "export: %s\n", err);
		gpa_model_release(&m);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &c);
	fprintf(stderr, "load %.3f s, export %.3f s\n",
		(double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9,
		(double)(c.tv_sec - b.tv_sec) + (double)(c.tv_nsec - b.tv_nsec) / 1e9);
	gpa_model_release(&m);
	return 0;
}
