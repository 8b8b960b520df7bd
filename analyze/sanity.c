/* SPDX-License-Identifier: MIT */
/*
 * sanity.c - what no real run can hold. Before the load: an input that is
 * an earlier one again (the same file, or the same bytes), which is not
 * read. After it, once the device timelines are built: records starting far
 * away from the bulk of the trace (outliers), GPU operations longer than a
 * day, and processes that repeat an earlier one (same process id, host,
 * command line, record count and first and last times), whose GPU operations
 * are taken out of the device timelines, so that windows and busy time are
 * not stretched or doubled by them. Counted once per model: records whose
 * end came before their start (model.c counts them while loading, as it
 * keeps them at 0 ns), operations longer than a day, kernel launches of a
 * process without a single kernel record (a kernel table missing from an
 * export).
 */
#include "base/compat.h"
#include "analyze/sanity.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool gpa_api_is_kernel_launch(const char *name)
{
	const char *l = strstr(name, "Launch");

	/* cudaLaunchKernel, cuLaunchKernel(Ex), cudaLaunchCooperativeKernel, hipLaunchKernel */
	return l && strstr(l, "Kernel") && (!strncmp(name, "cu", 2) || !strncmp(name, "hip", 3));
}

/* ------------------------------------------------------------ inputs given twice */

/* Whether two regular files of the same size hold the same bytes; false when unsure. */
static bool same_bytes(const char *a, const char *b)
{
	enum { CHUNK = 1 << 16 };
	char *x = malloc(2 * CHUNK), *y = x ? x + CHUNK : NULL;
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
	bool same = x && fa >= 0 && fb >= 0;

	/* a short read (never at a regular file's middle in practice) says "not the same" */
	while (same) {
		ssize_t na = read(fa, x, CHUNK), nb = read(fb, y, CHUNK);
		if (na < 0 || na != nb || memcmp(x, y, (size_t)na)) {
			same = false;
		} else if (!na) {
			break;
		}
	}
	if (fa >= 0) {
		close(fa);
	}
	if (fb >= 0) {
		close(fb);
	}
	free(x);
	return same;
}

static int add_dup(struct gpa_implausible *b, const char *path, const char *of, bool same_file)
{
	struct gpa_dup_input d = {strdup(path), strdup(of), same_file};

	if (!d.path || !d.same_as || gp_vec_push(&b->dup_inputs, d)) {
		free(d.path);
		free(d.same_as);
		return -GP_ERR_NOMEM;
	}
	return 0;
}

int gpa_sanity_unique_inputs(struct gpa_model *m, const char *const *paths, size_t n, bool *keep)
{
	struct stat *st = calloc(n ? n : 1, sizeof(*st));
	bool *ok = calloc(n ? n : 1, sizeof(*ok));
	int ret = st && ok ? 0 : -GP_ERR_NOMEM;

	for (size_t i = 0; i < n && !ret; i++) {
		keep[i] = true;
		ok[i] = !stat(paths[i], &st[i]); /* one that cannot be read is said by the load */
		for (size_t j = 0; ok[i] && j < i && keep[i]; j++) {
			if (!keep[j] || !ok[j]) {
				continue;
			}
			bool file = st[i].st_dev == st[j].st_dev && st[i].st_ino == st[j].st_ino;
			/* only regular files are read twice to compare: a pipe would lose its data */
			if (file || (S_ISREG(st[i].st_mode) && S_ISREG(st[j].st_mode) &&
				     st[i].st_size == st[j].st_size && same_bytes(paths[i], paths[j]))) {
				keep[i] = false;
				ret = add_dup(&m->bad, paths[i], paths[j], file);
			}
		}
	}
	free(st);
	free(ok);
	return ret;
}

