/* SPDX-License-Identifier: MIT */
/*
 * kineto-drive - import one Kineto JSON trace with gpa_import_kineto and print
 * the records written per kind: kernel memcpy memset api nvtx.
 *
 *   kineto-drive TRACE.json[.gz] OUT.gpz     (tests/e2e/t2501-kineto.sh)
 *   kineto-drive TRACE OUT.gpz THREADS [SPLIT_MIN]  (t0016: on a side thread,
 *       splitting buffers of at least SPLIT_MIN bytes of events; the message
 *       of a failed import goes to stderr, the records before it stay in OUT)
 */
#include "base/compat.h"
#include "import/import.h"
#include "import/import-test.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	struct gpt_writer *w;
	struct gpt_writer_stats st;
	char err[512];
	int rc;

	if (argc < 3 || argc > 5 || gpt_writer_open(argv[2], NULL, &w)) {
		return 2;
	}
	if (argc > 4) {
		gpa_import_kineto_split_min((size_t)strtoull(argv[4], NULL, 10));
	}
	rc = argc > 3 ? gpa_import_kineto_threads(argv[1], w, NULL, (unsigned)atoi(argv[3]), err,
						  sizeof(err))
		      : gpa_import_kineto(argv[1], w, err, sizeof(err));
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
