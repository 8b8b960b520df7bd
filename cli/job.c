/* SPDX-License-Identifier: MIT */
/*
 * job.c - the job report (`report --job`, `report --mpi`, `comm --mpi`;
 * docs/cluster.md): each process takes a share of the traces balanced by
 * size, analyses them one at a time into rank summaries, and rank 0 merges
 * every process's summaries into one report. Without MPI one process takes
 * every trace, through the same packing, so the answers are the same.
 */
#define GP_LOG_TAG "cli/job"
#include "base/compat.h"
#include "analyze/job.h"
#include "analyze/related.h"
#include "analyze/report.h"
#include "import/import.h"
#include "cli/cli.h"
#include "report/report.h"
#include "report/job.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct share {
	uint64_t size;
	uint32_t file;
};

static int cmp_share(const void *a, const void *b)
{
	const struct share *x = a, *y = b;

	if (x->size != y->size) {
		return x->size > y->size ? -1 : 1;
	}
	return x->file < y->file ? -1 : x->file > y->file;
}

/* Bytes of a trace, or of the traces in a directory; 0 when it cannot be read. */
static uint64_t input_bytes(const char *path)
{
	struct stat sb;
	char err[256], **paths = NULL;
	size_t n = 0;
	uint64_t sum = 0;

	if (stat(path, &sb)) {
		return 0;
	}
	if (!S_ISDIR(sb.st_mode)) {
		return (uint64_t)sb.st_size;
	}
	if (gpa_expand_inputs((const char *const *)&path, 1, &paths, &n, err, sizeof(err))) {
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		sum += stat(paths[i], &sb) ? 0 : (uint64_t)sb.st_size;
		free(paths[i]);
	}
	free(paths);
	return sum;
}

/*
 * Which process analyses each input: largest first, each to the process
 * with the fewest bytes so far (the lowest number on a tie). Every process
 * computes the same answer from the same sizes.
 */
int cli_share_inputs(char **paths, size_t n, int size, int *owner)
{
	struct share *s = malloc((n ? n : 1) * sizeof(*s));
	uint64_t *load = calloc((size_t)size, sizeof(*load));

	if (!s || !load) {
		free(s);
		free(load);
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		s[i].file = (uint32_t)i;
		s[i].size = input_bytes(paths[i]);
	}
	gp_qsort(s, n, sizeof(*s), cmp_share);
	for (size_t i = 0; i < n; i++) {
		int best = 0;
		for (int p = 1; p < size; p++) {
			best = load[p] < load[best] ? p : best;
		}
		owner[s[i].file] = best;
		load[best] += s[i].size ? s[i].size : 1;
	}
	free(s);
	free(load);
	return 0;
}

/* The analyses of one trace alone, into its summary; a failure becomes a failed summary. */
static int analyse(const struct cli_job *jo, const char *path, uint32_t file, unsigned threads,
		   struct gpa_rank_sum *out)
{
	struct gpa_load_opts lo = {.threads = threads, .drop = GPA_DROP_API_IDS | GPA_DROP_CORR};
	struct gpa_model m;
	struct gpa_report_opts ro;
	struct gpa_report *r = NULL;
	char err[512];
	int ret;

	ret = gpa_model_load(&m, &path, 1, &lo, err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		return ret == -GP_ERR_NOMEM ? ret : gpa_rank_sum_failed(file, path, err, out);
	}
	if (m.procs.n && m.procs.v[0].truncated) {
		cli_warn("%s: truncated at offset %" PRIu64 "; kept the %" PRIu64
			 " records before the cut", path, m.procs.v[0].truncated_at,
			 m.procs.v[0].records);
	}
	if (m.procs.n && m.procs.v[0].corrupt_chunks) {
		cli_warn("%s: corrupt at offset %" PRIu64 ": %" PRIu64 " chunk(s) skipped", path,
			 m.procs.v[0].corrupt_at, m.procs.v[0].corrupt_chunks);
	}
	cli_sanity_warn(&m, path);
	gpa_report_opts_init(&ro);
	ro.kind = GPA_REPORT_RANK;
	ro.step_regex = jo->step_regex;
	ro.comm_rules = jo->comm->rules;
	ro.ncomm_rules = jo->comm->n;
	ro.gaps = *jo->gaps;
	ret = gpa_report_build(&m, &ro, &r, err, sizeof(err));
	if (!ret) {
		struct gpa_rank_in in = {.m = &m, .steps = &r->steps, .gaps = &r->gaps, .cc = &r->cc,
					 .comm = &r->comm, .findings = &r->findings};
		ret = gpa_rank_sum_build(&in, file, out);
	} else if (ret != -GP_ERR_NOMEM) {
		cli_error("%s", err);
		ret = gpa_rank_sum_failed(file, path, err, out);
	}
	gpa_report_free(r);
	gpa_model_release(&m);
	return ret;
}