/* ------------------------------------------------------------ outlying starts */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* DO(process, start, end) for every timed record; a sync record's process may be unknown. */
#define EACH_TIMED_(m, DO)                                                                         \
	do {                                                                                       \
		for (size_t i_ = 0; i_ < (m)->kern.n; i_++) {                                      \
			DO(gpa_dev_proc(m, gpa_kern_dev(m, i_)), gpa_kern_start(m, i_),            \
			   gpa_kern_end(m, i_));                                                   \
		}                                                                                  \
		for (size_t i_ = 0; i_ < (m)->copy.n; i_++) {                                      \
			DO(gpa_dev_proc(m, (m)->copy.dev[i_]), (m)->copy.start[i_],                \
			   (m)->copy.end[i_]);                                                     \
		}                                                                                  \
		for (size_t i_ = 0; i_ < (m)->set.n; i_++) {                                       \
			DO(gpa_dev_proc(m, (m)->set.dev[i_]), (m)->set.start[i_],                  \
			   (m)->set.end[i_]);                                                      \
		}                                                                                  \
		for (size_t i_ = 0; i_ < (m)->api.n; i_++) {                                       \
			DO((m)->threads.v[gpa_api_thread(m, i_)].proc, gpa_api_start(m, i_),       \
			   gpa_api_end(m, i_));                                                    \
		}                                                                                  \
		for (size_t i_ = 0; i_ < (m)->sync.n; i_++) {                                      \
			if ((m)->sync.proc[i_] < (m)->procs.n) {                                   \
				DO((m)->sync.proc[i_], (m)->sync.start[i_], (m)->sync.end[i_]);    \
			}                                                                          \
		}                                                                                  \
		for (size_t i_ = 0; i_ < (m)->nvtx.n; i_++) {                                      \
			DO((m)->threads.v[(m)->nvtx.thread[i_]].proc, (m)->nvtx.start[i_],         \
			   (m)->nvtx.end[i_]);                                                     \
		}                                                                                  \
	} while (0)

/*
 * The plausible starts of one process's sorted starts s[0, n), into
 * [*lo, *hi]: split where no record starts for more than a day, the largest
 * group is the bulk, and a group on either side is an outlier when it is
 * small (at most 8 records or 0.1 % of them) and farther from the groups
 * kept than those span. A real trace has no day without a record; a group
 * of its own with much of the trace is kept. Adds the outliers to b.
 */
static void bounds(struct gpa_implausible *b, const uint64_t *s, size_t n, uint64_t *plo,
		   uint64_t *phi)
{
	size_t g0 = 0, best0 = 0, best1 = n, small = n / 1000 > 8 ? n / 1000 : 8;

	for (size_t i = 1; i <= n; i++) { /* the largest group [best0, best1) */
		if (i == n || s[i] - s[i - 1] > GPA_SANITY_MAX_NS) {
			if (i - g0 > best1 - best0 || best1 == n) {
				best0 = g0;
				best1 = i;
			}
			g0 = i;
		}
	}
	size_t lo = best0, hi = best1; /* kept: [lo, hi) */
	for (bool grew = true; grew;) {
		grew = false;
		uint64_t far = s[hi - 1] - s[lo];
		far = far > GPA_SANITY_MAX_NS ? far : GPA_SANITY_MAX_NS;
		size_t j = lo; /* the group before lo: [j, lo) */
		while (j > 0 && (j == lo || s[j] - s[j - 1] <= GPA_SANITY_MAX_NS)) {
			j--;
		}
		if (lo > 0 && (lo - j > small || s[lo] - s[lo - 1] <= far)) {
			lo = j;
			grew = true;
		}
		size_t k = hi; /* the group after hi: [hi, k) */
		while (k < n && (k == hi || s[k] - s[k - 1] <= GPA_SANITY_MAX_NS)) {
			k++;
		}
		if (hi < n && (k - hi > small || s[hi] - s[hi - 1] <= far)) {
			hi = k;
			grew = true;
		}
	}
	*plo = s[lo];
	*phi = s[hi - 1];
	b->outliers += lo + (n - hi);
	uint64_t far = lo > 0 ? s[lo] - s[0] : 0;
	far = hi < n && s[n - 1] - s[hi - 1] > far ? s[n - 1] - s[hi - 1] : far;
	b->outlier_far_ns = far > b->outlier_far_ns ? far : b->outlier_far_ns;
}

