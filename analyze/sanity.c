/* SPDX-License-Identifier: MIT */
/*
 * sanity.c - what no real run can hold, counted once per model: records whose
 * end came before their start (model.c counts them while loading, as it keeps
 * them at 0 ns), operations longer than a day, kernel launches of a process
 * without a single kernel record (a kernel table missing from an export),
 * and a trace given twice: two inputs with the same process id, host,
 * command line, record count and first and last times.
 */
#include "base/compat.h"
#include "analyze/sanity.h"

#include <string.h>

bool gpa_api_is_kernel_launch(const char *name)
{
	const char *l = strstr(name, "Launch");

	/* cudaLaunchKernel, cuLaunchKernel(Ex), cudaLaunchCooperativeKernel, hipLaunchKernel */
	return l && strstr(l, "Kernel") && (!strncmp(name, "cu", 2) || !strncmp(name, "hip", 3));
}

static void count_absurd(struct gpa_sanity *s, uint64_t start, uint64_t end)
{
	uint64_t d = end - start;

	if (d > GPA_SANITY_MAX_NS) {
		s->absurd++;
		if (d > s->absurd_max_ns) {
			s->absurd_max_ns = d;
		}
	}
}

struct proc_span {
	uint64_t first, last, kernels, launches;
};

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

/* Each process's span and counts (ps: NULL, only the absurd durations), in one pass a table. */
static void spans(const struct gpa_model *m, struct proc_span *ps, struct gpa_sanity *out)
{
	uint8_t *known = calloc(m->strs.off.n + 1, 1); /* NULL: no cache, the same answers */

	for (size_t p = 0; ps && p < m->procs.n; p++) {
		ps[p].first = UINT64_MAX;
	}
	for (size_t i = 0; i < m->gpu.n; i++) {
		uint64_t a = gpa_gpu_start(m, i), e = gpa_gpu_end(m, i);
		count_absurd(out, a, e);
		if (!ps) {
			continue;
		}
		struct proc_span *s = &ps[gpa_dev_proc(m, gpa_gpu_dev(m, i))];
		s->first = a < s->first ? a : s->first;
		s->last = e > s->last ? e : s->last;
		s->kernels += gpa_gpu_kind(m, i) == GPA_GPU_KERNEL;
	}
	for (size_t i = 0; i < m->api.n; i++) {
		uint64_t a = gpa_api_start(m, i), e = gpa_api_end(m, i);
		count_absurd(out, a, e);
		if (!ps) {
			continue;
		}
		struct proc_span *s = &ps[m->threads.v[gpa_api_thread(m, i)].proc];
		s->first = a < s->first ? a : s->first;
		s->last = e > s->last ? e : s->last;
		if (!(gpa_api_flags(m, i) & GPA_API_CAPTURED) &&
		    launch_name(m, known, gpa_api_name(m, i))) {
			s->launches++;
		}
	}
	free(known);
}

static bool same_run(const struct gpa_model *m, const struct proc_span *ps, size_t a, size_t b)
{
	const struct gpa_proc *x = &m->procs.v[a], *y = &m->procs.v[b];

	return x->pid == y->pid && x->host == y->host && x->cmdline == y->cmdline &&
	       x->events == y->events && ps[a].first == ps[b].first && ps[a].last == ps[b].last;
}

void gpa_sanity_check(const struct gpa_model *m, struct gpa_sanity *out)
{
	struct proc_span *ps;

	memset(out, 0, sizeof(*out));
	out->first_duplicate = out->first_duplicate_of = GPA_NONE;
	for (size_t p = 0; p < m->procs.n; p++) {
		out->negative += m->procs.v[p].negative_durations;
	}
	ps = calloc(m->procs.n ? m->procs.n : 1, sizeof(*ps));
	spans(m, ps, out); /* without ps (out of memory) only the absurd durations are counted */
	if (!ps) {
		return;
	}
	for (size_t p = 0; p < m->procs.n; p++) {
		if (ps[p].launches && !ps[p].kernels) {
			out->procs_without_kernels++;
			out->launches_without_kernels += ps[p].launches;
		}
		for (size_t q = 0; q < p; q++) {
			if (ps[p].first != UINT64_MAX && same_run(m, ps, q, p)) {
				if (!out->duplicates++) {
					out->first_duplicate = (uint32_t)p;
					out->first_duplicate_of = (uint32_t)q;
				}
				break;
			}
		}
	}
	free(ps);
}
