/* SPDX-License-Identifier: MIT */
/*
 * export-pftrace.c - writes a model as a Perfetto protobuf trace (.pftrace),
 * the format ui.perfetto.dev and trace_processor read natively
 * (docs/export.md, "Perfetto"). The messages are the subset of Perfetto's
 * schema in report/proto/perfetto-trace.proto, packed with protobuf-c.
 *
 * The same content as the JSON export (report/export-perfetto.c): one
 * process track per traced process with its threads, one pseudo-process per
 * device with one track per stream, API calls and NVTX push/pop ranges as
 * slices on their threads, NVTX start/end ranges on "NVTX ranges" tracks of
 * their process (as many as overlap), marks as instants, kernels, copies and
 * sets as slices on their streams, flows from each launching API call to its
 * GPU work, and a "records lost" counter per process and cause.
 *
 * The file is streamed: a Trace is a sequence of TracePacket messages, each
 * field 1 of Trace (tag 0x0a, a varint length, the packet), so packets are
 * packed one by one into a chunk. A full chunk is compressed (zlib format,
 * as Perfetto's own service does) into one TracePacket whose
 * compressed_packets field (50) holds it, kept under Perfetto's 512 KiB
 * limit per compressed packet; a chunk that does not shrink goes out as it
 * is. The output goes to the file every few megabytes. All packets are on one sequence (trusted_packet_sequence_id
 * 1): the first clears the incremental state and interns the fixed names
 * (categories, argument names); an event whose name is new interns it in
 * its own packet. Timestamps are integer nanoseconds from the model's first
 * event (t0), as in the JSON export, with nothing rounded.
 */
#include "base/compat.h"
#include "base/outfile.h"
#include "analyze/file-info.h"
#include "analyze/model.h"
#include "analyze/overview.h"
#include "report/report.h"
#include "report/export.h"
#include "report/proto/perfetto-trace.pb-c.h"

#include <errno.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FLUSH_BYTES (4u << 20)
/*
 * Uncompressed packets per compressed_packets packet. Perfetto wants each such packet,
 * with its field tags and lengths, under 512 KiB; 448 KiB stays under it even when the
 * chunk does not compress at all, and a chunk that would not fit is written plain.
 */
#define CHUNK_BYTES (448u << 10)
#define MAX_COMPRESSED_PACKET (512u << 10)
#define DEFLATE_LEVEL 6
/* GPU pseudo-process ids, as in the JSON export: above any Linux pid. */
#define GPU_PID_BASE 0x1000000u
#define SEQ_ID 1u
#define MAX_ARGS 10

/* Interned categories and argument names: iids 1.. in this order. */
enum cat { CAT_RUNTIME = 1, CAT_DRIVER, CAT_NVTX, CAT_KERNEL, CAT_MEMCPY, CAT_MEMSET, CAT_LOSS };
static const char *const cat_names[] = {
	NULL, "cuda_runtime", "cuda_driver", "nvtx", "kernel", "memcpy", "memset", "loss",
};
enum arg {
	ARG_CORRELATION = 1, ARG_CBID, ARG_RETURN, ARG_DOMAIN, ARG_STREAM, ARG_DEVICE, ARG_GRID,
	ARG_BLOCK, ARG_REGISTERS, ARG_STATIC_SMEM, ARG_DYNAMIC_SMEM, ARG_BYTES, ARG_COPY_KIND,
	ARG_MEMORY_KIND,
};
static const char *const arg_names[] = {
	NULL, "correlation", "cbid", "return", "domain", "stream", "device", "grid", "block",
	"registers", "static_smem", "dynamic_smem", "bytes", "copy_kind", "memory_kind",
};
/* Event names that are not model strings: "Memset", "records lost", then copy kinds. */
enum { FIXED_MEMSET = 1, FIXED_LOST, FIXED__N };

struct pf {
	const struct gpa_model *m;
	const struct gp_progress_cb *progress;
	struct gp_out out;
	struct gp_strbuf sb;   /* output waiting for the file */
	struct gp_strbuf raw;  /* packets of the chunk being filled */
	struct libdeflate_compressor *z;
	uint8_t *zbuf;         /* one compressed chunk */
	size_t zcap;
	uint64_t chunks, plain_chunks;
	bool io_failed;    /* a write failed: the reason is in io_err */
	char io_err[PATH_MAX + 128];
	bool nomem;
	uint64_t next_iid;    /* event names */
	uint64_t *str_iid;    /* by model string id: its event name iid, 0 not yet */
	uint64_t copy_iid[256]; /* "Memcpy <kind>" by copy kind */
	uint64_t fixed_iid[FIXED__N];
	uint64_t next_val_iid;  /* interned argument strings */
	uint64_t *str_val_iid;  /* by model string id: its argument string iid, 0 not yet */
	uint64_t *shape_val_iid; /* by shape: grid and block strings' iids, 0 not yet */
	uint64_t next_uuid;
	uint64_t *proc_uuid, *thread_uuid, *dev_uuid, *loss_uuid; /* loss: proc * causes */
	uint32_t *cpu_pid;
	struct gp_u64map stream_uuid; /* (dev << 32 | stream) + 1 -> uuid */
	uint32_t *lane;        /* NVTX start/end row -> its track's uuid, 0 none */
	uint32_t *lane_base, *lane_count; /* by process: uuid of its first NVTX lane, lanes */
	uint32_t *flow_first;  /* by API row: first index into flow_gpu (CSR), n + 1 entries */
	uint32_t *flow_gpu;    /* GPU op indexes grouped by launching API row */
	uint64_t events, total;
	/* One event being built. */
	Perfetto__DebugAnnotation args[MAX_ARGS];
	Perfetto__DebugAnnotation *argp[MAX_ARGS];
	size_t nargs;
	/* Argument strings first used by the event being built, interned by its packet. */
	Perfetto__InternedString vals[2];
	Perfetto__InternedString *valp[2];
	size_t nvals;
	char grid[48], block[48];
	bool cat_done[GP_ARRAY_SIZE(cat_names)];  /* interned already */
	bool arg_done[GP_ARRAY_SIZE(arg_names)];
};

