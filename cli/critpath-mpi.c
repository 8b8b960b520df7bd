/* SPDX-License-Identifier: MIT */
/*
 * critpath-mpi.c - `gpuprof critical-path --mpi` (docs/cluster.md). Each
 * MPI process loads its share of the traces (one process each, balanced by
 * bytes) and keeps them while two small exchanges run:
 *
 *   1. to every process: per trace its clock anchor, first event, how its
 *      steps were found, and its collectives' arrivals (communicator,
 *      sequence, name, host start, arrival); from these each process knows
 *      the job's timeline and, for each of its collectives, when the last
 *      other rank arrived (gpa_cp_match_arrivals), as the analysis of one
 *      model holding every trace would;
 *   2. to rank 0: per trace its steps' critical paths (composition, bound,
 *      what-if, longest segments with their event names) on the job's
 *      timeline. Rank 0 writes them in trace order: the one-process output.
 *
 * The one-process run finds steps once for the whole job; the answers are
 * the same when every trace finds its steps the same way, and the command
 * says so and stops when they do not.
 */
#define GP_LOG_TAG "cli/critpath-mpi"
#include "base/compat.h"
#include "base/le.h"
#include "analyze/commclass.h"
#include "analyze/critpath.h"
#include "analyze/model.h"
#include "analyze/steps.h"
#include "import/import.h"
#include "cli/cli.h"
#include "report/report.h"
#include "report/critpath.h"

#include <stdlib.h>
#include <string.h>

/* A trace of this process's share, loaded. */
struct mine {
	uint32_t file;
	struct gpa_model m;
	struct gpa_steps steps;
	struct gpa_commclass cc;
};

struct share {
	GP_VEC(struct mine *) f;
};

/* What every process learns of every trace (exchange 1). */
struct head {
	bool seen, ok;
	uint32_t procs;
	bool aligned;
	int64_t offset;
	uint64_t t0;
	uint8_t source;
	char *step_name;
	int64_t shift; /* onto the job's timeline */
};

/* The name steps were found by: the chosen annotation's, or "" (the source says the rest). */
static const char *step_name(const struct mine *f)
{
	const struct gpa_steps *st = &f->steps;

	if ((st->source != GPA_STEPS_REPEAT && st->source != GPA_STEPS_LOOP) || !st->v.n ||
	    !st->v.v[0].name) {
		return "";
	}
	return gpa_model_str(&f->m, st->v.v[0].name);
}

/* Exchange 1's record of one trace; a trace that failed is a record with status 1. */
static int head_record(struct mine *f, bool ok, struct gp_strbuf *o)
{
	struct gpa_cp_arrival *arr = NULL;
	size_t n = 0;

	gp_le_put(o, f->file, 4);
	gp_le_put(o, !ok, 1);
	if (!ok) {
		return 0;
	}
	if (gpa_cp_arrivals(&f->m, 0, f->file, &arr, &n)) {
		return -GP_ERR_NOMEM;
	}
	const struct gpa_proc *p = f->m.procs.n ? &f->m.procs.v[0] : NULL;
	gp_le_put(o, f->m.procs.n, 4);
	gp_le_put(o, p && f->m.aligned, 1);
	gp_le_put(o, p ? (uint64_t)p->anchor_offset : 0, 8);
	gp_le_put(o, f->m.t0, 8);
	gp_le_put(o, f->steps.source, 1);
	gp_le_put_str(o, step_name(f));
	gp_le_put(o, n, 4);
	for (size_t i = 0; i < n; i++) {
		gp_le_put(o, arr[i].hash, 8);
		gp_le_put(o, arr[i].seq, 8);
		gp_le_put_str(o, arr[i].func);
		gp_le_put(o, arr[i].start, 8);
		gp_le_put(o, arr[i].t, 8);
		gp_le_put(o, arr[i].op, 4);
	}
	free(arr);
	return o->failed ? -GP_ERR_NOMEM : 0;
}

struct job {
	char **paths;
	size_t n;
	struct head *h;		      /* per trace */
	GP_VEC(struct gpa_cp_arrival) arr; /* every trace's, local times until shifted */
	GP_VEC(char *) names;		      /* what arr's func point to */
	uint64_t t0;
};

static void job_release(struct job *j)
{
	for (size_t i = 0; j->h && i < j->n; i++) {
		free(j->h[i].step_name);
	}
	free(j->h);
	for (size_t i = 0; i < j->names.n; i++) {
		free(j->names.v[i]);
	}
	gp_vec_free(&j->names);
	gp_vec_free(&j->arr);
}