/* This process's share, analysed and packed into blob. */
static int my_share(const struct cli_job *jo, char **paths, size_t n, const int *owner, int me,
		    struct gp_strbuf *blob)
{
	struct gpa_rank_sum *v = calloc(n ? n : 1, sizeof(*v));
	size_t k = 0;
	unsigned threads = jo->common->threads_given;
	int ret = 0;

	if (!v) {
		return -GP_ERR_NOMEM;
	}
	/* under MPI, without --threads, each process reads on the model's default */
	if (!threads && !jo->mpi && cli_common_threads(jo->common, &threads)) {
		free(v);
		return CMD_ERROR;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		if (owner[i] == me) {
			ret = analyse(jo, paths[i], (uint32_t)i, threads, &v[k]);
			k += !ret;
		}
	}
	if (!ret) {
		ret = gpa_rank_sums_pack(v, k, blob);
	}
	for (size_t i = 0; i < k; i++) {
		gpa_rank_sum_release(&v[i]);
	}
	free(v);
	gp_debug("%zu traces, %zu bytes of summaries", k, blob->len);
	return ret;
}

/* Rank 0: every process's blob read back, merged, rendered and written. */
static int finish(const struct cli_job *jo, const char *all, const size_t *lens, int nblobs)
{
	struct gpa_rank_sum *v = NULL;
	size_t n = 0, cap = 0, at = 0;
	struct gpa_job job;
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[512], what[64];
	int ret = 0, status = CMD_ERROR;

	for (int i = 0; i < nblobs && !ret; i++) {
		snprintf(what, sizeof(what), "summaries of process %d", i);
		ret = gpa_rank_sums_unpack(all + at, lens[i], what, &v, &n, &cap, err, sizeof(err));
		at += lens[i];
	}
	if (ret) {
		cli_error("%s", ret == -GP_ERR_NOMEM ? "out of memory" : err);
		for (size_t i = 0; i < n; i++) {
			gpa_rank_sum_release(&v[i]);
		}
		free(v);
		return CMD_ERROR;
	}
	ret = jo->common->allow_unrelated ? 0 : gpa_related_sums(v, n, err, sizeof(err));
	if (ret) {
		cli_refuse_unrelated(ret, err);
		for (size_t i = 0; i < n; i++) {
			gpa_rank_sum_release(&v[i]);
		}
		free(v);
		return CMD_ERROR;
	}
	if (gpa_job_merge(v, n, &job) || gpr_job_render(&out, (enum gpr_format)jo->format,
							&jo->common->display, jo->parts, &job)) {
		cli_error("out of memory");
	} else if (jo->output ? cli_write_file(jo->output, out.buf, out.len)
			      : cli_write_stdout(out.buf, out.len)) {
		status = job.failed ? CMD_ERROR : CMD_OK;
	}
	gp_strbuf_release(&out);
	gpa_job_release(&job);
	return status;
}

/* What a process computes before the exchange: its share of the inputs, analysed and packed. */
struct share_work {
	const struct cli_job *jo;
	char **args;
	size_t nargs;
	int me, size;
	char **paths;
	size_t npaths;
	int *owner;
	struct gp_strbuf blob;
	bool ok;
};

