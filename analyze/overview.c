/* SPDX-License-Identifier: MIT */
/*
 * overview.c - what was traced, memory traffic, and warnings.
 */
#include "base/compat.h"
#include "analyze/overview.h"
#include "analyze/model.h"
#include "analyze/steps.h"

#include <stdio.h>

const char *gpa_copy_kind_name(unsigned kind)
{
	static const char *const names[] = {
		[0] = "memset",
		[1] = "Host-to-Device",
		[2] = "Device-to-Host",
		[3] = "Host-to-Array",
		[4] = "Array-to-Host",
		[5] = "Array-to-Array",
		[6] = "Array-to-Device",
		[7] = "Device-to-Array",
		[8] = "Device-to-Device",
		[9] = "Host-to-Host",
		[10] = "Peer-to-Peer",
	};

	return kind < GP_ARRAY_SIZE(names) ? names[kind] : "unknown";
}

static int warnf(struct gpa_overview *o, const char *fmt, ...) GP_PRINTF(2, 3);
static int warnf(struct gpa_overview *o, const char *fmt, ...)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	gp_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	char *s = sb.failed ? NULL : gp_strbuf_detach(&sb, NULL); /* never a warning cut short */
	gp_strbuf_release(&sb);
	if (!s || gp_vec_push(&o->warnings, s)) {
		free(s);
		return -GP_ERR_NOMEM;
	}
	return 0;
}

static int cmp_traffic(const void *a, const void *b)
{
	const struct gpa_traffic *x = a, *y = b;

	if (x->time_ns != y->time_ns) {
		return x->time_ns > y->time_ns ? -1 : 1;
	}
	return x->copy_kind < y->copy_kind ? -1 : x->copy_kind > y->copy_kind;
}

static int push_warning(void *data, const char *sentence)
{
	return warnf(data, "%s", sentence);
}

int gpa_overview_warn(struct gpa_overview *o, const char *sentence)
{
	return warnf(o, "%s", sentence);
}

/* The warnings of gpa_sanity_check, with their counts. */
static int sanity_warnings(struct gpa_overview *o, const struct gpa_model *m)
{
	gpa_sanity_check(m, &o->sanity);
	return gpa_sanity_warnings(m, &o->sanity, push_warning, o);
}


/*
 * Whether the model's processes come from more than one file: the
 * processes of one file (an nsys export of several) share its clock.
 */
static bool several_files(const struct gpa_model *m)
{
	for (size_t i = 1; i < m->procs.n; i++) {
		const char *a = m->procs.v[i].path, *b = m->procs.v[0].path;
		if (!a || !b || strcmp(a, b)) {
			return true;
		}
	}
	return false;
}

int gpa_overview_build(const struct gpa_model *m, const struct gpa_steps *steps,
		       struct gpa_overview *o)
{
	struct gpa_traffic by_kind[256] = {{0}};
	int ret = 0;

	memset(o, 0, sizeof(*o));
	/* the span of the plausible records: one 4 years off would stretch it */
	o->first_ns = m->bad.t0;
	o->last_ns = m->bad.t1;
	o->events = m->events;
	o->kernels = gpa_kern_rows(m);
	o->copies = gpa_copy_rows(m);
	o->sets = gpa_set_rows(m);
	o->api_calls = gpa_api_rows(m);
	o->nvtx_ranges = gpa_nvtx_rows(m);
	for (size_t i = 0; i < gpa_kern_rows(m); i++) {
		if (gpa_sanity_keeps(m, gpa_kern_dev(m, i), gpa_kern_start(m, i), gpa_kern_end(m, i))) {
			o->kernel_time_ns += gpa_kern_dur(m, i);
		}
	}
	for (size_t i = 0; i < gpa_copy_rows(m); i++) {
		struct gpa_traffic *t = &by_kind[gpa_copy_copy_kind(m, i)];
		t->count++;
		t->bytes += gpa_copy_bytes(m, i);
		t->time_ns += gpa_copy_end(m, i) - gpa_copy_start(m, i);
	}
	for (size_t i = 0; i < gpa_set_rows(m); i++) {
		/* memsets go in slot 0, which no copy kind uses */
		by_kind[0].count++;
		by_kind[0].bytes += gpa_set_bytes(m, i);
		by_kind[0].time_ns += gpa_set_end(m, i) - gpa_set_start(m, i);
	}
	for (unsigned k = 0; k < 256; k++) {
		if (by_kind[k].count) {
			by_kind[k].copy_kind = (uint8_t)k;
			if (gp_vec_push(&o->traffic, by_kind[k])) {
				return -GP_ERR_NOMEM;
			}
		}
	}
	gp_qsort(o->traffic.v, o->traffic.n, sizeof(*o->traffic.v), cmp_traffic);

	for (size_t p = 0; p < m->procs.n && !ret; p++) {
		const struct gpa_proc *pr = &m->procs.v[p];
		uint64_t lost = 0;
		for (unsigned c = 0; c < GPT_LOSS__MAX; c++) {
			lost += pr->losses[c];
		}
		if (lost) {
			ret = warnf(o, "%s: %" PRIu64 " records were lost while recording (%s%s)",
				    pr->path, lost,
				    pr->losses[GPT_LOSS_CUPTI_DROPPED] ? "CUPTI dropped records" :
									  "buffers full",
				    "; totals and gaps near the loss are understated");
		}
		if (!ret && pr->corrupt_chunks) {
			ret = warnf(o, "%s: %" PRIu64 " corrupt chunks were skipped; results are partial",
				    pr->path, pr->corrupt_chunks);
		}
		if (!ret && pr->truncated) {
			ret = warnf(o, "%s: the file is cut short (the process did not finish "
				       "writing it); read up to its last whole chunk",
				    pr->path);
		}
	}
	if (!ret) {
		ret = sanity_warnings(o, m);
	}
	if (!ret && !m->aligned && several_files(m)) {
		ret = warnf(o, "some traces have no clock anchor: processes are compared on "
			       "their raw clocks and may be misaligned");
	}
	if (!ret && !gpa_gpu_rows(m)) {
		ret = warnf(o, "no GPU activity in the traces");
	}
	if (!ret && steps) {
		if (steps->source == GPA_STEPS_WHOLE) {
			ret = warnf(o, "no steps found (no ProfilerStep#N or range matching the step "
				       "pattern, no annotation that repeats and holds most GPU work, "
				       "no training-loop annotations that delimit iterations, "
				       "no cudaProfilerStart/Stop): the whole trace is one step; "
				       "try --step REGEX");
		}
		if (!ret && steps->unassigned_ops) {
			ret = warnf(o, "%" PRIu64 " GPU operations were launched outside every step",
				    steps->unassigned_ops);
		}
		if (!ret && steps->unlinked_ops) {
			ret = warnf(o, "%" PRIu64 " GPU operations have no launching API call in the "
				       "trace; they are placed by their own start time",
				    steps->unlinked_ops);
		}
	}
	if (ret) {
		gpa_overview_release(o);
	}
	return ret;
}

void gpa_overview_release(struct gpa_overview *o)
{
	for (size_t i = 0; i < o->warnings.n; i++) {
		free(o->warnings.v[i]);
	}
	gp_vec_free(&o->warnings);
	gp_vec_free(&o->traffic);
	memset(o, 0, sizeof(*o));
}