/* One record of exchange 1 read into j; false when damaged. */
static bool read_head(struct job *j, struct gp_le_rd *r)
{
	uint32_t file = (uint32_t)gp_le_get(r, 4);
	bool failed = gp_le_get(r, 1) != 0;

	if (r->bad || file >= j->n || j->h[file].seen) {
		return false;
	}
	struct head *h = &j->h[file];
	h->seen = true;
	h->ok = !failed;
	if (failed) {
		return true;
	}
	h->procs = (uint32_t)gp_le_get(r, 4);
	h->aligned = gp_le_get(r, 1) != 0;
	h->offset = (int64_t)gp_le_get(r, 8);
	h->t0 = gp_le_get(r, 8);
	h->source = (uint8_t)gp_le_get(r, 1);
	h->step_name = gp_le_get_str(r);
	uint64_t na = gp_le_get(r, 4);
	if (!gp_le_fits(r, na, 40)) {
		return false;
	}
	for (uint64_t i = 0; i < na; i++) {
		struct gpa_cp_arrival a = {.proc = file};
		char *func;
		a.hash = gp_le_get(r, 8);
		a.seq = gp_le_get(r, 8);
		func = gp_le_get_str(r);
		if (func && gp_vec_push(&j->names, func)) {
			free(func);
			return false;
		}
		a.func = func;
		a.start = gp_le_get(r, 8);
		a.t = gp_le_get(r, 8);
		a.op = (uint32_t)gp_le_get(r, 4);
		if (r->bad || gp_vec_push(&j->arr, a)) {
			return false;
		}
	}
	return true;
}

/*
 * Every trace's head and arrivals, checked: all analysed, one process
 * each, steps found alike. Rank 0 says what is wrong. Returns CMD_OK or
 * CMD_ERROR.
 */
static int read_heads(struct job *j, const char *all, const size_t *lens, int size, int me)
{
	struct gp_le_rd r = {.p = (const uint8_t *)all};
	bool aligned = true, failed = false;

	for (int k = 0; k < size; k++) {
		r.end = r.p + lens[k];
		while (r.p < r.end) {
			if (!read_head(j, &r)) {
				if (me == 0) {
					cli_error("the summaries of process %d are damaged", k);
				}
				return CMD_ERROR;
			}
		}
	}
	for (size_t i = 0; i < j->n; i++) {
		const struct head *h = &j->h[i], *h0 = &j->h[0];
		failed |= !h->seen || !h->ok;
		if (failed) {
			continue; /* the process that had it said why */
		}
		if (h->procs != 1) {
			if (me == 0) {
				cli_error("%s: %u processes in one trace: critical-path --mpi takes one "
					  "process per trace", j->paths[i], h->procs);
			}
			return CMD_ERROR;
		}
		if (h->source != h0->source || strcmp(h->step_name, h0->step_name)) {
			if (me == 0) {
				cli_error("%s finds its steps otherwise than %s: one process finds them "
					  "once for the job, so run without --mpi or give --step",
					  j->paths[i], j->paths[0]);
			}
			return CMD_ERROR;
		}
		aligned &= h->aligned;
	}
	if (failed) {
		return CMD_ERROR;
	}
	/* one timeline as the model of every trace has it: anchors when all have one */
	j->t0 = UINT64_MAX;
	for (size_t i = 0; i < j->n; i++) {
		struct head *h = &j->h[i];
		h->shift = aligned && j->n > 1 ? h->offset : 0;
		uint64_t t = (uint64_t)((int64_t)h->t0 + h->shift);
		j->t0 = t < j->t0 ? t : j->t0;
	}
	for (size_t i = 0; i < j->arr.n; i++) {
		struct gpa_cp_arrival *a = &j->arr.v[i];
		a->start = (uint64_t)((int64_t)a->start + j->h[a->proc].shift);
		a->t = (uint64_t)((int64_t)a->t + j->h[a->proc].shift);
	}
	if (j->n > 1) {
		gpa_cp_match_arrivals(j->arr.v, j->arr.n);
	}
	return CMD_OK;
}

