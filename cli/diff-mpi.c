/* SPDX-License-Identifier: MIT */
/*
 * diff-mpi.c - `gpuprof diff --mpi` (docs/cluster.md): the MPI processes
 * share the runs, balanced by bytes; each loads its runs one at a time,
 * reduces each to the per-step samples the comparison tests (what
 * gpa_diff_add_run keeps of a model) and sends those; rank 0 adds every
 * run's samples in run order, so the comparison, its intervals and its
 * verdicts are those of the one-process run, byte for byte.
 *
 * What travels, per run: a record of its index, status and the packed
 * samples (analyze/diff.h): per metric one double per compared step, plus
 * the run's warnings and fingerprint. Never a trace.
 */
#define GP_LOG_TAG "cli/diff-mpi"
#include "base/compat.h"
#include "analyze/diff.h"
#include "analyze/model.h"
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

/* One run's record: u32 run, u32 status (CMD_OK or the exit status), u32 length, bytes. */
static void put32(struct gp_strbuf *o, uint32_t v)
{
	uint8_t b[4];

	gp_put_le32(b, v);
	gp_strbuf_add(o, b, 4);
}

/* The samples of run i, packed into rec; the exit status, said on failure. */
static int one_run(struct cli_common *c, const struct gpa_diff_opts *o, char **runs, size_t i,
		   int side, struct gp_strbuf *rec)
{
	struct gpa_model m;
	struct gpa_diff *d1 = NULL;
	char err[512];
	int ret;

	if (cli_load_model_ex(c, &m, &runs[i], 1, 0, GPA_DROP_API_IDS | GPA_DROP_CORR)) {
		return CMD_ERROR;
	}
	ret = gpa_diff_new(o, &d1, err, sizeof(err));
	if (!ret) {
		ret = gpa_diff_add_run(d1, side, &m, runs[i], err, sizeof(err));
	}
	gpa_model_release(&m);
	if (!ret) {
		ret = gpa_diff_run_pack(d1, rec);
		snprintf(err, sizeof(err), "out of memory");
	}
	gpa_diff_free(d1);
	if (ret) {
		cli_error("%s", err);
		return ret == -GP_ERR_API ? CMD_ERROR : cli_exit_code(ret, 0);
	}
	return CMD_OK;
}

/* This process's runs, in order, as records; it stops at its first failure. */
static int my_runs(struct cli_common *c, const struct gpa_diff_opts *o, char **runs, size_t n,
		   size_t nbase, const int *owner, int me, struct gp_strbuf *blob)
{
	struct gp_strbuf rec = GP_STRBUF_INIT;
	int status = CMD_OK;

	for (size_t i = 0; i < n && status == CMD_OK; i++) {
		if (owner[i] != me) {
			continue;
		}
		gp_strbuf_reset(&rec);
		status = one_run(c, o, runs, i, i < nbase ? 0 : 1, &rec);
		put32(blob, (uint32_t)i);
		put32(blob, (uint32_t)status);
		put32(blob, status == CMD_OK ? (uint32_t)rec.len : 0);
		if (status == CMD_OK) {
			gp_strbuf_add(blob, rec.buf, rec.len);
		}
	}
	if (rec.failed || blob->failed) {
		cli_error("out of memory");
		status = CMD_ERROR;
	}
	gp_strbuf_release(&rec);
	return status;
}

struct got {
	const uint8_t *p;
	uint32_t len, status;
	bool seen;
};

/* Rank 0: the records of every process, by run. 0, or -1 with the reason in errbuf. */
static int index_records(const char *all, const size_t *lens, int size, struct got *g, size_t n,
			 char *errbuf, size_t errlen)
{
	const uint8_t *p = (const uint8_t *)all;

	for (int k = 0; k < size; k++) {
		const uint8_t *end = p + lens[k];
		while (p < end) {
			uint32_t i, len;
			if (end - p < 12 || (i = gp_get_le32(p)) >= n || g[i].seen ||
			    (len = gp_get_le32(p + 8)) > (size_t)(end - p - 12)) {
				snprintf(errbuf, errlen, "the samples of process %d are damaged", k);
				return -1;
			}
			g[i] = (struct got){.p = p + 12, .len = len, .status = gp_get_le32(p + 4),
					    .seen = true};
			p += 12 + len;
		}
	}
	return 0;
}

/* Rank 0: every run added to d in run order; the exit status. */
static int add_all(struct gpa_diff *d, char **runs, size_t n, size_t nbase, const char *all,
		   const size_t *lens, int size)
{
	struct got *g = calloc(n ? n : 1, sizeof(*g));
	char err[512], what[64];
	int status = CMD_OK;

	if (!g) {
		cli_error("out of memory");
		return CMD_ERROR;
	}
	if (index_records(all, lens, size, g, n, err, sizeof(err))) {
		cli_error("%s", err);
		free(g);
		return CMD_ERROR;
	}
	/* the first run in order that failed sets the status, as in one process */
	for (size_t i = 0; i < n && status == CMD_OK; i++) {
		status = g[i].seen && g[i].status != CMD_OK ? (int)g[i].status : CMD_OK;
	}
	for (size_t i = 0; i < n && status == CMD_OK; i++) {
		if (!g[i].seen) {
			cli_error("no samples came back for '%s'", runs[i]);
			status = CMD_ERROR;
			break;
		}
		snprintf(what, sizeof(what), "the samples of run %zu", i + 1);
		int ret = gpa_diff_run_unpack(d, i < nbase ? 0 : 1, g[i].p, g[i].len, what, err,
					      sizeof(err));
		if (ret) {
			cli_error("%s", ret == -GP_ERR_NOMEM ? "out of memory" : err);
			status = CMD_ERROR;
		}
	}
	free(g);
	return status;
}

int cli_diff_mpi_runs(struct cli_common *c, struct gpa_diff *d, const struct gpa_diff_opts *o,
		      char **runs, size_t n, size_t nbase, bool *root)
{
	struct gp_strbuf blob = GP_STRBUF_INIT;
	int me = 0, size = 1, status = CMD_ERROR, *owner;
	char *all = NULL;
	size_t *lens = NULL;

	*root = false;
	if (cli_mpi_init(&me, &size)) {
		return CMD_ERROR;
	}
	*root = me == 0;
	owner = malloc((n ? n : 1) * sizeof(*owner));
	if (!owner || cli_share_inputs(runs, n, size, owner)) {
		cli_error("out of memory");
		gp_strbuf_reset(&blob); /* an empty share: every process still meets the gather */
	} else {
		status = my_runs(c, o, runs, n, nbase, owner, me, &blob);
	}
	if (!cli_mpi_gather(blob.buf, blob.len, me, size, &all, &lens) && me == 0) {
		status = add_all(d, runs, n, nbase, all, lens, size);
	} else if (me == 0) {
		status = CMD_ERROR;
	}
	free(owner);
	free(all);
	free(lens);
	gp_strbuf_release(&blob);
	return status;
}
