/* SPDX-License-Identifier: MIT */
/*
 * export-perfetto.c - writes a model as a Chrome trace event JSON file
 * (docs/perfetto.md), which ui.perfetto.dev and chrome://tracing load.
 * CPU side: one process per traced process, API calls and NVTX ranges on
 * their threads. GPU side: one pseudo-process per device, one track per
 * stream. Flow arrows join launching API calls to their GPU work. Times are
 * microseconds written from integer nanoseconds with exactly three decimals,
 * relative to the model's t0, so nothing is rounded. The output is streamed:
 * the buffer goes to the file every few megabytes.
 */
#include "base/compat.h"
#include "base/outfile.h"
#include "analyze/model.h"
#include "analyze/file-info.h"
#include "analyze/overview.h"
#include "analyze/critpath.h"
#include "report/report.h"
#include "report/export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FLUSH_BYTES (4u << 20)
/* GPU pseudo-process ids start above any Linux pid (pid_max is at most 2^22). */
#define GPU_PID_BASE 0x1000000u

struct pw {
	const struct gpa_model *m;
	struct gp_out out;
	struct gp_strbuf sb;
	uint64_t t0;
	uint32_t *cpu_pid; /* by model process */
	bool first;        /* no event written yet */
	bool io_failed;    /* a write failed: the reason is in io_err */
	char io_err[PATH_MAX + 128];
	bool nomem;        /* an append failed */
	uint64_t flow_id;  /* last flow id used */
	const struct gp_progress_cb *progress;
	uint64_t events, total; /* API calls, NVTX ranges and GPU ops written, and in all */
};

/* Counts an API call, NVTX range or GPU op written; reports every 65536. */
static void tick(struct pw *w)
{
	if ((++w->events & 0xffff) == 0) {
		struct gp_progress pg = {.what = "exporting", .unit = "events", .done = w->events,
					 .total = w->total};

		gp_progress_call(w->progress, &pg);
	}
}

static void flush(struct pw *w)
{
	if (w->sb.failed) {
		w->nomem = true;
	}
	if (w->sb.len && !w->io_failed &&
	    gp_out_write(&w->out, w->sb.buf, w->sb.len, w->io_err, sizeof(w->io_err))) {
		w->io_failed = true;
	}
	gp_strbuf_reset(&w->sb);
}

static void add_u64(struct gp_strbuf *sb, uint64_t v)
{
	char b[24];
	size_t i = sizeof(b);

	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	gp_strbuf_add(sb, b + i, sizeof(b) - i);
}

/* ns as microseconds with exactly three decimals: 1234567 -> 1234.567. */
static void add_us(struct gp_strbuf *sb, uint64_t ns)
{
	char frac[4] = {'.', (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10),
			(char)('0' + ns % 10)};

	add_u64(sb, ns / 1000);
	gp_strbuf_add(sb, frac, sizeof(frac));
}

static void add_str(struct gp_strbuf *sb, const char *s)
{
	gp_strbuf_add_json_str(sb, s, strlen(s));
}

/* ,"key":value */
static void add_key_u64(struct gp_strbuf *sb, const char *key, uint64_t v)
{
	gp_strbuf_addch(sb, ',');
	add_str(sb, key);
	gp_strbuf_addch(sb, ':');
	add_u64(sb, v);
}