static void put_path(struct gp_strbuf *o, const struct gpa_cp_path *p, int64_t shift)
{
	gp_le_put(o, (uint64_t)((int64_t)p->end + shift), 8);
	for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
		gp_le_put(o, p->cat_ns[k], 8);
	}
	gp_le_put(o, p->segs, 8);
	gp_le_put(o, p->top_n, 4);
}

/* Exchange 2's record of one trace: its steps' paths on the job's timeline, names resolved. */
static void path_record(const struct mine *f, const struct gpa_critpath *cp, int64_t shift,
			struct gp_strbuf *o)
{
	const struct gpa_model *m = &f->m;
	char pid[32];

	gp_le_put(o, f->file, 4);
	gp_le_put(o, cp->cycles, 8);
	gp_le_put(o, cp->steps.n, 4);
	for (size_t i = 0; i < cp->steps.n; i++) {
		const struct gpa_cp_step *s = &cp->steps.v[i];
		const struct gpa_step *st = &f->steps.v.v[s->step];
		snprintf(pid, sizeof(pid), "process %" PRIu32, m->procs.v[st->proc].pid);
		gp_le_put_str(o, st->name ? gpa_model_str(m, st->name) : pid);
		gp_le_put(o, (uint64_t)((int64_t)s->start + shift), 8);
		gp_le_put(o, s->nodes, 4);
		gp_le_put(o, s->matched, 4);
		const struct gpa_cp_path *ps[2] = {&s->now, &s->what_if};
		for (int w = 0; w < 2; w++) {
			put_path(o, ps[w], shift);
			for (size_t k = 0; k < ps[w]->top_n; k++) {
				const struct gpa_cp_seg *g = &cp->segs.v[ps[w]->top_first + k];
				gp_le_put(o, (uint64_t)((int64_t)g->start + shift), 8);
				gp_le_put(o, (uint64_t)((int64_t)g->end + shift), 8);
				gp_le_put(o, g->cat, 1);
				gp_le_put(o, g->kind, 1);
				gp_le_put(o, g->edge, 1);
				gp_le_put_str(o, gpa_cp_seg_name(m, g));
			}
		}
	}
}

/* The analysis of one trace of the share, with the other ranks' arrivals; its record. */
static int analyse(const struct gpa_critpath_opts *ao, struct mine *f, const struct job *j,
		   struct gp_strbuf *o)
{
	struct gpa_critpath_opts opts = *ao;
	struct gpa_critpath cp = {0};
	const struct gpa_nccl *nc = f->m.nccl;
	size_t nops = nc ? nc->ops.n : 0;
	uint64_t *last = calloc(nops ? nops : 1, sizeof(*last));
	int64_t shift = j->h[f->file].shift;
	char err[512];
	int ret;

	if (!last) {
		cli_error("out of memory");
		return CMD_ERROR;
	}
	for (size_t i = 0; i < j->arr.n; i++) {
		const struct gpa_cp_arrival *a = &j->arr.v[i];
		if (a->proc == f->file && a->op < nops && a->last) {
			/* back onto this trace's clock; before it began is no wait either way */
			int64_t t = (int64_t)a->last - shift;
			last[a->op] = t > 0 ? (uint64_t)t : 0;
		}
	}
	opts.comm = &f->cc;
	opts.op_last = j->n > 1 ? last : NULL;
	opts.nop_last = nops;
	ret = gpa_critpath_analyze(&f->m, &f->steps, &opts, &cp, err, sizeof(err));
	if (ret) {
		cli_error("%s: %s", j->paths[f->file], err);
	} else {
		path_record(f, &cp, shift, o);
	}
	gpa_critpath_release(&cp);
	free(last);
	return ret ? cli_exit_code(ret, 0) : CMD_OK;
}

/* Rank 0: exchange 2's records in trace order, into one result and its names. */
struct merged {
	struct gpa_critpath cp;
	GP_VEC(char *) step_names, seg_names; /* per cp step, per cp seg */
};

static void merged_release(struct merged *mg)
{
	for (size_t i = 0; i < mg->step_names.n; i++) {
		free(mg->step_names.v[i]);
	}
	for (size_t i = 0; i < mg->seg_names.n; i++) {
		free(mg->seg_names.v[i]);
	}
	gp_vec_free(&mg->step_names);
	gp_vec_free(&mg->seg_names);
	gpa_critpath_release(&mg->cp);
}

