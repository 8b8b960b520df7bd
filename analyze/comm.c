/* SPDX-License-Identifier: MIT */
/*
 * comm.c - communication analysis (gpuprof comm, the report's
 * Communication section; docs/comm.md has the method and its limits).
 *
 *   Collectives: NCCL operations by collective and message-size bucket:
 *     count, time, bytes, algbw = S / t and busbw = algbw * f(n) with
 *     nccl-tests' data size S and bus factor f (reference/analysis.md 6.1);
 *     t is the operation's GPU time (record, channels or linked kernels),
 *     else its host time, and for an operation matched on several ranks the
 *     fastest rank's (the rest of each rank's time is waiting).
 *   Exposed communication: per device and step, C = union of communication
 *     kernel intervals, K = union of the other kernels; overlap = |C & K|,
 *     exposed = |C \ K|. Communication kernels and peer copies are those of
 *     the one classification every command uses (analyze/commclass.h).
 *   Across ranks: each process is a rank, its collectives taken and
 *     matched by the rules and the code of the job report
 *     (analyze/coll-match.c): by communicator hash and sequence number, else
 *     by order per communicator (or process group), else by order of
 *     communication kernels per stream, kinds and sizes checked, GPU ends
 *     checked against the clocks; skew = last - first arrival; the last
 *     arrival makes the others wait (last - their arrival), counted against
 *     it; the straggler is last in half the collectives by a clear margin.
 */
#include "base/compat.h"
#include "analyze/comm.h"
#include "analyze/commclass.h"
#include "analyze/model.h"
#include "analyze/mfu.h"
#include "analyze/steps.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <ctype.h>

/* ---- names and factors */

static const char *const bucket_names[GPA_COMM_BUCKETS] = {
	"<64KiB", "64KiB-1MiB", "1-16MiB", "16-256MiB", ">=256MiB",
};

const char *gpa_comm_bucket_name(unsigned b)
{
	return b < GPA_COMM_BUCKETS ? bucket_names[b] : NULL;
}

static unsigned bucket_of(uint64_t bytes)
{
	if (bytes < (64u << 10)) {
		return 0;
	}
	if (bytes < (1u << 20)) {
		return 1;
	}
	if (bytes < (16u << 20)) {
		return 2;
	}
	if (bytes < (256u << 20)) {
		return 3;
	}
	return 4;
}

/* Spellings: "AllReduce", "ncclAllReduce", "nccl:all_reduce", "_reduce_scatter_base", ... */
const char *gpa_comm_canonical(const char *func)
{
	static const struct {
		const char *key, *name;
	} names[] = {
		{"reducescatter", "ReduceScatter"}, {"allreduce", "AllReduce"},
		{"allgather", "AllGather"},	    {"alltoall", "AlltoAll"},
		{"broadcast", "Broadcast"},	    {"bcast", "Broadcast"},
		{"sendrecv", "SendRecv"},	    {"send", "Send"},
		{"recv", "Recv"},		    {"gather", "Gather"},
		{"scatter", "Scatter"},		    {"reduce", "Reduce"},
	};
	char buf[64];
	size_t n = 0;

	if (!func) {
		return NULL;
	}
	for (const char *p = func; *p && n + 1 < sizeof(buf); p++) {
		if (*p != '_' && *p != ':' && *p != ' ' && *p != '-') {
			buf[n++] = (char)tolower((unsigned char)*p);
		}
	}
	buf[n] = '\0';
	for (size_t i = 0; i < GP_ARRAY_SIZE(names); i++) {
		if (strstr(buf, names[i].key)) {
			return names[i].name;
		}
	}
	return NULL;
}

double gpa_comm_bus_factor(const char *c, int n, unsigned *mult)
{
	double nn = n > 0 ? n : 1;

	*mult = 1;
	if (!c) {
		return 1;
	}
	if (!strcmp(c, "AllReduce")) {
		return 2 * (nn - 1) / nn;
	}
	if (!strcmp(c, "ReduceScatter") || !strcmp(c, "AllGather") || !strcmp(c, "AlltoAll") ||
	    !strcmp(c, "Gather") || !strcmp(c, "Scatter")) {
		*mult = n > 0 ? (unsigned)n : 1;
		return (nn - 1) / nn;
	}
	return 1; /* Broadcast, Reduce, Send, Recv, SendRecv */
}