static void do_share(struct share_work *w)
{
	char err[512];
	int ret;

	w->ok = !gpa_expand_inputs((const char *const *)w->args, w->nargs, &w->paths, &w->npaths,
				   err, sizeof(err));
	if (!w->ok && w->me == 0) {
		cli_error("%s", err);
	}
	if (w->ok) {
		w->owner = malloc((w->npaths ? w->npaths : 1) * sizeof(*w->owner));
		w->ok = w->owner && !cli_share_inputs(w->paths, w->npaths, w->size, w->owner);
		if (!w->ok) {
			cli_error("out of memory");
		}
	}
	if (w->ok) {
		ret = my_share(w->jo, w->paths, w->npaths, w->owner, w->me, &w->blob);
		w->ok = !ret;
		if (ret == -GP_ERR_NOMEM) {
			cli_error("out of memory");
		}
	}
	if (!w->ok) {
		/* an empty share: rank 0 refuses it, and every process still meets the gather */
		gp_strbuf_reset(&w->blob);
	}
}

static void *share_main(void *arg)
{
	do_share(arg);
	return NULL;
}

static void share_release(struct share_work *w)
{
	for (size_t i = 0; i < w->npaths; i++) {
		free(w->paths[i]);
	}
	free(w->paths);
	free(w->owner);
	gp_strbuf_release(&w->blob);
	w->paths = NULL;
	w->npaths = 0;
	w->owner = NULL;
}

/*
 * MPI started, and this process's share analysed meanwhile when the
 * launcher said beforehand which process this is: starting MPI takes a
 * few hundred milliseconds of waiting on the launcher, as long as a small
 * share's analysis (docs/cluster.md). The guess is checked against MPI's
 * answer, and the share analysed again if they differ.
 */
static int start_mpi(struct share_work *w, int *me, int *size)
{
	pthread_t th;
	bool ahead;

	if (cli_mpi_open()) {
		return CMD_ERROR;
	}
	ahead = cli_mpi_launcher_rank(&w->me, &w->size) &&
		!pthread_create(&th, NULL, share_main, w);
	if (cli_mpi_init(me, size)) {
		if (ahead) {
			pthread_join(th, NULL);
		}
		return CMD_ERROR;
	}
	if (ahead) {
		pthread_join(th, NULL);
		if (w->me == *me && w->size == *size) {
			return CMD_OK;
		}
		gp_debug("the launcher said process %d of %d, MPI %d of %d: analysing again",
			 w->me, w->size, *me, *size);
		share_release(w);
	}
	w->me = *me;
	w->size = *size;
	do_share(w);
	return CMD_OK;
}

int cli_job_run(const struct cli_job *jo, char **args, size_t nargs)
{
	struct share_work w = {.jo = jo, .args = args, .nargs = nargs, .size = 1,
			       .blob = GP_STRBUF_INIT};
	char *all = NULL;
	size_t *lens = NULL;
	int me = 0, size = 1, status = CMD_ERROR;
	uint64_t t[5] = {gp_clock_monotonic_ns()}; /* phase ends, for the debug line */

	if (jo->mpi) {
		if (start_mpi(&w, &me, &size)) {
			share_release(&w);
			return CMD_ERROR;
		}
	} else {
		do_share(&w);
	}
	t[1] = t[2] = gp_clock_monotonic_ns();
	if (jo->mpi) {
		if (!cli_mpi_gather(w.blob.buf, w.blob.len, me, size, &all, &lens)) {
			t[2] = gp_clock_monotonic_ns();
			status = me != 0 ? CMD_OK : w.ok ? finish(jo, all, lens, size) : CMD_ERROR;
		}
		t[3] = gp_clock_monotonic_ns();
		status = cli_mpi_status(status);
		cli_mpi_finalize();
	} else if (w.ok) {
		status = finish(jo, w.blob.buf, &w.blob.len, 1);
		t[3] = gp_clock_monotonic_ns();
	}
	t[4] = gp_clock_monotonic_ns();
	gp_debug("process %d: ms in MPI start and its share %.1f, the gather %.1f, "
		 "rank 0's merge and output %.1f, MPI finish %.1f", me, (t[1] - t[0]) / 1e6,
		 (t[2] - t[1]) / 1e6, (t[3] - t[2]) / 1e6, (t[4] - t[3]) / 1e6);
	free(all);
	free(lens);
	share_release(&w);
	return status;
}