static void read_path(struct gp_le_rd *r, struct gpa_cp_path *p, struct merged *mg)
{
	p->end = gp_le_get(r, 8);
	for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
		p->cat_ns[k] = gp_le_get(r, 8);
	}
	p->segs = (size_t)gp_le_get(r, 8);
	p->top_n = (size_t)gp_le_get(r, 4);
	p->top_first = mg->cp.segs.n;
	gp_le_fits(r, p->top_n, 23);
	for (size_t k = 0; !r->bad && k < p->top_n; k++) {
		struct gpa_cp_seg g = {.row = GPA_NONE};
		g.start = gp_le_get(r, 8);
		g.end = gp_le_get(r, 8);
		g.cat = (uint8_t)gp_le_get(r, 1);
		g.kind = (uint8_t)gp_le_get(r, 1);
		g.edge = gp_le_get(r, 1) != 0;
		char *name = gp_le_get_str(r);
		if (r->bad || g.end < g.start || g.cat >= GPA_CP__COUNT ||
		    gp_vec_push(&mg->cp.segs, g) || gp_vec_push(&mg->seg_names, name)) {
			free(name);
			gp_le_fail(r, "damaged");
		}
	}
}

/* One trace's record appended to mg; false when damaged. */
static bool read_paths(struct gp_le_rd *r, struct merged *mg)
{
	mg->cp.cycles += gp_le_get(r, 8);
	uint64_t ns = gp_le_get(r, 4);

	if (!gp_le_fits(r, ns, 24)) {
		return false;
	}
	for (uint64_t i = 0; i < ns && !r->bad; i++) {
		struct gpa_cp_step s = {.step = GPA_NONE, .proc = GPA_NONE};
		char *label = gp_le_get_str(r);
		if (!label || gp_vec_push(&mg->step_names, label)) {
			free(label);
			return false;
		}
		s.start = gp_le_get(r, 8);
		s.nodes = (uint32_t)gp_le_get(r, 4);
		s.matched = (uint32_t)gp_le_get(r, 4);
		read_path(r, &s.now, mg);
		read_path(r, &s.what_if, mg);
		if (r->bad || s.now.end < s.start || s.what_if.end < s.start ||
		    gp_vec_push(&mg->cp.steps, s)) {
			return false;
		}
	}
	return !r->bad;
}

/* Rank 0: every trace's paths in trace order, rendered and written. */
static int finish(const struct job *j, int format, const struct gpr_display *d, bool what_if,
		  const char *all, const size_t *lens, int size)
{
	const uint8_t **at = calloc(j->n ? j->n : 1, sizeof(*at));
	const uint8_t **end = calloc(j->n ? j->n : 1, sizeof(*end));
	struct merged mg = {.cp = {.what_if = what_if}};
	struct gp_strbuf out = GP_STRBUF_INIT;
	struct gp_le_rd r = {.p = (const uint8_t *)all};
	int status = CMD_ERROR;
	bool ok = at && end;

	/* each record's place, by trace */
	for (int k = 0; ok && k < size; k++) {
		const uint8_t *stop = r.p + lens[k];
		while (ok && r.p < stop) {
			struct gp_le_rd one = {.p = r.p, .end = stop};
			uint32_t file = (uint32_t)gp_le_get(&one, 4);
			ok = !one.bad && file < j->n && !at[file];
			if (ok) {
				struct merged skip = {0};
				at[file] = one.p;
				ok = read_paths(&one, &skip);
				end[file] = one.p;
				merged_release(&skip);
			}
			r.p = one.p;
		}
	}
	for (size_t i = 0; ok && i < j->n; i++) {
		struct gp_le_rd one = {.p = at[i], .end = end[i]};
		ok = at[i] && read_paths(&one, &mg);
	}
	if (!ok) {
		cli_error("the critical paths sent to process 0 are incomplete or damaged");
	} else {
		struct gpr_cp_names nm = {.t0 = j->t0,
					  .step = (const char *const *)mg.step_names.v,
					  .seg = (const char *const *)mg.seg_names.v};
		if (gpr_critpath_render_names(&out, (enum gpr_format)format, d, &nm, &mg.cp)) {
			cli_error("out of memory");
		} else if (cli_write_stdout(out.buf, out.len)) {
			status = CMD_OK;
		}
	}
	gp_strbuf_release(&out);
	merged_release(&mg);
	free(at);
	free(end);
	return status;
}

/* This process's share loaded, and exchange 1's records of it. */
static int load_share(const struct cli_critpath_mpi *c, struct job *j, const int *owner, int me,
		      struct share *sh, struct gp_strbuf *o)
{
	int status = CMD_OK;