/* Category and argument names an event interns. */
struct fixed_names {
	Perfetto__EventCategory cat, *catp;
	Perfetto__DebugAnnotationName args[MAX_ARGS], *argp[MAX_ARGS];
	size_t nargs;
};

/* ---- output */

static void flush(struct pf *w)
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

static size_t varint(uint8_t *b, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	return n;
}

static void put_varint(struct gp_strbuf *sb, uint64_t v)
{
	uint8_t b[10];

	gp_strbuf_add(sb, b, varint(b, v));
}

/*
 * Moves the chunk's packets to the output: as one TracePacket { bytes compressed_packets = 50 }
 * (Trace field 1 around it) when that is smaller and within Perfetto's limit, else as they are.
 */
static void end_chunk(struct pf *w)
{
	uint8_t hdr[24];
	size_t n = 0, clen = 0, h = 0;

	if (!w->raw.len) {
		return;
	}
	if (w->raw.failed) {
		w->nomem = true;
	}
	if (w->z) {
		clen = libdeflate_zlib_compress(w->z, w->raw.buf, w->raw.len, w->zbuf, w->zcap);
	}
	if (clen) {
		uint8_t inner[12];
		size_t in = 0;

		inner[in++] = 0x92; /* field 50, length-delimited: (50 << 3 | 2) as a varint */
		inner[in++] = 0x03;
		in += varint(inner + in, clen);
		hdr[h++] = 0x0a;
		h += varint(hdr + h, in + clen);
		memcpy(hdr + h, inner, in);
		h += in;
		n = h + clen;
	}
	if (clen && n < w->raw.len && n < MAX_COMPRESSED_PACKET) {
		gp_strbuf_add(&w->sb, hdr, h);
		gp_strbuf_add(&w->sb, w->zbuf, clen);
		w->chunks++;
	} else {
		gp_strbuf_add(&w->sb, w->raw.buf, w->raw.len);
		w->plain_chunks++;
	}
	gp_strbuf_reset(&w->raw);
	if (w->sb.len >= FLUSH_BYTES) {
		flush(w);
	}
}

/* Appends one packet as field 1 (length-delimited) of the Trace, to the chunk. */
static void put_packet(struct pf *w, Perfetto__TracePacket *p)
{
	size_t n = perfetto__trace_packet__get_packed_size(p);

	if (w->raw.len && w->raw.len + n + 11 > CHUNK_BYTES) {
		end_chunk(w);
	}
	gp_strbuf_addch(&w->raw, 0x0a);
	put_varint(&w->raw, n);
	if (gp_strbuf_grow(&w->raw, n)) {
		w->nomem = true;
		return;
	}
	perfetto__trace_packet__pack(p, (uint8_t *)w->raw.buf + w->raw.len);
	w->raw.len += n;
	w->raw.buf[w->raw.len] = '\0';
}

static void progress(struct pf *w)
{
	if ((++w->events & 0xffff) == 0) {
		struct gp_progress pg = {.what = "exporting", .unit = "events", .done = w->events,
					 .total = w->total};

		gp_progress_call(w->progress, &pg);
	}
}

/* ---- interning */

/*
 * The name iid of model string id; 0 for a name used once (count_uses), which the event
 * carries inline: interning it would cost its packet an InternedData for nothing.
 */
static uint64_t str_name(struct pf *w, uint32_t id, Perfetto__EventName *new_name)
{
	if (w->str_iid[id] == UINT64_MAX) {
		new_name->name = (char *)gpa_model_str(w->m, id);
		return 0;
	}
	if (!w->str_iid[id]) {
		w->str_iid[id] = ++w->next_iid;
		new_name->has_iid = true;
		new_name->iid = w->str_iid[id];
		new_name->name = (char *)gpa_model_str(w->m, id);
	}
	return w->str_iid[id];
}

static uint64_t fixed_name(struct pf *w, uint64_t *slot, const char *name,
			   Perfetto__EventName *new_name)
{
	if (!*slot) {
		*slot = ++w->next_iid;
		new_name->has_iid = true;
		new_name->iid = *slot;
		new_name->name = (char *)name;
	}
	return *slot;
}

/*
 * The first packet clears the sequence's state. Categories and argument names keep fixed iids
 * (their enum values) but are interned by the first packet that uses them, so a trace
 * carries only those it uses.
 */
static void put_first(struct pf *w)
{
	Perfetto__TracePacket p = PERFETTO__TRACE_PACKET__INIT;

	p.has_trusted_packet_sequence_id = true;
	p.trusted_packet_sequence_id = SEQ_ID;
	p.has_sequence_flags = true;
	p.sequence_flags = PERFETTO__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
	put_packet(w, &p);
}