/* Sorts the starts of the processes whose records span more than a day; their bounds into b. */
static int proc_bounds(struct gpa_model *m, const uint64_t *first, const uint64_t *last,
		       size_t *at)
{
	size_t np = m->procs.n, total = 0;
	uint64_t *s;

	for (size_t p = 0; p < np; p++) { /* at[p]: where p's starts go; 0 records when not wanted */
		size_t c = at[p];
		at[p] = total;
		total += last[p] - first[p] > GPA_SANITY_MAX_NS ? c : 0;
	}
	s = gp_malloc_big((total ? total : 1) * sizeof(*s));
	if (!s) {
		return -GP_ERR_NOMEM;
	}
#define TAKE_(P, a, e)                                                                             \
	do {                                                                                       \
		if (last[P] - first[P] > GPA_SANITY_MAX_NS) {                                      \
			s[at[P]++] = (a);                                                          \
		}                                                                                  \
	} while (0)
	EACH_TIMED_(m, TAKE_);
#undef TAKE_
	for (size_t p = 0, from = 0; p < np; p++) {
		m->bad.lo[p] = 0;
		m->bad.hi[p] = UINT64_MAX;
		if (at[p] > from) {
			gp_qsort(s + from, at[p] - from, sizeof(*s), cmp_u64);
			bounds(&m->bad, s + from, at[p] - from, &m->bad.lo[p], &m->bad.hi[p]);
		}
		from = at[p];
	}
	free(s);
	return 0;
}

/*
 * Whether every record starts within a day of every other, read from the
 * ends of the tables sorted by start (API calls, syncs, NVTX ranges, each
 * device's timeline): then no process can hold an outlier, and nothing more
 * is read (every real trace).
 */
static bool within_a_day(const struct gpa_model *m)
{
	uint64_t lo = UINT64_MAX, hi = 0;

#define ENDS_(n, FIRST, LAST)                                                                      \
	do {                                                                                       \
		if (n) {                                                                           \
			lo = (FIRST) < lo ? (FIRST) : lo;                                          \
			hi = (LAST) > hi ? (LAST) : hi;                                            \
		}                                                                                  \
	} while (0)
	ENDS_(m->api.n, gpa_api_start(m, 0), gpa_api_start(m, m->api.n - 1));
	ENDS_(m->sync.n, m->sync.start[0], m->sync.start[m->sync.n - 1]);
	ENDS_(m->nvtx.n, m->nvtx.start[0], m->nvtx.start[m->nvtx.n - 1]);
	for (size_t d = 0; d < m->devs.n; d++) {
		size_t f = m->devs.v[d].gpu_first, n = m->devs.v[d].gpu_count;
		ENDS_(n, gpa_gpu_start(m, f), gpa_gpu_start(m, f + n - 1));
	}
#undef ENDS_
	return lo > hi || hi - lo <= GPA_SANITY_MAX_NS;
}

/*
 * Sets m->bad's bounds when some process's records start far from the rest
 * of them; only then are its starts sorted. Each process is taken alone:
 * processes far apart from each other are on clocks of their own.
 */