/* Starts an event: {"ph":"X","pid":P */
static void ev_begin(struct pw *w, const char *ph, uint32_t pid)
{
	if (w->sb.len >= FLUSH_BYTES) {
		flush(w);
	}
	gp_strbuf_adds(&w->sb, w->first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
	w->first = false;
	gp_strbuf_adds(&w->sb, ph);
	gp_strbuf_adds(&w->sb, "\",\"pid\":");
	add_u64(&w->sb, pid);
}

/* ,"ts":T relative to t0 (a time before t0 is written negative) */
static void ev_ts(struct pw *w, uint64_t t)
{
	gp_strbuf_adds(&w->sb, ",\"ts\":");
	if (t < w->t0) {
		gp_strbuf_addch(&w->sb, '-');
		add_us(&w->sb, w->t0 - t);
	} else {
		add_us(&w->sb, t - w->t0);
	}
}

/* ,"ts":T,"dur":D with D 0 when end is before start */
static void ev_span(struct pw *w, uint64_t start, uint64_t end)
{
	ev_ts(w, start);
	gp_strbuf_adds(&w->sb, ",\"dur\":");
	add_us(&w->sb, end > start ? end - start : 0);
}

static void ev_tid(struct pw *w, uint32_t tid)
{
	add_key_u64(&w->sb, "tid", tid);
}

static void ev_name(struct pw *w, const char *cat, const char *name)
{
	if (cat) {
		gp_strbuf_adds(&w->sb, ",\"cat\":");
		add_str(&w->sb, cat);
	}
	gp_strbuf_adds(&w->sb, ",\"name\":");
	add_str(&w->sb, name);
}

/* A metadata event naming a process (tid absent) or a thread. */
static void meta_name(struct pw *w, const char *what, uint32_t pid, const uint32_t *tid,
		      const char *name)
{
	ev_begin(w, "M", pid);
	if (tid) {
		ev_tid(w, *tid);
	}
	ev_name(w, NULL, what);
	gp_strbuf_adds(&w->sb, ",\"args\":{\"name\":");
	add_str(&w->sb, name);
	gp_strbuf_adds(&w->sb, "}}");
}

static void meta_sort(struct pw *w, const char *what, uint32_t pid, const uint32_t *tid,
		      uint64_t index)
{
	ev_begin(w, "M", pid);
	if (tid) {
		ev_tid(w, *tid);
	}
	ev_name(w, NULL, what);
	gp_strbuf_adds(&w->sb, ",\"args\":{\"sort_index\":");
	add_u64(&w->sb, index);
	gp_strbuf_adds(&w->sb, "}}");
}

static uint32_t thread_pid(const struct pw *w, uint32_t thread)
{
	return w->cpu_pid[w->m->threads.v[thread].proc];
}

static uint32_t gpu_pid(uint16_t dev)
{
	return GPU_PID_BASE + dev;
}

static void write_processes(struct pw *w, struct gp_strbuf *tmp)
{
	const struct gpa_model *m = w->m;

	for (size_t p = 0; p < m->procs.n; p++) {
		const struct gpa_proc *pr = &m->procs.v[p];
		const char *host = gpa_model_str(m, pr->host);

		gp_strbuf_reset(tmp);
		if (pr->world_size > 1 && pr->rank >= 0) {
			gp_strbuf_addf(tmp, "rank %" PRId32 " ", pr->rank);
		}
		gp_strbuf_addf(tmp, "pid %" PRIu32, pr->pid);
		if (*host) {
			gp_strbuf_addf(tmp, " on %s", host);
		}
		meta_name(w, "process_name", w->cpu_pid[p], NULL, tmp->buf);
		if (pr->cmdline) {
			meta_name(w, "process_labels", w->cpu_pid[p], NULL,
				  gpa_model_str(m, pr->cmdline));
		}
		meta_sort(w, "process_sort_index", w->cpu_pid[p], NULL, p);
	}
	for (size_t t = 0; t < m->threads.n; t++) {
		const struct gpa_thread *th = &m->threads.v[t];

		gp_strbuf_reset(tmp);
		if (th->name) {
			gp_strbuf_adds(tmp, gpa_model_str(m, th->name));
		} else {
			gp_strbuf_addf(tmp, "thread %" PRIu32, th->tid);
		}
		meta_name(w, "thread_name", thread_pid(w, (uint32_t)t), &th->tid, tmp->buf);
	}
}

static void write_losses(struct pw *w)
{
	const struct gpa_model *m = w->m;

	for (size_t p = 0; p < m->procs.n; p++) {
		/* The model keeps totals: one flat line over the trace per cause. */
		for (int k = 0; k < 2; k++) {
			ev_begin(w, "C", w->cpu_pid[p]);
			ev_ts(w, k ? m->t1 : m->t0);
			ev_name(w, "loss", "records lost");
			gp_strbuf_adds(&w->sb, ",\"args\":{");
			for (unsigned c = 1; c < GPT_LOSS__MAX; c++) {
				if (c > 1) {
					gp_strbuf_addch(&w->sb, ',');
				}
				add_str(&w->sb, gpa_loss_cause_name(c));
				gp_strbuf_addch(&w->sb, ':');
				add_u64(&w->sb, m->procs.v[p].losses[c]);
			}
			gp_strbuf_adds(&w->sb, "}}");
		}
	}
}

static void write_apis(struct pw *w)
{
	for (size_t i = 0; i < gpa_api_rows(w->m); i++) {
		if (gpa_api_thread(w->m, i) == GPA_NONE) {
			continue;
		}
		tick(w);
		ev_begin(w, "X", thread_pid(w, gpa_api_thread(w->m, i)));
		ev_tid(w, w->m->threads.v[gpa_api_thread(w->m, i)].tid);
		ev_span(w, gpa_api_start(w->m, i), gpa_api_end(w->m, i));
		ev_name(w,
			gpa_api_domain(w->m, i) == GPT_API_DRIVER ? "cuda_driver" : "cuda_runtime",
			gpa_model_str(w->m, gpa_api_name(w->m, i)));
		gp_strbuf_adds(&w->sb, ",\"args\":{\"correlation\":");
		add_u64(&w->sb, gpa_api_corr(w->m, i));
		add_key_u64(&w->sb, "cbid", gpa_api_cbid(w->m, i));
		add_key_u64(&w->sb, "return", gpa_api_ret(w->m, i));
		gp_strbuf_adds(&w->sb, "}}");
	}
}

static void write_nvtx(struct pw *w)
{
	for (size_t i = 0; i < gpa_nvtx_rows(w->m); i++) {
		uint32_t pid, tid;
		const char *name, *domain;

		if (gpa_nvtx_thread(w->m, i) == GPA_NONE) {
			continue;
		}
		tick(w);
		pid = thread_pid(w, gpa_nvtx_thread(w->m, i));
		tid = w->m->threads.v[gpa_nvtx_thread(w->m, i)].tid;
		name = gpa_model_str(w->m, gpa_nvtx_name(w->m, i));
		domain = gpa_model_str(w->m, gpa_nvtx_domain(w->m, i));
		switch (gpa_nvtx_type(w->m, i)) {
		case GPT_NVTX_PUSH_POP:
			ev_begin(w, "X", pid);
			ev_tid(w, tid);
			ev_span(w, gpa_nvtx_start(w->m, i), gpa_nvtx_end(w->m, i));
			break;
		case GPT_NVTX_START_END:
			/* An async pair: begin, then end, with the row as id. */
			ev_begin(w, "b", pid);
			ev_tid(w, tid);
			ev_ts(w, gpa_nvtx_start(w->m, i));
			add_key_u64(&w->sb, "id", i + 1);
			ev_name(w, "nvtx", name);
			gp_strbuf_adds(&w->sb, "}");
			ev_begin(w, "e", pid);
			ev_tid(w, tid);
			ev_ts(w, gpa_nvtx_end(w->m, i) > gpa_nvtx_start(w->m, i)
					 ? gpa_nvtx_end(w->m, i)
					 : gpa_nvtx_start(w->m, i));
			add_key_u64(&w->sb, "id", i + 1);
			break;
		case GPT_NVTX_MARK:
			ev_begin(w, "i", pid);
			ev_tid(w, tid);
			ev_ts(w, gpa_nvtx_start(w->m, i));
			gp_strbuf_adds(&w->sb, ",\"s\":\"t\"");
			break;
		default:
			continue;
		}
		ev_name(w, "nvtx", name);
		if (*domain) {
			gp_strbuf_adds(&w->sb, ",\"args\":{\"domain\":");
			add_str(&w->sb, domain);
			gp_strbuf_addch(&w->sb, '}');
		}
		gp_strbuf_addch(&w->sb, '}');
	}
}

/* A flow arrow from API row api to the GPU op just written on (pid, tid). */
static void write_flow(struct pw *w, uint32_t api, uint32_t pid, uint32_t tid, uint64_t start,
		       uint64_t end)
{
	uint32_t th;

	if (api == GPA_NONE || api >= gpa_api_rows(w->m) || gpa_api_thread(w->m, api) == GPA_NONE) {
		return;
	}
	th = gpa_api_thread(w->m, api);
	w->flow_id++;
	/* Midpoints: inside the slices however a viewer orders equal times. */
	ev_begin(w, "s", thread_pid(w, th));
	ev_tid(w, w->m->threads.v[th].tid);
	ev_ts(w, gpa_api_start(w->m, api) + gpa_api_dur(w->m, api) / 2);
	add_key_u64(&w->sb, "id", w->flow_id);
	ev_name(w, "launch", "launch");
	gp_strbuf_adds(&w->sb, "}");
	ev_begin(w, "f", pid);
	ev_tid(w, tid);
	ev_ts(w, start + (end > start ? (end - start) / 2 : 0));
	add_key_u64(&w->sb, "id", w->flow_id);
	ev_name(w, "launch", "launch");
	gp_strbuf_adds(&w->sb, ",\"bp\":\"e\"}");
}

static void write_kernel(struct pw *w, size_t r, uint32_t pid)
{
	const struct gpa_model *m = w->m;
	const char *name = "";
	uint32_t fn = gpa_kern_func(m, r), sh = gpa_kern_shape(m, r);

	if (fn < m->funcs.n) {
		name = gpa_model_str(m, m->funcs.v[fn].demangled ? m->funcs.v[fn].demangled
								 : m->funcs.v[fn].name);
	}
	ev_begin(w, "X", pid);
	ev_tid(w, gpa_kern_stream(m, r));
	ev_span(w, gpa_kern_start(m, r), gpa_kern_end(m, r));
	ev_name(w, "kernel", name);
	gp_strbuf_adds(&w->sb, ",\"args\":{\"correlation\":");
	add_u64(&w->sb, gpa_kern_corr(m, r));
	add_key_u64(&w->sb, "stream", gpa_kern_stream(m, r));
	add_key_u64(&w->sb, "device", m->devs.v[gpa_kern_dev(m, r)].id);
	if (sh < m->shapes.n) {
		const struct gpa_shape *s = &m->shapes.v[sh];

		gp_strbuf_addf(&w->sb,
			       ",\"grid\":\"%" PRId32 "x%" PRId32 "x%" PRId32 "\""
			       ",\"block\":\"%" PRId32 "x%" PRId32 "x%" PRId32 "\"",
			       s->grid_x, s->grid_y, s->grid_z, s->block_x, s->block_y, s->block_z);
		add_key_u64(&w->sb, "registers", s->regs);
		gp_strbuf_addf(&w->sb, ",\"static_smem\":%" PRId32 ",\"dynamic_smem\":%" PRId32,
			       s->static_smem, s->dynamic_smem);
	}
	gp_strbuf_adds(&w->sb, "}}");
	write_flow(w, gpa_kern_api(m, r), pid, gpa_kern_stream(m, r), gpa_kern_start(m, r),
		   gpa_kern_end(m, r));
}

static void write_memcpy(struct pw *w, size_t r, uint32_t pid, struct gp_strbuf *tmp)
{
	gp_strbuf_reset(tmp);
	gp_strbuf_addf(tmp, "Memcpy %s", gpa_copy_kind_name(gpa_copy_copy_kind(w->m, r)));
	ev_begin(w, "X", pid);
	ev_tid(w, gpa_copy_stream(w->m, r));
	ev_span(w, gpa_copy_start(w->m, r), gpa_copy_end(w->m, r));
	ev_name(w, "memcpy", tmp->buf);
	gp_strbuf_adds(&w->sb, ",\"args\":{\"bytes\":");
	add_u64(&w->sb, gpa_copy_bytes(w->m, r));
	add_key_u64(&w->sb, "copy_kind", gpa_copy_copy_kind(w->m, r));
	add_key_u64(&w->sb, "correlation", gpa_copy_corr(w->m, r));
	add_key_u64(&w->sb, "stream", gpa_copy_stream(w->m, r));
	gp_strbuf_adds(&w->sb, "}}");
	write_flow(w, gpa_copy_api(w->m, r), pid, gpa_copy_stream(w->m, r), gpa_copy_start(w->m, r),
		   gpa_copy_end(w->m, r));
}

static void write_memset(struct pw *w, size_t r, uint32_t pid)
{
	ev_begin(w, "X", pid);
	ev_tid(w, gpa_set_stream(w->m, r));
	ev_span(w, gpa_set_start(w->m, r), gpa_set_end(w->m, r));
	ev_name(w, "memset", "Memset");
	gp_strbuf_adds(&w->sb, ",\"args\":{\"bytes\":");
	add_u64(&w->sb, gpa_set_bytes(w->m, r));
	add_key_u64(&w->sb, "memory_kind", gpa_set_memory_kind(w->m, r));
	add_key_u64(&w->sb, "correlation", gpa_set_corr(w->m, r));
	add_key_u64(&w->sb, "stream", gpa_set_stream(w->m, r));
	gp_strbuf_adds(&w->sb, "}}");
	write_flow(w, gpa_set_api(w->m, r), pid, gpa_set_stream(w->m, r), gpa_set_start(w->m, r),
		   gpa_set_end(w->m, r));
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int write_devices(struct pw *w, struct gp_strbuf *tmp)
{
	const struct gpa_model *m = w->m;
	GP_VEC(uint32_t) streams = {0};
	int ret = 0;

	for (size_t d = 0; d < m->devs.n; d++) {
		const struct gpa_dev *dev = &m->devs.v[d];
		const struct gpa_proc *pr = &m->procs.v[dev->proc];
		uint32_t pid = gpu_pid((uint16_t)d);
		size_t nuniq = 0;

		gp_strbuf_reset(tmp);
		gp_strbuf_addf(tmp, "GPU %" PRIu32 ": %s", dev->id, gpa_model_str(m, dev->name));
		if (m->procs.n > 1) {
			if (pr->world_size > 1 && pr->rank >= 0) {
				gp_strbuf_addf(tmp, " (rank %" PRId32 ")", pr->rank);
			} else {
				gp_strbuf_addf(tmp, " (pid %" PRIu32 ")", pr->pid);
			}
		}
		meta_name(w, "process_name", pid, NULL, tmp->buf);
		meta_sort(w, "process_sort_index", pid, NULL, m->procs.n + d);

		/* One track per stream, named and ordered by stream id. */
		streams.n = 0;
		for (size_t i = dev->gpu_first; i < dev->gpu_first + dev->gpu_count; i++) {
			if (gp_vec_push(&streams, gpa_gpu_stream(m, i))) {
				ret = -GP_ERR_NOMEM;
				goto out;
			}
		}
		if (streams.n) {
			qsort(streams.v, streams.n, sizeof(*streams.v), cmp_u32);
		}
		for (size_t i = 0; i < streams.n; i++) {
			if (i && streams.v[i] == streams.v[i - 1]) {
				continue;
			}
			streams.v[nuniq++] = streams.v[i];
			gp_strbuf_reset(tmp);
			gp_strbuf_addf(tmp, "Stream %" PRIu32, streams.v[i]);
			meta_name(w, "thread_name", pid, &streams.v[i], tmp->buf);
			meta_sort(w, "thread_sort_index", pid, &streams.v[i], streams.v[i]);
		}

		for (size_t i = dev->gpu_first; i < dev->gpu_first + dev->gpu_count; i++) {
			uint32_t row = gpa_gpu_row(m, i);

			tick(w);
			switch (gpa_gpu_kind(m, i)) {
			case GPA_GPU_KERNEL:
				write_kernel(w, row, pid);
				break;
			case GPA_GPU_MEMCPY:
				write_memcpy(w, row, pid, tmp);
				break;
			case GPA_GPU_MEMSET:
				write_memset(w, row, pid);
				break;
			default:
				break;
			}
		}
	}
out:
	gp_vec_free(&streams);
	return ret;
}

uint32_t *gpr_perfetto_pids(const struct gpa_model *m)
{
	uint32_t *pid = calloc(m->procs.n ? m->procs.n : 1, sizeof(*pid));
	bool unique = true;

	if (!pid) {
		return NULL;
	}
	for (size_t i = 0; i < m->procs.n && unique; i++) {
		unique = m->procs.v[i].pid && m->procs.v[i].pid < GPU_PID_BASE;
		for (size_t j = 0; j < i && unique; j++) {
			unique = m->procs.v[i].pid != m->procs.v[j].pid;
		}
	}
	for (size_t i = 0; i < m->procs.n; i++) {
		pid[i] = unique ? m->procs.v[i].pid : (uint32_t)(i + 1);
	}
	return pid;
}

/* A path event's slice: its track and its span less 1 ns at each end (inside it). */
static bool path_point(const struct pw *w, const struct gpa_cp_seg *g, uint32_t *pid,
		       uint32_t *tid, uint64_t *s, uint64_t *e)
{
	const struct gpa_model *m = w->m;

	if (g->kind == 0 && g->row < gpa_api_rows(m) && gpa_api_thread(m, g->row) < m->threads.n) {
		uint32_t th = gpa_api_thread(m, g->row);
		*pid = thread_pid(w, th);
		*tid = m->threads.v[th].tid;
		*s = gpa_api_start(m, g->row);
		*e = gpa_api_end(m, g->row);
	} else if (g->kind == 1 && g->row < gpa_gpu_rows(m)) {
		*pid = gpu_pid(gpa_gpu_dev(m, g->row));
		*tid = gpa_gpu_stream(m, g->row);
		*s = gpa_gpu_start(m, g->row);
		*e = gpa_gpu_end(m, g->row);
	} else {
		return false;
	}
	if (*e > *s + 2) {
		(*s)++;
		(*e)--;
	}
	*e = *e < *s ? *s : *e;
	return true;
}

/*
 * The critical path of each step as flows of their own category
 * ("critical_path"), one arrow from each event on it to the next.
 */
static void write_critpath(struct pw *w, const struct gpa_critpath *cp)
{
	for (size_t s = 0; cp && s < cp->steps.n; s++) {
		const struct gpa_cp_path *p = &cp->steps.v[s].now;
		uint32_t pid0 = 0, tid0 = 0, pid1, tid1;
		uint64_t ts0 = 0, s1, e1, ts1;
		bool have = false;
		for (size_t k = 0; k < p->path_n; k++) {
			if (!path_point(w, &cp->path.v[p->path_first + k], &pid1, &tid1, &s1, &e1)) {
				continue;
			}
			/* from the end of one event to the point of the next nearest in time */
			ts1 = !have || ts0 < s1 ? s1 : ts0 > e1 ? e1 : ts0;
			if (have) {
				w->flow_id++;
				ev_begin(w, "s", pid0);
				ev_tid(w, tid0);
				ev_ts(w, ts0);
				add_key_u64(&w->sb, "id", w->flow_id);
				ev_name(w, "critical_path", "critical path");
				gp_strbuf_adds(&w->sb, "}");
				ev_begin(w, "f", pid1);
				ev_tid(w, tid1);
				ev_ts(w, ts1);
				add_key_u64(&w->sb, "id", w->flow_id);
				ev_name(w, "critical_path", "critical path");
				gp_strbuf_adds(&w->sb, ",\"bp\":\"e\"}");
			}
			pid0 = pid1;
			tid0 = tid1;
			ts0 = e1;
			have = true;
		}
	}
}

static int assign_pids(struct pw *w)
{
	w->cpu_pid = gpr_perfetto_pids(w->m);
	return w->cpu_pid ? 0 : -GP_ERR_NOMEM;
}

int gpr_export_perfetto(const struct gpa_model *m, const char *path, char *errbuf, size_t errlen)
{
	return gpr_export_perfetto_opts(m, path, NULL, errbuf, errlen);
}

int gpr_export_perfetto_opts(const struct gpa_model *m, const char *path,
			     const struct gp_progress_cb *progress, char *errbuf, size_t errlen)
{
	return gpr_export_perfetto_path(m, path, progress, NULL, errbuf, errlen);
}

int gpr_export_perfetto_path(const struct gpa_model *m, const char *path,
			     const struct gp_progress_cb *progress, const struct gpa_critpath *cp,
			     char *errbuf, size_t errlen)
{
	struct pw *w = calloc(1, sizeof(*w));
	struct gp_strbuf tmp = GP_STRBUF_INIT;
	int ret;

	if (errlen) {
		errbuf[0] = '\0';
	}
	if (!w) {
		snprintf(errbuf, errlen, "out of memory");
		return -GP_ERR_NOMEM;
	}
	if (!m || !path || !*path) {
		snprintf(errbuf, errlen, "no model or no output path");
		free(w);
		return -GP_ERR_API;
	}
	w->m = m;
	w->first = true;
	w->progress = progress;
	gp_strbuf_init(&w->sb);
	w->t0 = m->t0;
	w->total = gpa_api_rows(m) + gpa_nvtx_rows(m) + gpa_gpu_rows(m);
	ret = assign_pids(w);
	if (ret) {
		snprintf(errbuf, errlen, "%s", gp_err_str(ret));
		goto out;
	}
	ret = gp_out_open(&w->out, path, 0, errbuf, errlen);
	if (ret) {
		goto out;
	}

	gp_strbuf_adds(&w->sb, "{\"traceEvents\":[");
	write_processes(w, &tmp);
	write_losses(w);
	write_apis(w);
	write_nvtx(w);
	ret = write_devices(w, &tmp);
	write_critpath(w, cp);
	gp_strbuf_adds(&w->sb, "\n],\"displayTimeUnit\":\"ns\"}\n");
	if (!ret && (w->nomem || w->sb.failed || tmp.failed)) {
		ret = -GP_ERR_NOMEM;
	}
	if (ret) {
		snprintf(errbuf, errlen, "%s: %s", path, gp_err_str(ret));
	} else {
		flush(w);
	}
	if (!ret && w->io_failed) {
		snprintf(errbuf, errlen, "%s", w->io_err);
		ret = -GP_ERR_IO;
	}
	if (ret) {
		gp_out_abandon(&w->out); /* removes only its own temporary */
	} else {
		ret = gp_out_close(&w->out, errbuf, errlen);
	}
out:
	free(w->cpu_pid);
	gp_strbuf_release(&tmp);
	gp_strbuf_release(&w->sb);
	free(w);
	return ret;
}