/* Adds to in the category and argument names of the event being built not interned yet. */
static void intern_fixed(struct pf *w, uint64_t cat, Perfetto__InternedData *in,
			 struct fixed_names *f)
{
	if (cat && !w->cat_done[cat]) {
		w->cat_done[cat] = true;
		perfetto__event_category__init(&f->cat);
		f->cat.has_iid = true;
		f->cat.iid = cat;
		f->cat.name = (char *)cat_names[cat];
		f->catp = &f->cat;
		in->n_event_categories = 1;
		in->event_categories = &f->catp;
	}
	for (size_t i = 0; i < w->nargs; i++) {
		uint64_t a = w->args[i].name_iid;

		if (w->arg_done[a]) {
			continue;
		}
		w->arg_done[a] = true;
		perfetto__debug_annotation_name__init(&f->args[f->nargs]);
		f->args[f->nargs].has_iid = true;
		f->args[f->nargs].iid = a;
		f->args[f->nargs].name = (char *)arg_names[a];
		f->argp[f->nargs] = &f->args[f->nargs];
		f->nargs++;
	}
	if (f->nargs) {
		in->n_debug_annotation_names = f->nargs;
		in->debug_annotation_names = f->argp;
	}
}

/* ---- events */

static void arg_u64(struct pf *w, enum arg name, uint64_t v)
{
	Perfetto__DebugAnnotation *a = &w->args[w->nargs];

	perfetto__debug_annotation__init(a);
	a->has_name_iid = true;
	a->name_iid = name;
	a->value_case = PERFETTO__DEBUG_ANNOTATION__VALUE_UINT_VALUE;
	a->uint_value = v;
	w->argp[w->nargs++] = a;
}

static void arg_i64(struct pf *w, enum arg name, int64_t v)
{
	Perfetto__DebugAnnotation *a = &w->args[w->nargs];

	perfetto__debug_annotation__init(a);
	a->has_name_iid = true;
	a->name_iid = name;
	a->value_case = PERFETTO__DEBUG_ANNOTATION__VALUE_INT_VALUE;
	a->int_value = v;
	w->argp[w->nargs++] = a;
}

/* An argument whose string value is interned (iid from intern_val). */
static void arg_iid(struct pf *w, enum arg name, uint64_t iid)
{
	Perfetto__DebugAnnotation *a = &w->args[w->nargs];

	perfetto__debug_annotation__init(a);
	a->has_name_iid = true;
	a->name_iid = name;
	a->value_case = PERFETTO__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID;
	a->string_value_iid = iid;
	w->argp[w->nargs++] = a;
}

/* The iid of an argument string (*slot, 0 when new: then interned by the next packet). */
static uint64_t intern_val(struct pf *w, uint64_t *slot, const char *s)
{
	if (!*slot) {
		Perfetto__InternedString *v = &w->vals[w->nvals];

		*slot = ++w->next_val_iid;
		perfetto__interned_string__init(v);
		v->has_iid = true;
		v->iid = *slot;
		v->has_str = true;
		v->str.data = (uint8_t *)s;
		v->str.len = strlen(s);
		w->valp[w->nvals++] = v;
	}
	return *slot;
}

static uint64_t rel(const struct pf *w, uint64_t t)
{
	return t > w->m->t0 ? t - w->m->t0 : 0;
}

/* What an event needs besides its time and track. */
struct ev {
	Perfetto__TrackEvent__Type type;
	uint64_t name_iid;
	uint64_t cat;
	Perfetto__EventName new_name; /* has_iid: intern it in this packet */
	uint64_t *flows;              /* flow ids started here */
	size_t nflows;
	uint64_t end_flow;            /* flow id ended here, 0 none */
	int64_t counter;
};

static void ev_init(struct ev *e, Perfetto__TrackEvent__Type type)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	perfetto__event_name__init(&e->new_name);
}

/* Writes one event at time t on track (its arguments: w->args, consumed). */
static void put_event(struct pf *w, uint64_t track, uint64_t t, struct ev *e)
{
	Perfetto__TracePacket p = PERFETTO__TRACE_PACKET__INIT;
	Perfetto__TrackEvent te = PERFETTO__TRACK_EVENT__INIT;
	Perfetto__InternedData in = PERFETTO__INTERNED_DATA__INIT;
	Perfetto__EventName *np = &e->new_name;
	struct fixed_names fixed = {.nargs = 0};

	p.has_timestamp = true;
	p.timestamp = rel(w, t);
	p.has_trusted_packet_sequence_id = true;
	p.trusted_packet_sequence_id = SEQ_ID;
	te.has_type = true;
	te.type = e->type;
	te.has_track_uuid = true;
	te.track_uuid = track;
	if (e->name_iid) {
		te.name_field_case = PERFETTO__TRACK_EVENT__NAME_FIELD_NAME_IID;
		te.name_iid = e->name_iid;
	} else if (e->new_name.name) {
		te.name_field_case = PERFETTO__TRACK_EVENT__NAME_FIELD_NAME;
		te.name = e->new_name.name;
	}
	if (e->name_iid || e->cat) {
		p.has_sequence_flags = true;
		p.sequence_flags = PERFETTO__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
	}
	if (e->cat) {
		te.n_category_iids = 1;
		te.category_iids = &e->cat;
	}
	if (e->new_name.has_iid) {
		in.n_event_names = 1;
		in.event_names = &np;
		p.interned_data = &in;
	}
	intern_fixed(w, e->cat, &in, &fixed);
	if (in.n_event_categories || in.n_debug_annotation_names) {
		p.interned_data = &in;
	}
	if (w->nvals) {
		in.n_debug_annotation_string_values = w->nvals;
		in.debug_annotation_string_values = w->valp;
		p.interned_data = &in;
	}
	te.n_debug_annotations = w->nargs;
	te.debug_annotations = w->argp;
	te.n_flow_ids = e->nflows;
	te.flow_ids = e->flows;
	if (e->end_flow) {
		te.n_terminating_flow_ids = 1;
		te.terminating_flow_ids = &e->end_flow;
	}
	if (e->type == PERFETTO__TRACK_EVENT__TYPE__TYPE_COUNTER) {
		te.has_counter_value = true;
		te.counter_value = e->counter;
	}
	p.data_case = PERFETTO__TRACE_PACKET__DATA_TRACK_EVENT;
	p.track_event = &te;
	put_packet(w, &p);
	w->nargs = 0;
	w->nvals = 0;
}