static int find_outliers(struct gpa_model *m)
{
	size_t np = m->procs.n;
	uint64_t *first, *last;
	size_t *at;
	bool wide = false;
	int ret = 0;

	if (within_a_day(m)) {
		return 0;
	}
	first = calloc(np ? np : 1, 2 * sizeof(uint64_t));
	last = first ? first + np : NULL;
	at = calloc(np ? np : 1, sizeof(*at));
	if (!first || !at) {
		free(first);
		free(at);
		return -GP_ERR_NOMEM;
	}
	for (size_t p = 0; p < np; p++) {
		first[p] = UINT64_MAX;
	}
#define MINMAX_(P, a, e)                                                                           \
	do {                                                                                       \
		first[P] = (a) < first[P] ? (a) : first[P];                                        \
		last[P] = (a) > last[P] ? (a) : last[P];                                           \
		at[P]++;                                                                           \
	} while (0)
	EACH_TIMED_(m, MINMAX_);
#undef MINMAX_
	for (size_t p = 0; p < np; p++) {
		wide |= at[p] && last[p] - first[p] > GPA_SANITY_MAX_NS;
	}
	if (wide) { /* not in a real trace: no gap of a day can be in it */
		m->bad.lo = malloc(np * sizeof(*m->bad.lo));
		m->bad.hi = malloc(np * sizeof(*m->bad.hi));
		ret = m->bad.lo && m->bad.hi ? proc_bounds(m, first, last, at) : -GP_ERR_NOMEM;
		if (!ret && !m->bad.outliers) {
			free(m->bad.lo);
			free(m->bad.hi);
			m->bad.lo = m->bad.hi = NULL;
		}
	}
	free(first);
	free(at);
	return ret;
}

/* ------------------------------------------------------------ processes given twice */

struct proc_span {
	uint64_t first, last;
};

static bool same_run(const struct gpa_model *m, const struct proc_span *ps, size_t a, size_t b)
{
	const struct gpa_proc *x = &m->procs.v[a], *y = &m->procs.v[b];

	return x->pid == y->pid && x->host == y->host && x->cmdline == y->cmdline &&
	       x->events == y->events && ps[a].first == ps[b].first && ps[a].last == ps[b].last;
}

/* m->bad.dup_of, when a process repeats an earlier one (left NULL when none does). */
static int find_dup_procs(struct gpa_model *m)
{
	struct proc_span *ps = calloc(m->procs.n ? m->procs.n : 1, sizeof(*ps));

	if (!ps) {
		return -GP_ERR_NOMEM;
	}
	for (size_t p = 0; p < m->procs.n; p++) {
		ps[p].first = UINT64_MAX;
	}
	for (size_t i = 0; i < m->gpu.n; i++) {
		struct proc_span *s = &ps[gpa_dev_proc(m, gpa_gpu_dev(m, i))];
		uint64_t a = gpa_gpu_start(m, i), e = gpa_gpu_end(m, i);
		s->first = a < s->first ? a : s->first;
		s->last = e > s->last ? e : s->last;
	}
	for (size_t i = 0; i < m->api.n; i++) {
		struct proc_span *s = &ps[m->threads.v[gpa_api_thread(m, i)].proc];
		uint64_t a = gpa_api_start(m, i), e = gpa_api_end(m, i);
		s->first = a < s->first ? a : s->first;
		s->last = e > s->last ? e : s->last;
	}
	for (size_t p = 0; p < m->procs.n; p++) {
		for (size_t q = 0; q < p && ps[p].first != UINT64_MAX; q++) {
			if (!same_run(m, ps, q, p)) {
				continue;
			}
			if (!m->bad.dup_of) {
				m->bad.dup_of = malloc(m->procs.n * sizeof(*m->bad.dup_of));
				if (!m->bad.dup_of) {
					free(ps);
					return -GP_ERR_NOMEM;
				}
				memset(m->bad.dup_of, 0xff, m->procs.n * sizeof(*m->bad.dup_of));
			}
			m->bad.dup_of[p] = m->bad.dup_of[q] == GPA_NONE ? (uint32_t)q : m->bad.dup_of[q];
			break;
		}
	}
	free(ps);
	return 0;
}

/* ------------------------------------------------------------ the timelines */

