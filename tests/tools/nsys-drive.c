/* SPDX-License-Identifier: MIT */
/*
 * nsys-drive - import one Nsight Systems SQLite export with gpa_import_nsys.
 *
 *   nsys-drive EXPORT.sqlite OUT.gpz     (tests/e2e/t2502-nsys.sh)
 */
#include "base/compat.h"
#include "import/import.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	struct gpt_writer *w;
	char err[512];
	int ret;

	if (argc != 3 || gpt_writer_open(argv[2], NULL, &w)) {
		return 2;
	}
	ret = gpa_import_nsys(argv[1], w, err, sizeof(err));
	if (gpt_writer_close(w) && !ret) {
		return 1;
	}
	if (ret) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	return 0;
}