/* A slice: its begin (with e's name, arguments and flows), then its end. */
static void put_slice(struct pf *w, uint64_t track, uint64_t start, uint64_t end, struct ev *e)
{
	struct ev end_ev;

	e->type = PERFETTO__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
	put_event(w, track, start, e);
	ev_init(&end_ev, PERFETTO__TRACK_EVENT__TYPE__TYPE_SLICE_END);
	put_event(w, track, end > start ? end : start, &end_ev);
	progress(w);
}

/* ---- tracks */

static void put_track(struct pf *w, Perfetto__TrackDescriptor *td)
{
	Perfetto__TracePacket p = PERFETTO__TRACE_PACKET__INIT;

	p.has_trusted_packet_sequence_id = true;
	p.trusted_packet_sequence_id = SEQ_ID;
	p.data_case = PERFETTO__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
	p.track_descriptor = td;
	put_packet(w, &p);
}

/* A process track: pid, name and command line (cmdline NULL: none). */
static void put_process(struct pf *w, uint64_t uuid, uint32_t pid, const char *name,
			const char *cmdline)
{
	Perfetto__TrackDescriptor td = PERFETTO__TRACK_DESCRIPTOR__INIT;
	Perfetto__ProcessDescriptor pd = PERFETTO__PROCESS_DESCRIPTOR__INIT;
	char *cl = (char *)cmdline;

	td.has_uuid = true;
	td.uuid = uuid;
	pd.has_pid = true;
	pd.pid = (int32_t)pid;
	pd.process_name = (char *)name;
	if (cmdline && *cmdline) {
		pd.n_cmdline = 1;
		pd.cmdline = &cl;
	}
	td.process = &pd;
	put_track(w, &td);
}

/* A named track under parent; counter: a counter track of counts. */
static void put_child(struct pf *w, uint64_t uuid, uint64_t parent, const char *name,
		      bool counter)
{
	Perfetto__TrackDescriptor td = PERFETTO__TRACK_DESCRIPTOR__INIT;
	Perfetto__CounterDescriptor cd = PERFETTO__COUNTER_DESCRIPTOR__INIT;

	td.has_uuid = true;
	td.uuid = uuid;
	td.has_parent_uuid = true;
	td.parent_uuid = parent;
	td.name = (char *)name;
	if (counter) {
		cd.has_unit = true;
		cd.unit = PERFETTO__COUNTER_DESCRIPTOR__UNIT__UNIT_COUNT;
		td.counter = &cd;
	}
	put_track(w, &td);
}

/* Process ids as in the JSON export (gpr_perfetto_pids). */
static int assign_pids(struct pf *w)
{
	w->cpu_pid = gpr_perfetto_pids(w->m);
	return w->cpu_pid ? 0 : -GP_ERR_NOMEM;
}

/*
 * NVTX start/end ranges may overlap anyhow: each goes on the first lane (track) of
 * its process that is free at its start; past MAX_LANES, on the last one.
 */
#define MAX_LANES 256
static int nvtx_lanes(struct pf *w)
{
	const struct gpa_model *m = w->m;
	GP_VEC(uint64_t) *ends = calloc(m->procs.n ? m->procs.n : 1, sizeof(*ends));
	int ret = 0;

	w->lane = calloc(gpa_nvtx_rows(m) ? gpa_nvtx_rows(m) : 1, sizeof(*w->lane));
	if (!w->lane || !ends) {
		free(ends);
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < gpa_nvtx_rows(m) && !ret; i++) {
		uint32_t p;
		size_t l;

		if (gpa_nvtx_type(m, i) != GPT_NVTX_START_END ||
		    gpa_nvtx_thread(m, i) == GPA_NONE) {
			continue;
		}
		p = m->threads.v[gpa_nvtx_thread(m, i)].proc;
		for (l = 0; l < ends[p].n && ends[p].v[l] > gpa_nvtx_start(m, i); l++) {
		}
		if (l == ends[p].n && l < MAX_LANES) {
			ret = gp_vec_push(&ends[p], 0) ? -GP_ERR_NOMEM : 0;
		} else if (l == ends[p].n) {
			l--; /* overlaps on the last lane */
		}
		if (!ret) {
			ends[p].v[l] = gpa_nvtx_end(m, i) > gpa_nvtx_start(m, i)
					       ? gpa_nvtx_end(m, i)
					       : gpa_nvtx_start(m, i);
			w->lane[i] = (uint32_t)l + 1;
		}
	}
	/* Lane numbers become track uuids: the process's lanes follow its own uuid. */
	w->lane_base = calloc(m->procs.n ? m->procs.n : 1, sizeof(*w->lane_base));
	w->lane_count = calloc(m->procs.n ? m->procs.n : 1, sizeof(*w->lane_count));
	if (!w->lane_base || !w->lane_count) {
		ret = -GP_ERR_NOMEM;
	}
	for (size_t p = 0; p < m->procs.n; p++) {
		if (!ret) {
			w->lane_count[p] = (uint32_t)ends[p].n;
		}
		gp_vec_free(&ends[p]);
	}
	free(ends);
	return ret;
}