/* Keeps on m->gpu the plausible ops of processes that repeat none; counts those left out. */
static void trim_timelines(struct gpa_model *m)
{
	struct gpa_implausible *b = &m->bad;
	size_t w = 0;

	for (size_t d = 0; d < m->devs.n; d++) {
		struct gpa_dev *dv = &m->devs.v[d];
		size_t first = w;
		for (size_t i = dv->gpu_first; i < (size_t)dv->gpu_first + dv->gpu_count; i++) {
			uint64_t a = gpa_gpu_start(m, i), e = gpa_gpu_end(m, i);
			bool out = b->lo && (a < b->lo[dv->proc] || a > b->hi[dv->proc]);
			b->outlier_gpu += out;
			b->long_gpu += !out && e - a > GPA_SANITY_MAX_NS;
			if (gpa_sanity_keeps(m, (uint32_t)d, a, e)) {
				m->gpu.op[w++] = m->gpu.op[i];
			}
		}
		dv->gpu_first = (uint32_t)first;
		dv->gpu_count = (uint32_t)(w - first);
	}
	m->gpu.n = w;
}

static void count(struct gpa_model *m);

int gpa_sanity_prepare(struct gpa_model *m)
{
	/* one process cannot repeat another */
	if (find_outliers(m) || (m->procs.n > 1 && find_dup_procs(m))) {
		return -GP_ERR_NOMEM;
	}
	count(m);
	if (m->bad.lo || m->bad.dup_of || m->bad.absurd) { /* else every op stays */
		trim_timelines(m);
	}
	return 0;
}

void gpa_sanity_span(struct gpa_model *m)
{
	bool any = false;

	m->bad.t0 = m->t0;
	m->bad.t1 = m->t1;
	if (m->t1 - m->t0 <= GPA_SANITY_MAX_NS) {
		return; /* nothing starts a day away or lasts a day: every record is plausible */
	}
#define SPAN_(P, a, e)                                                                             \
	do {                                                                                       \
		if (gpa_plausible(m, P, a, e)) {                                                   \
			m->bad.t0 = !any || (a) < m->bad.t0 ? (a) : m->bad.t0;                     \
			m->bad.t1 = !any || (e) > m->bad.t1 ? (e) : m->bad.t1;                     \
			any = true;                                                                \
		}                                                                                  \
	} while (0)
	EACH_TIMED_(m, SPAN_);
#undef SPAN_
}

void gpa_sanity_release(struct gpa_implausible *b)
{
	for (size_t i = 0; i < b->dup_inputs.n; i++) {
		free(b->dup_inputs.v[i].path);
		free(b->dup_inputs.v[i].same_as);
	}
	gp_vec_free(&b->dup_inputs);
	free(b->dup_of);
	free(b->lo);
	free(b->hi);
	memset(b, 0, sizeof(*b));
}

/* ------------------------------------------------------------ the counts */

static void count_absurd(struct gpa_implausible *s, uint64_t d)
{
	if (d > GPA_SANITY_MAX_NS) {
		s->absurd++;
		if (d > s->absurd_max_ns) {
			s->absurd_max_ns = d;
		}
	}
}

/*
 * Whether API name id `name` is a kernel launch's, known[name] caching it
 * (0 not yet, 1 no, 2 yes): the names are few, the calls millions.
 */
static bool launch_name(const struct gpa_model *m, uint8_t *known, uint32_t name)
{
	if (!known || name > m->strs.off.n) {
		return gpa_api_is_kernel_launch(gpa_model_str(m, name));
	}
	if (!known[name]) {
		known[name] = gpa_api_is_kernel_launch(gpa_model_str(m, name)) ? 2 : 1;
	}
	return known[name] == 2;
}

