/* SPDX-License-Identifier: MIT */
/*
 * kineto-drive - import one Kineto JSON trace with gpa_import_kineto and print
 * the records written per kind: kernel memcpy memset api nvtx.
 *
 *   kineto-drive TRACE.json[.gz] OUT.gpz     (tests/e2e/t2501-kineto.sh)
 */
#include "base/compat.h"
#include "import/import.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	struct gpt_writer *w;
	struct gpt_writer_stats st;
	char err[512];
	int rc;

	if (argc != 3 || gpt_writer_open(argv[2], NULL, &w)) {
		return 2;
	}
	rc = gpa_import_kineto(argv[1], w, err, sizeof(err));
	gpt_writer_flush(w);
	gpt_writer_get_stats(w, &st);
	if (gpt_writer_close(w) || rc) {
		fprintf(stderr, "%s (%d)\n", err, rc);
		return 1;
	}
	printf("%llu %llu %llu %llu %llu\n", (unsigned long long)st.records[GPT_KIND_KERNEL],
	       (unsigned long long)st.records[GPT_KIND_MEMCPY],
	       (unsigned long long)st.records[GPT_KIND_MEMSET],
	       (unsigned long long)st.records[GPT_KIND_API],
	       (unsigned long long)st.records[GPT_KIND_NVTX]);
	return 0;
}