static void process_name(const struct gpa_model *m, size_t p, struct gp_strbuf *tmp)
{
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
}

/* The traced processes: their tracks, threads, NVTX lanes and loss counters. */
static int write_cpu_tracks(struct pf *w, struct gp_strbuf *tmp)
{
	const struct gpa_model *m = w->m;
	size_t np = m->procs.n;

	w->proc_uuid = calloc(np ? np : 1, sizeof(*w->proc_uuid));
	w->thread_uuid = calloc(m->threads.n ? m->threads.n : 1, sizeof(*w->thread_uuid));
	w->loss_uuid = calloc((np ? np : 1) * GPT_LOSS__MAX, sizeof(*w->loss_uuid));
	if (!w->proc_uuid || !w->thread_uuid || !w->loss_uuid) {
		return -GP_ERR_NOMEM;
	}
	for (size_t p = 0; p < np; p++) {
		w->proc_uuid[p] = ++w->next_uuid;
		process_name(m, p, tmp);
		put_process(w, w->proc_uuid[p], w->cpu_pid[p], tmp->buf,
			    m->procs.v[p].cmdline ? gpa_model_str(m, m->procs.v[p].cmdline) : NULL);
		w->lane_base[p] = (uint32_t)w->next_uuid + 1;
		for (uint32_t l = 0; l < w->lane_count[p]; l++) {
			put_child(w, ++w->next_uuid, w->proc_uuid[p], "NVTX ranges", false);
		}
		/* "records lost" (slot 0: the total, zero or not), then one per cause with losses. */
		w->loss_uuid[p * GPT_LOSS__MAX] = ++w->next_uuid;
		put_child(w, w->next_uuid, w->proc_uuid[p], "records lost", true);
		for (unsigned c = 1; c < GPT_LOSS__MAX; c++) {
			if (!m->procs.v[p].losses[c]) {
				continue;
			}
			w->loss_uuid[p * GPT_LOSS__MAX + c] = ++w->next_uuid;
			gp_strbuf_reset(tmp);
			gp_strbuf_addf(tmp, "records lost: %s", gpa_loss_cause_name(c));
			put_child(w, w->next_uuid, w->proc_uuid[p], tmp->buf, true);
		}
	}
	for (size_t t = 0; t < m->threads.n; t++) {
		const struct gpa_thread *th = &m->threads.v[t];
		Perfetto__TrackDescriptor td = PERFETTO__TRACK_DESCRIPTOR__INIT;
		Perfetto__ThreadDescriptor thd = PERFETTO__THREAD_DESCRIPTOR__INIT;

		gp_strbuf_reset(tmp);
		if (th->name) {
			gp_strbuf_adds(tmp, gpa_model_str(m, th->name));
		} else {
			gp_strbuf_addf(tmp, "thread %" PRIu32, th->tid);
		}
		w->thread_uuid[t] = ++w->next_uuid;
		td.has_uuid = true;
		td.uuid = w->thread_uuid[t];
		td.has_parent_uuid = true;
		td.parent_uuid = w->proc_uuid[th->proc];
		thd.has_pid = true;
		thd.pid = (int32_t)w->cpu_pid[th->proc];
		thd.has_tid = true;
		thd.tid = th->tid;
		thd.thread_name = tmp->buf;
		td.thread = &thd;
		put_track(w, &td);
	}
	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		if (w->lane[i]) {
			uint32_t p = m->threads.v[gpa_nvtx_thread(m, i)].proc;

			w->lane[i] = w->lane_base[p] + w->lane[i] - 1;
		}
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* One pseudo-process per device, one track per stream (named as in the JSON export). */
static int write_gpu_tracks(struct pf *w, struct gp_strbuf *tmp)
{
	const struct gpa_model *m = w->m;
	GP_VEC(uint32_t) streams = {0};
	int ret = 0;

	w->dev_uuid = calloc(m->devs.n ? m->devs.n : 1, sizeof(*w->dev_uuid));
	if (!w->dev_uuid) {
		return -GP_ERR_NOMEM;
	}
	for (size_t d = 0; d < m->devs.n && !ret; d++) {
		const struct gpa_dev *dev = &m->devs.v[d];
		const struct gpa_proc *pr = &m->procs.v[dev->proc];

		gp_strbuf_reset(tmp);
		gp_strbuf_addf(tmp, "GPU %" PRIu32 ": %s", dev->id, gpa_model_str(m, dev->name));
		if (m->procs.n > 1) {
			if (pr->world_size > 1 && pr->rank >= 0) {
				gp_strbuf_addf(tmp, " (rank %" PRId32 ")", pr->rank);
			} else {
				gp_strbuf_addf(tmp, " (pid %" PRIu32 ")", pr->pid);
			}
		}
		w->dev_uuid[d] = ++w->next_uuid;
		put_process(w, w->dev_uuid[d], GPU_PID_BASE + (uint32_t)d, tmp->buf, NULL);
		streams.n = 0;
		for (size_t i = dev->gpu_first; i < dev->gpu_first + dev->gpu_count && !ret; i++) {
			ret = gp_vec_push(&streams, gpa_gpu_stream(m, i)) ? -GP_ERR_NOMEM : 0;
		}
		if (streams.n) {
			qsort(streams.v, streams.n, sizeof(*streams.v), cmp_u32);
		}
		for (size_t i = 0; i < streams.n && !ret; i++) {
			uint64_t key = ((uint64_t)d << 32 | streams.v[i]) + 1;

			if (i && streams.v[i] == streams.v[i - 1]) {
				continue;
			}
			ret = gp_u64map_get_or_insert(&w->stream_uuid, key, ++w->next_uuid, NULL) < 0
				      ? -GP_ERR_NOMEM
				      : 0;
			gp_strbuf_reset(tmp);
			gp_strbuf_addf(tmp, "Stream %" PRIu32, streams.v[i]);
			put_child(w, w->next_uuid, w->dev_uuid[d], tmp->buf, false);
		}
	}
	gp_vec_free(&streams);
	return ret;
}

static int write_tracks(struct pf *w)
{
	struct gp_strbuf tmp = GP_STRBUF_INIT;
	int ret = write_cpu_tracks(w, &tmp);

	if (!ret) {
		ret = write_gpu_tracks(w, &tmp);
	}
	if (!ret && tmp.failed) {
		ret = -GP_ERR_NOMEM;
	}
	gp_strbuf_release(&tmp);
	return ret;
}

static void write_apis(struct pf *w)
{
	GP_VEC(uint64_t) flows = {0};

	for (size_t i = 0; i < gpa_api_rows(w->m); i++) {
		struct ev e;

		if (gpa_api_thread(w->m, i) == GPA_NONE) {
			continue;
		}
		ev_init(&e, 0);
		e.name_iid = str_name(w, gpa_api_name(w->m, i), &e.new_name);
		e.cat = gpa_api_domain(w->m, i) == GPT_API_DRIVER ? CAT_DRIVER : CAT_RUNTIME;
		arg_u64(w, ARG_CORRELATION, gpa_api_corr(w->m, i));
		arg_u64(w, ARG_CBID, gpa_api_cbid(w->m, i));
		arg_u64(w, ARG_RETURN, gpa_api_ret(w->m, i));
		flows.n = 0;
		for (uint32_t k = w->flow_first[i]; k < w->flow_first[i + 1]; k++) {
			if (gp_vec_push(&flows, (uint64_t)w->flow_gpu[k] + 1)) {
				w->nomem = true;
				break;
			}
		}
		e.flows = flows.v;
		e.nflows = flows.n;
		put_slice(w, w->thread_uuid[gpa_api_thread(w->m, i)], gpa_api_start(w->m, i), gpa_api_end(w->m, i),
			  &e);
	}
	gp_vec_free(&flows);
}

static void write_nvtx(struct pf *w)
{
	for (size_t i = 0; i < gpa_nvtx_rows(w->m); i++) {
		const char *domain = gpa_model_str(w->m, gpa_nvtx_domain(w->m, i));
		uint64_t track;
		struct ev e;

		if (gpa_nvtx_thread(w->m, i) == GPA_NONE) {
			continue;
		}
		track = w->thread_uuid[gpa_nvtx_thread(w->m, i)];
		ev_init(&e, 0);
		e.name_iid = str_name(w, gpa_nvtx_name(w->m, i), &e.new_name);
		e.cat = CAT_NVTX;
		if (*domain) {
			arg_iid(w, ARG_DOMAIN,
				intern_val(w, &w->str_val_iid[gpa_nvtx_domain(w->m, i)], domain));
		}
		switch (gpa_nvtx_type(w->m, i)) {
		case GPT_NVTX_PUSH_POP:
			put_slice(w, track, gpa_nvtx_start(w->m, i), gpa_nvtx_end(w->m, i), &e);
			break;
		case GPT_NVTX_START_END:
			put_slice(w, w->lane[i] ? w->lane[i] : track, gpa_nvtx_start(w->m, i),
				  gpa_nvtx_end(w->m, i), &e);
			break;
		case GPT_NVTX_MARK:
			e.type = PERFETTO__TRACK_EVENT__TYPE__TYPE_INSTANT;
			put_event(w, track, gpa_nvtx_start(w->m, i), &e);
			progress(w);
			break;
		default:
			w->nargs = 0;
			w->nvals = 0;
			break;
		}
	}
}

/* Per process: the total lost (slot 0) and each cause with losses, flat from t0 to t1. */
static void write_losses(struct pf *w)
{
	const struct gpa_model *m = w->m;

	for (size_t p = 0; p < m->procs.n; p++) {
		uint64_t total = 0;

		for (unsigned c = 1; c < GPT_LOSS__MAX; c++) {
			total += m->procs.v[p].losses[c];
		}
		for (unsigned c = 0; c < GPT_LOSS__MAX; c++) {
			uint64_t track = w->loss_uuid[p * GPT_LOSS__MAX + c];

			for (int k = 0; track && k < 2; k++) {
				struct ev e;

				ev_init(&e, PERFETTO__TRACK_EVENT__TYPE__TYPE_COUNTER);
				e.counter = (int64_t)(c ? m->procs.v[p].losses[c] : total);
				put_event(w, track, k ? m->t1 : m->t0, &e);
			}
		}
	}
}

static void kernel_args(struct pf *w, size_t r)
{
	const struct gpa_model *m = w->m;
	uint32_t sh = gpa_kern_shape(m, r);

	arg_u64(w, ARG_CORRELATION, gpa_kern_corr(m, r));
	arg_u64(w, ARG_STREAM, gpa_kern_stream(m, r));
	arg_u64(w, ARG_DEVICE, m->devs.v[gpa_kern_dev(m, r)].id);
	if (sh < m->shapes.n) {
		const struct gpa_shape *s = &m->shapes.v[sh];

		/* "XxYxZ" strings, interned once per launch configuration. */
		snprintf(w->grid, sizeof(w->grid), "%" PRId32 "x%" PRId32 "x%" PRId32, s->grid_x,
			 s->grid_y, s->grid_z);
		snprintf(w->block, sizeof(w->block), "%" PRId32 "x%" PRId32 "x%" PRId32,
			 s->block_x, s->block_y, s->block_z);
		arg_iid(w, ARG_GRID, intern_val(w, &w->shape_val_iid[2 * sh], w->grid));
		arg_iid(w, ARG_BLOCK, intern_val(w, &w->shape_val_iid[2 * sh + 1], w->block));
		arg_u64(w, ARG_REGISTERS, s->regs);
		arg_i64(w, ARG_STATIC_SMEM, s->static_smem);
		arg_i64(w, ARG_DYNAMIC_SMEM, s->dynamic_smem);
	}
}

/* GPU op i of the device timelines, on its stream's track. */
static void write_gpu_op(struct pf *w, size_t i)
{
	const struct gpa_model *m = w->m;
	uint32_t row = gpa_gpu_row(m, i), api = gpa_gpu_api(m, i), fn;
	uint64_t key = ((uint64_t)gpa_gpu_dev(m, i) << 32 | gpa_gpu_stream(m, i)) + 1;
	struct ev e;

	ev_init(&e, 0);
	switch (gpa_gpu_kind(m, i)) {
	case GPA_GPU_KERNEL:
		fn = gpa_kern_func(m, row);
		if (fn < m->funcs.n) {
			uint32_t id = m->funcs.v[fn].demangled ? m->funcs.v[fn].demangled
							       : m->funcs.v[fn].name;
			e.name_iid = str_name(w, id, &e.new_name);
		} else {
			e.name_iid = str_name(w, 0, &e.new_name);
		}
		e.cat = CAT_KERNEL;
		kernel_args(w, row);
		break;
	case GPA_GPU_MEMCPY: {
		uint8_t ck = gpa_copy_copy_kind(m, row);
		char name[64];

		snprintf(name, sizeof(name), "Memcpy %s", gpa_copy_kind_name(ck));
		/* name is interned by the packet written below, before it goes. */
		e.name_iid = fixed_name(w, &w->copy_iid[ck], name, &e.new_name);
		e.cat = CAT_MEMCPY;
		arg_u64(w, ARG_BYTES, gpa_copy_bytes(m, row));
		arg_u64(w, ARG_COPY_KIND, ck);
		arg_u64(w, ARG_CORRELATION, gpa_copy_corr(m, row));
		arg_u64(w, ARG_STREAM, gpa_copy_stream(m, row));
		if (api != GPA_NONE && api < gpa_api_rows(m) &&
		    gpa_api_thread(m, api) != GPA_NONE) {
			e.end_flow = i + 1;
		}
		put_slice(w, gp_u64map_get(&w->stream_uuid, key, 0), gpa_gpu_start(m, i),
			  gpa_gpu_end(m, i), &e);
		return;
	}
	case GPA_GPU_MEMSET:
		e.name_iid = fixed_name(w, &w->fixed_iid[FIXED_MEMSET], "Memset", &e.new_name);
		e.cat = CAT_MEMSET;
		arg_u64(w, ARG_BYTES, gpa_set_bytes(m, row));
		arg_u64(w, ARG_MEMORY_KIND, gpa_set_memory_kind(m, row));
		arg_u64(w, ARG_CORRELATION, gpa_set_corr(m, row));
		arg_u64(w, ARG_STREAM, gpa_set_stream(m, row));
		break;
	default:
		return;
	}
	if (api != GPA_NONE && api < gpa_api_rows(m) && gpa_api_thread(m, api) != GPA_NONE) {
		e.end_flow = i + 1;
	}
	put_slice(w, gp_u64map_get(&w->stream_uuid, key, 0), gpa_gpu_start(m, i), gpa_gpu_end(m, i), &e);
}

static void write_gpu(struct pf *w)
{
	for (size_t i = 0; i < gpa_gpu_rows(w->m); i++) {
		write_gpu_op(w, i);
	}
}

/* Flows: the GPU ops of each API row, grouped (a counting sort by API row). */
static int index_flows(struct pf *w)
{
	const struct gpa_model *m = w->m;
	size_t na = gpa_api_rows(m);

	w->flow_first = calloc(na + 2, sizeof(*w->flow_first));
	w->flow_gpu = malloc((gpa_gpu_rows(m) ? gpa_gpu_rows(m) : 1) * sizeof(*w->flow_gpu));
	if (!w->flow_first || !w->flow_gpu) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < gpa_gpu_rows(m); i++) {
		uint32_t api = gpa_gpu_api(m, i);

		if (api != GPA_NONE && api < na && gpa_api_thread(m, api) != GPA_NONE) {
			w->flow_first[api + 2]++;
		}
	}
	for (size_t a = 2; a < na + 2; a++) {
		w->flow_first[a] += w->flow_first[a - 1];
	}
	for (size_t i = 0; i < gpa_gpu_rows(m); i++) {
		uint32_t api = gpa_gpu_api(m, i);

		if (api != GPA_NONE && api < na && gpa_api_thread(m, api) != GPA_NONE) {
			w->flow_gpu[w->flow_first[api + 1]++] = (uint32_t)i;
		}
	}
	return 0;
}