/* Processes with kernel launch calls but no kernel record (kernels[p], launches[p]). */
static void launches_without_kernels(struct gpa_model *m, struct gpa_implausible *out)
{
	uint64_t *kernels = calloc(m->procs.n ? m->procs.n : 1, 2 * sizeof(uint64_t));
	uint64_t *launches = kernels ? kernels + m->procs.n : NULL;
	uint8_t *known = calloc(m->strs.off.n + 1, 1); /* NULL: no cache, the same answers */

	bool some = false; /* a process without kernels: else no call needs looking at */
	for (size_t i = 0; kernels && i < m->kern.n; i++) {
		kernels[gpa_dev_proc(m, gpa_kern_dev(m, i))]++;
	}
	for (size_t p = 0; kernels && p < m->procs.n; p++) {
		some |= !kernels[p];
	}
	if (!some) {
		free(known);
		free(kernels);
		return;
	}
	for (size_t i = 0; kernels && i < m->api.n; i++) {
		if (!(gpa_api_flags(m, i) & GPA_API_CAPTURED) &&
		    launch_name(m, known, gpa_api_name(m, i))) {
			launches[m->threads.v[gpa_api_thread(m, i)].proc]++;
		}
	}
	for (size_t p = 0; kernels && p < m->procs.n; p++) {
		bool dup = m->bad.dup_of && m->bad.dup_of[p] != GPA_NONE;
		if (launches[p] && !kernels[p] && !dup) {
			out->procs_nokern++;
			out->launches_nokern += launches[p];
		}
	}
	free(known);
	free(kernels);
}

/* The absurd durations and the launches without kernels, into m->bad. */
static void count(struct gpa_model *m)
{
	for (size_t i = 0; i < m->kern.n; i++) {
		count_absurd(&m->bad, gpa_kern_dur(m, i));
	}
	for (size_t i = 0; i < m->copy.n; i++) {
		count_absurd(&m->bad, m->copy.end[i] - m->copy.start[i]);
	}
	for (size_t i = 0; i < m->set.n; i++) {
		count_absurd(&m->bad, m->set.end[i] - m->set.start[i]);
	}
	for (size_t i = 0; i < m->api.n; i++) {
		count_absurd(&m->bad, gpa_api_dur(m, i));
	}
	launches_without_kernels(m, &m->bad);
}

void gpa_sanity_check(const struct gpa_model *m, struct gpa_sanity *out)
{
	const struct gpa_implausible *b = &m->bad;

	memset(out, 0, sizeof(*out));
	out->first_duplicate = out->first_duplicate_of = GPA_NONE;
	for (size_t p = 0; p < m->procs.n; p++) {
		out->negative += m->procs.v[p].negative_durations;
	}
	out->absurd = b->absurd;
	out->absurd_max_ns = b->absurd_max_ns;
	out->launches_without_kernels = b->launches_nokern;
	out->procs_without_kernels = b->procs_nokern;
	out->outliers = b->outliers;
	out->outlier_gpu = b->outlier_gpu;
	out->outlier_far_ns = b->outlier_far_ns;
	out->absurd_gpu = b->long_gpu;
	out->duplicate_files = (uint32_t)b->dup_inputs.n;
	for (size_t p = 0; b->dup_of && p < m->procs.n; p++) {
		if (b->dup_of[p] != GPA_NONE && !out->duplicate_procs++) {
			out->first_duplicate = (uint32_t)p;
			out->first_duplicate_of = b->dup_of[p];
		}
	}
	out->duplicates = out->duplicate_files + out->duplicate_procs;
}

/* ------------------------------------------------------------ the warnings */

bool gpa_sanity_any(const struct gpa_sanity *s)
{
	return s->negative || s->absurd || s->outliers || s->launches_without_kernels ||
	       s->duplicates;
}

/* "up to 1461 days", "up to 30.5 h": how far the outliers lie. */
static void far_text(char *buf, size_t len, uint64_t ns)
{
	double h = (double)ns / 3.6e12;

	if (h >= 48) {
		snprintf(buf, len, "%.0f days", h / 24);
	} else {
		snprintf(buf, len, "%.1f h", h);
	}
}