double gpa_comm_link_peak_gbps(const struct gpa_model *m, uint32_t dev)
{
	struct gpa_peaks p;

	if (!m || dev >= m->devs.n || gpa_device_peaks(m, dev, &p) ||
	    (p.source != GPA_PEAK_TABLE && p.source != GPA_PEAK_USER)) {
		return 0; /* unknown device, or only an estimate: no link figures */
	}
	/* NVLink where the device has it (the table gives both directions), else PCIe x16. */
	return p.nvlink_gbps > 0 ? p.nvlink_gbps / 2 : p.pcie_gbps;
}

void gpa_comm_opts_init(struct gpa_comm_opts *o)
{
	memset(o, 0, sizeof(*o));
}

/* ---- interval unions */

/*
 * The length of a union of intervals met in start order, kept as it grows:
 * the closed part's length and the open interval [s, e).
 */
struct iv_sum {
	uint64_t len, s, e;
	bool open;
};

static void iv_add(struct iv_sum *u, uint64_t s, uint64_t e)
{
	if (e <= s) {
		return;
	}
	if (u->open && s <= u->e) {
		u->e = e > u->e ? e : u->e;
		return;
	}
	u->len += u->open ? u->e - u->s : 0;
	u->s = s;
	u->e = e;
	u->open = true;
}

static uint64_t iv_len(const struct iv_sum *u)
{
	return u->len + (u->open ? u->e - u->s : 0);
}

/*
 * One device's (or one step's) kernels and peer copies, met in start order:
 * the unions of communication (C), of the other kernels (K) and of both,
 * so |C intersect K| = |C| + |K| - |C union K| with nothing kept per op.
 */
struct measure {
	struct iv_sum c, k, all;
	uint64_t kernels; /* communication kernels and peer copies */
	bool any;         /* ops met */
};

static void measure_add(struct measure *x, bool is_comm, uint64_t s, uint64_t e)
{
	iv_add(is_comm ? &x->c : &x->k, s, e);
	iv_add(&x->all, s, e);
	x->kernels += is_comm;
	x->any = true;
}

static void measure_end(const struct measure *x, struct gpa_comm_dev *out)
{
	out->kernels = x->kernels;
	out->comm = iv_len(&x->c);
	out->compute = iv_len(&x->k);
	out->overlap = out->comm + out->compute - iv_len(&x->all);
	out->exposed = out->comm - out->overlap;
}

/*
 * Per device with communication, and per step of it: its kernels' and peer
 * copies' time, in one pass over the device's timeline (each step's ops are
 * in start order within it).
 */
static int exposure(const struct gpa_model *m, const struct gpa_comm_opts *o,
		    const struct gpa_commclass *cc, struct gpa_comm *out)
{
	const struct gpa_steps *st = o->steps;
	size_t nsteps = st && gpa_steps_assigned(st) ? st->v.n : 0;
	struct measure *per = calloc(nsteps + 1, sizeof(*per));

	if (!per) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t d = 0; d < m->devs.n; d++) {
		const struct gpa_dev *dv = &m->devs.v[d];
		struct measure tot = {0};
		memset(per, 0, (nsteps + 1) * sizeof(*per));
		for (uint32_t g = dv->gpu_first; g < dv->gpu_first + dv->gpu_count; g++) {
			bool is_comm = gpa_commclass_gpu(cc, m, g);
			if (gpa_gpu_kind(m, g) != GPA_GPU_KERNEL && !is_comm) {
				continue;
			}
			uint64_t s = gpa_gpu_start(m, g), e = gpa_gpu_end(m, g);
			measure_add(&tot, is_comm, s, e);
			uint32_t k = nsteps ? gpa_step_of(st, g) : GPA_NONE;
			if (k != GPA_NONE) {
				measure_add(&per[k], is_comm, s, e);
			}
		}
		if (!tot.kernels) {
			continue;
		}
		for (size_t k = 0; k < nsteps; k++) {
			struct gpa_comm_dev r = {.dev = d, .step = (uint32_t)k};
			if (!per[k].any) {
				continue;
			}
			measure_end(&per[k], &r);
			if (r.kernels && gp_vec_push(&out->devs, r)) {
				free(per);
				return -GP_ERR_NOMEM;
			}
		}
		struct gpa_comm_dev r = {.dev = d, .step = GPA_NONE};
		measure_end(&tot, &r);
		if (gp_vec_push(&out->devs, r)) {
			free(per);
			return -GP_ERR_NOMEM;
		}
	}
	free(per);
	return 0;
}