static void release(struct pf *w)
{
	free(w->str_iid);
	free(w->str_val_iid);
	free(w->shape_val_iid);
	free(w->proc_uuid);
	free(w->thread_uuid);
	free(w->dev_uuid);
	free(w->loss_uuid);
	free(w->cpu_pid);
	free(w->lane);
	free(w->lane_base);
	free(w->lane_count);
	free(w->flow_first);
	free(w->flow_gpu);
	gp_u64map_release(&w->stream_uuid);
	gp_strbuf_release(&w->sb);
	gp_strbuf_release(&w->raw);
	if (w->z) {
		libdeflate_free_compressor(w->z);
	}
	free(w->zbuf);
}

/* Marks the names of API calls and NVTX ranges used once (str_iid UINT64_MAX). */
static void count_uses(struct pf *w)
{
	const struct gpa_model *m = w->m;
	size_t n = m->strs.off.n + 1;
	uint8_t *uses = calloc(n, 1);

	if (!uses) {
		return; /* everything interned: bigger, not wrong */
	}
	for (size_t i = 0; i < gpa_api_rows(m); i++) {
		uses[gpa_api_name(m, i)] += uses[gpa_api_name(m, i)] < 2;
	}
	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		uses[gpa_nvtx_name(m, i)] += uses[gpa_nvtx_name(m, i)] < 2;
	}
	for (size_t i = 0; i < m->funcs.n; i++) {
		uses[m->funcs.v[i].name] = 2; /* kernels: a function is launched again, mostly */
		uses[m->funcs.v[i].demangled] = 2;
	}
	for (size_t id = 1; id < n; id++) {
		if (uses[id] == 1) {
			w->str_iid[id] = UINT64_MAX;
		}
	}
	free(uses);
}