struct say {
	int (*fn)(void *data, const char *sentence);
	void *data;
	int ret;
};

static void say(struct say *w, const char *fmt, ...) GP_PRINTF(2, 3);
static void say(struct say *w, const char *fmt, ...)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;
	va_list ap;

	if (w->ret) {
		return;
	}
	va_start(ap, fmt);
	gp_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	w->ret = sb.failed ? -GP_ERR_NOMEM : w->fn(w->data, sb.buf);
	gp_strbuf_release(&sb);
}

static void say_times(struct say *w, const struct gpa_sanity *s)
{
	char far[64];

	if (s->negative) {
		say(w, "%" PRIu64 " GPU operations or API calls end before they start; they count "
		       "as 0 ns", s->negative);
	}
	if (s->absurd) {
		say(w, "%" PRIu64 " GPU operations or API calls last longer than a day (the "
		       "longest %.0f s): implausible times; %" PRIu64 " GPU operation%s among "
		       "them %s left out of the device timelines (GPU time, busy, idle gaps and "
		       "windows)", s->absurd, (double)s->absurd_max_ns / 1e9, s->absurd_gpu,
		    s->absurd_gpu == 1 ? "" : "s", s->absurd_gpu == 1 ? "is" : "are");
	}
	if (s->outliers) {
		far_text(far, sizeof(far), s->outlier_far_ns);
		say(w, "%" PRIu64 " record%s start%s far from the rest of the trace (up to %s "
		       "away, with no record for more than a day between): implausible "
		       "timestamps; %" PRIu64 " GPU operation%s among them %s left out of the "
		       "device timelines (GPU time, busy, idle gaps and windows), and the trace "
		       "span is taken without them", s->outliers, s->outliers == 1 ? "" : "s",
		    s->outliers == 1 ? "s" : "", far, s->outlier_gpu, s->outlier_gpu == 1 ? "" : "s",
		    s->outlier_gpu == 1 ? "is" : "are");
	}
}

int gpa_sanity_warnings(const struct gpa_model *m, const struct gpa_sanity *s,
			int (*fn)(void *data, const char *sentence), void *data)
{
	const struct gpa_implausible *b = &m->bad;
	struct say w = {fn, data, 0};

	say_times(&w, s);
	if (s->launches_without_kernels) {
		say(&w, "%" PRIu64 " kernel launch calls but no kernel record in %u process%s: the "
			"trace's kernel table is missing; GPU time is understated",
		    s->launches_without_kernels, s->procs_without_kernels,
		    s->procs_without_kernels == 1 ? "" : "es");
	}
	if (s->duplicate_files) {
		const struct gpa_dup_input *d = &b->dup_inputs.v[0];
		bool one = s->duplicate_files == 1;
		char what[64];
		snprintf(what, sizeof(what), "%u input%s repeat%s %s and %s not read again",
			 s->duplicate_files, one ? "" : "s", one ? "s" : "",
			 one ? "an earlier one" : "earlier ones", one ? "is" : "are");
		if (!strcmp(d->path, d->same_as)) {
			say(&w, "%s is given twice: %s", d->path, what);
		} else {
			say(&w, "%s is the same trace as %s (the same %s): %s", d->path, d->same_as,
			    d->same_file ? "file" : "bytes", what);
		}
	}
	if (s->duplicate_procs) {
		say(&w, "%s is the same trace as %s (same process, times and record count)%s: %u "
			"process%s given twice: %s GPU operations are left out of the device "
			"timelines, %s CPU calls and ranges are counted twice",
		    m->procs.v[s->first_duplicate].path, m->procs.v[s->first_duplicate_of].path,
		    s->duplicate_procs > 1 ? ", and others" : "", s->duplicate_procs,
		    s->duplicate_procs == 1 ? "" : "es", s->duplicate_procs == 1 ? "its" : "their",
		    s->duplicate_procs == 1 ? "its" : "their");
	}
	return w.ret;
}