	for (size_t i = 0; i < j->n; i++) {
		if (owner[i] != me) {
			continue;
		}
		struct mine *f = calloc(1, sizeof(*f));
		if (!f || gp_vec_push(&sh->f, f)) {
			free(f);
			cli_error("out of memory");
			return CMD_ERROR;
		}
		f->file = (uint32_t)i;
		bool ok = cli_load_steps(c->common, &f->m, &j->paths[i], 1, c->step_regex,
					 &f->steps) == CMD_OK;
		if (ok && cli_commclass(&f->m, c->comm, &f->cc) != CMD_OK) {
			gpa_steps_release(&f->steps);
			gpa_model_release(&f->m);
			ok = false;
		}
		if (!ok) {
			sh->f.n--;
			free(f);
			status = CMD_ERROR;
			struct mine bad = {.file = (uint32_t)i};
			head_record(&bad, false, o);
			continue;
		}
		if (head_record(f, true, o)) {
			cli_error("out of memory");
			return CMD_ERROR;
		}
	}
	return status;
}

/* The analyses of the share, exchange 2 and rank 0's output; the status. */
static int paths_and_output(const struct cli_critpath_mpi *c, const struct job *j,
			    struct mine *const *share, size_t nshare, int me, int size)
{
	struct gp_strbuf o = GP_STRBUF_INIT;
	char *all = NULL;
	size_t *lens = NULL;
	int status = CMD_OK;

	for (size_t i = 0; i < nshare && status == CMD_OK; i++) {
		status = analyse(c->opts, share[i], j, &o);
	}
	if (status != CMD_OK || o.failed) {
		gp_strbuf_reset(&o); /* rank 0 finds the record missing */
	}
	if (!cli_mpi_gather(o.buf, o.len, me, size, &all, &lens) && me == 0) {
		status = finish(j, c->format, &c->common->display,
				c->opts->speedup_regex || c->opts->remove_regex, all, lens, size);
	} else if (me == 0) {
		status = CMD_ERROR;
	}
	free(all);
	free(lens);
	gp_strbuf_release(&o);
	return status;
}

int cli_critpath_mpi_run(const struct cli_critpath_mpi *c, char **args, size_t nargs)
{
	struct job j = {0};
	struct share sh = {0};
	struct gp_strbuf o = GP_STRBUF_INIT;
	char err[512], *all = NULL;
	size_t *lens = NULL;
	int me = 0, size = 1, *owner = NULL, status = CMD_ERROR;

	if (cli_mpi_init(&me, &size)) {
		return CMD_ERROR;
	}
	if (gpa_expand_inputs((const char *const *)args, nargs, &j.paths, &j.n, err,
			      sizeof(err))) {
		if (me == 0) {
			cli_error("%s", err);
		}
		goto out; /* every process fails alike, before any exchange */
	}
	owner = malloc((j.n ? j.n : 1) * sizeof(*owner));
	j.h = calloc(j.n ? j.n : 1, sizeof(*j.h));
	if (!owner || !j.h || cli_share_inputs(j.paths, j.n, size, owner)) {
		cli_error("out of memory");
		gp_strbuf_reset(&o);
	} else {
		load_share(c, &j, owner, me, &sh, &o);
	}
	if (o.failed) {
		cli_error("out of memory");
		gp_strbuf_reset(&o);
	}
	/* exchange 1: to every process */
	if (!cli_mpi_allgather(o.buf, o.len, size, &all, &lens) &&
	    read_heads(&j, all, lens, size, me) == CMD_OK) {
		status = paths_and_output(c, &j, sh.f.v, sh.f.n, me, size);
	}
out:
	status = cli_mpi_status(status);
	cli_mpi_finalize();
	for (size_t i = 0; i < sh.f.n; i++) {
		gpa_commclass_release(&sh.f.v[i]->cc);
		gpa_steps_release(&sh.f.v[i]->steps);
		gpa_model_release(&sh.f.v[i]->m);
		free(sh.f.v[i]);
	}
	gp_vec_free(&sh.f);
	for (size_t i = 0; i < j.n; i++) {
		free(j.paths[i]);
	}
	free(j.paths);
	job_release(&j);
	free(owner);
	free(all);
	free(lens);
	gp_strbuf_release(&o);
	return status;
}