static int prepare(struct pf *w)
{
	const struct gpa_model *m = w->m;

	w->str_iid = calloc(m->strs.off.n + 1, sizeof(*w->str_iid));
	w->str_val_iid = calloc(m->strs.off.n + 1, sizeof(*w->str_val_iid));
	w->shape_val_iid = calloc(2 * m->shapes.n + 2, sizeof(*w->shape_val_iid));
	if (!w->str_iid || !w->str_val_iid || !w->shape_val_iid) {
		return -GP_ERR_NOMEM;
	}
	count_uses(w);
	/* A compressed chunk never exceeds the packet limit: one that would is written plain. */
	w->zcap = MAX_COMPRESSED_PACKET;
	w->zbuf = malloc(w->zcap);
	w->z = libdeflate_alloc_compressor(DEFLATE_LEVEL);
	if (!w->zbuf || !w->z) {
		return -GP_ERR_NOMEM;
	}
	w->total = gpa_api_rows(m) + gpa_nvtx_rows(m) + gpa_gpu_rows(m);
	if (index_flows(w) || assign_pids(w) || nvtx_lanes(w)) {
		return -GP_ERR_NOMEM;
	}
	return 0;
}

int gpr_export_pftrace(const struct gpa_model *m, const char *path,
		       const struct gp_progress_cb *progress, char *errbuf, size_t errlen)
{
	struct pf w = {.m = m, .progress = progress};
	int ret;

	if (errlen) {
		errbuf[0] = '\0';
	}
	if (!m || !path || !*path) {
		snprintf(errbuf, errlen, "no model or no output path");
		return -GP_ERR_API;
	}
	gp_strbuf_init(&w.sb);
	gp_strbuf_init(&w.raw);
	gp_u64map_init(&w.stream_uuid);
	ret = prepare(&w);
	if (ret) {
		snprintf(errbuf, errlen, "%s", gp_err_str(ret));
		goto out;
	}
	ret = gp_out_open(&w.out, path, 0, errbuf, errlen);
	if (ret) {
		goto out;
	}
	put_first(&w);
	ret = write_tracks(&w);
	if (!ret) {
		write_losses(&w);
		write_nvtx(&w);
		write_apis(&w);
		write_gpu(&w);
		end_chunk(&w);
	}
	if (!ret && (w.nomem || w.sb.failed)) {
		ret = -GP_ERR_NOMEM;
	}
	if (ret) {
		snprintf(errbuf, errlen, "%s: %s", path, gp_err_str(ret));
	} else {
		flush(&w);
	}
	if (!ret && w.io_failed) {
		snprintf(errbuf, errlen, "%s", w.io_err);
		ret = -GP_ERR_IO;
	}
	if (ret) {
		gp_out_abandon(&w.out); /* removes only its own temporary */
	} else {
		ret = gp_out_close(&w.out, errbuf, errlen);
	}
out:
	release(&w);
	return ret;
}