/* ---- which kernels communicate */

static void count_classes(const struct gpa_commclass *cc, struct gpa_comm *out)
{
	out->by_record = cc->n[GPA_COMM_RECORD];
	/* Named by rules: the launching CPU op, a built-in or a user kernel-name rule. */
	out->by_name = cc->n[GPA_COMM_CPU_OP] + cc->n[GPA_COMM_NAME] + cc->n[GPA_COMM_USER];
	out->by_cpu_op = cc->n[GPA_COMM_CPU_OP];
	out->peer_copies = cc->n[GPA_COMM_PEER];
	out->comm_kernels = out->by_record + out->by_name;
	out->host_colls = cc->host_colls;
	out->host_name = cc->host_name;
	out->ident = (out->by_record ? GPA_COMM_BY_RECORDS : 0) | (out->by_name ? GPA_COMM_BY_NAMES : 0);
}

/* ---- collectives and ranks */

struct opk {
	uint64_t hash, seq;
	const char *canon; /* or NULL: then func */
	uint32_t func, idx;
	uint64_t t;	/* its duration */
	uint64_t tbw;	/* duration for bandwidth */
};

static int cmp_key(const void *a, const void *b)
{
	const struct opk *x = a, *y = b;

	if (x->hash != y->hash) {
		return x->hash < y->hash ? -1 : 1;
	}
	if (x->seq != y->seq) {
		return x->seq < y->seq ? -1 : 1;
	}
	int c = strcmp(x->canon ? x->canon : "", y->canon ? y->canon : "");
	if (c) {
		return c;
	}
	if (x->func != y->func && !x->canon) {
		return x->func < y->func ? -1 : 1;
	}
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_coll(const void *a, const void *b)
{
	const struct gpa_comm_coll *x = a, *y = b;

	if (x->time != y->time) {
		return x->time > y->time ? -1 : 1;
	}
	if (x->func != y->func) {
		return x->func < y->func ? -1 : 1;
	}
	return (int)x->bucket - (int)y->bucket;
}

static uint64_t op_time(const struct gpa_nccl_op *op)
{
	if (op->gpu_from != GPA_NCCL_GPU_NONE) {
		return op->gpu_end - op->gpu_start;
	}
	return op->end - op->start;
}

/* The matcher's answer (ev sorted by it) in comm's terms; matched operations' bandwidth times. */
static void take_match(struct gpa_comm *out, const struct gpa_coll_match *x,
		       const struct gpa_coll_ev *ev, struct opk *keys, size_t nk, uint32_t *key_of)
{
	for (size_t i = 0; i < out->ranks.n; i++) {
		struct gpa_comm_rank *r = &out->ranks.v[i];
		r->matched = x->ranks[i].matched;
		r->last = x->ranks[i].last;
		r->caused = x->ranks[i].caused;
		r->waited = x->ranks[i].waited;
		r->late_sum = x->ranks[i].late_sum;
	}
	out->groups = x->chk.groups;
	out->unmatched = x->chk.unmatched;
	out->match = x->chk;
	out->straggler_ev = x->straggler_ev;
	out->straggler = x->straggler_ev == GPA_COLL_FOUND ? x->straggler : GPA_NONE;
	out->straggler_margin = x->straggler_margin;
	for (size_t i = 0; i < nk; i++) {
		key_of[keys[i].idx] = (uint32_t)i;
	}
	for (size_t g = 0; g < x->groups.n; g++) {
		const struct gpa_coll_group *gr = &x->groups.v[g];
		uint64_t tmin = UINT64_MAX;
		out->skew_sum += gr->skew;
		out->skew_max = gr->skew > out->skew_max ? gr->skew : out->skew_max;
		for (size_t i = gr->a; i < gr->b; i++) {
			uint32_t op = ev[i].tag;
			uint64_t t = op != GPA_NONE ? keys[key_of[op]].t : UINT64_MAX;
			tmin = t < tmin ? t : tmin;
		}
		for (size_t i = gr->a; i < gr->b && tmin != UINT64_MAX; i++) {
			if (ev[i].tag != GPA_NONE) {
				keys[key_of[ev[i].tag]].tbw = tmin; /* the fastest rank's time */
			}
		}
	}
}

/* Each process a rank: its collectives matched across the others (analyze/coll-match.c). */
static int across_ranks(const struct gpa_model *m, const struct gpa_commclass *cc,
			struct gpa_comm *out, struct opk *keys, size_t nk)
{
	struct gpa_coll_src *src = NULL;
	struct gpa_coll_ev *ev = NULL;
	uint32_t *key_of = malloc((nk ? nk : 1) * sizeof(*key_of));
	struct gpa_coll_match x;
	size_t n = 0;
	int ret = -GP_ERR_NOMEM;

	if (!out->ranks.n) {
		free(key_of);
		return 0;
	}
	/* One process has nothing to match across: the matcher answers on no collectives
	 * (taking a long trace's communication kernels would only raise its peak memory). */
	if (!key_of || (out->ranks.n > 1 && gpa_coll_take(m, cc, true, SIZE_MAX, &src, &n)) ||
	    !(ev = malloc((n ? n : 1) * sizeof(*ev)))) {
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gpa_coll_src *c = &src[i];
		const char *canon = gpa_comm_canonical(c->func);
		ev[i] = (struct gpa_coll_ev){.hash = c->hash, .seq = c->seq, .by = c->by,
					     .gpu_end = c->gpu_end, .func = canon ? canon : c->func,
					     .bytes = c->bytes, .arrival = c->arrival,
					     .end = c->end, .rank = c->proc, .tag = c->op};
		out->ranks.v[c->proc].colls++;
		out->ranks.v[c->proc].by = c->by;
	}
	ret = gpa_coll_match(ev, n, (uint32_t)out->ranks.n, &x);
	if (!ret) {
		take_match(out, &x, ev, keys, nk, key_of);
		gpa_coll_match_release(&x);
	}
out:
	free(src);
	free(ev);
	free(key_of);
	return ret;
}

static int collectives(const struct gpa_model *m, const struct gpa_commclass *cc,
		       struct gpa_comm *out)
{
	const struct gpa_nccl *n = m->nccl;
	struct opk *keys = NULL;
	GP_VEC(const char *) canon = {0}; /* per collective row */
	int ret = -GP_ERR_NOMEM;
	size_t nk = 0;

	for (uint32_t p = 0; p < m->procs.n; p++) {
		struct gpa_comm_rank r = {.proc = p, .rank = m->procs.v[p].rank};
		if (gp_vec_push(&out->ranks, r)) {
			return ret;
		}
	}
	if (n && n->ops.n && !(keys = calloc(n->ops.n, sizeof(*keys)))) {
		return ret;
	}
	for (size_t i = 0; n && i < n->ops.n; i++) {
		const struct gpa_nccl_op *op = &n->ops.v[i];
		struct opk k = {.hash = op->comm_hash, .seq = op->seq, .func = op->func,
				.idx = (uint32_t)i, .canon = gpa_comm_canonical(gpa_model_str(m, op->func))};
		k.t = k.tbw = op_time(op);
		out->ops++;
		out->p2p_ops += (op->flags & GPT_NCCL_P2P) != 0;
		out->ops_gpu += op->gpu_from != GPA_NCCL_GPU_NONE;
		if (out->ranks.v[op->proc].rank < 0 && op->rank >= 0) {
			out->ranks.v[op->proc].rank = op->rank; /* no launcher rank: the NCCL one */
		}
		keys[nk++] = k;
	}
	gp_qsort(keys, nk, sizeof(*keys), cmp_key);
	ret = across_ranks(m, cc, out, keys, nk);
	if (ret) {
		goto out;
	}
	ret = -GP_ERR_NOMEM;
	/* collectives by (name, size bucket) */
	for (size_t i = 0; i < nk; i++) {
		const struct gpa_nccl_op *op = &n->ops.v[keys[i].idx];
		unsigned mult;
		double f = gpa_comm_bus_factor(keys[i].canon, op->nranks, &mult);
		unsigned bk = bucket_of(op->bytes);
		struct gpa_comm_coll *c = NULL;
		for (size_t j = 0; j < out->colls.n; j++) {
			struct gpa_comm_coll *x = &out->colls.v[j];
			/* canonical names are static strings: compare pointers */
			bool same = keys[i].canon ? canon.v[j] == keys[i].canon
						  : !canon.v[j] && x->func == op->func;
			if (same && x->bucket == bk) {
				c = x;
				break;
			}
		}
		if (!c) {
			struct gpa_comm_coll z = {.func = op->func, .bucket = (uint8_t)bk};
			if (gp_vec_push(&out->colls, z) || gp_vec_push(&canon, keys[i].canon)) {
				goto out;
			}
			c = &out->colls.v[out->colls.n - 1];
		}
		c->count++;
		c->time += keys[i].t;
		c->bw_time += keys[i].tbw;
		c->bytes += op->bytes;
		c->data += op->bytes * mult;
		c->gpu_known += op->gpu_from != GPA_NCCL_GPU_NONE;
		c->nranks = op->nranks > c->nranks ? op->nranks : c->nranks;
		/* busbw summed as data * factor, divided at the end */
		c->busbw += (double)op->bytes * mult * f;
		if (op->dev != GPA_NONE) {
			double pk = gpa_comm_link_peak_gbps(m, op->dev);
			if (pk > 0) {
				c->peak = pk;
				out->peak_known = true;
			}
		}
	}
	for (size_t j = 0; j < out->colls.n; j++) {
		struct gpa_comm_coll *c = &out->colls.v[j];
		double t = (double)c->bw_time;
		c->algbw = t > 0 ? (double)c->data / t : 0; /* bytes per ns = GB/s */
		c->busbw = t > 0 ? c->busbw / t : 0;
	}
	gp_qsort(out->colls.v, out->colls.n, sizeof(*out->colls.v), cmp_coll);
	ret = 0;
out:
	free(keys);
	gp_vec_free(&canon);
	return ret;
}

int gpa_comm_analyze(const struct gpa_model *m, const struct gpa_comm_opts *o,
		     struct gpa_comm *out, char *errbuf, size_t errlen)
{
	struct gpa_comm_opts def;
	struct gpa_commclass own = {0};
	const struct gpa_commclass *cc;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->straggler = GPA_NONE;
	if (!o) {
		gpa_comm_opts_init(&def);
		o = &def;
	}
	cc = o->comm;
	if (!cc) {
		struct gpa_commclass_opts co = {o->kernel_rules, o->nkernel_rules};
		ret = gpa_commclass_compute(m, &co, &own, errbuf, errlen);
		cc = &own;
	}
	if (!ret) {
		count_classes(cc, out);
		ret = exposure(m, o, cc, out);
	}
	if (!ret) {
		ret = collectives(m, cc, out);
	}
	gpa_commclass_release(&own);
	if (ret) {
		if (ret == -GP_ERR_NOMEM) {
			snprintf(errbuf, errlen, "out of memory");
		}
		gpa_comm_release(out);
	}
	return ret;
}

void gpa_comm_release(struct gpa_comm *c)
{
	gp_vec_free(&c->colls);
	gp_vec_free(&c->devs);
	gp_vec_free(&c->ranks);
	memset(c, 0, sizeof(*c));
	c->straggler = GPA_NONE;
}
