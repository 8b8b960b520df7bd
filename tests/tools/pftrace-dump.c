/* SPDX-License-Identifier: MIT */
/*
 * pftrace-dump - reads a Perfetto protobuf trace packet by packet with
 * protobuf-c's decoder (report/proto/perfetto-trace.proto) and prints what
 * it holds, one line each, for tests/e2e/t2510-export-pftrace.sh:
 *
 *   track UUID parent=UUID pid=P tid=T counter=0|1 name="..."
 *   slice TRACK TS DUR cat=CAT name="..." flows=N,... ends=N,... {"arg":value,...}
 *   instant TRACK TS cat=CAT name="..." {...}
 *   counter TRACK TS VALUE
 *   bytes KIND N B                      (per kind of packet: count, bytes with framing,
 *                                        uncompressed)
 *   compressed N bytes B inflated R     (compressed_packets packets: count, bytes with
 *                                        framing, bytes they inflate to)
 *   packets N bytes B errors E
 *
 * Slices are paired per track: an end closes the newest open begin of its
 * track, as trace_processor does; DUR is end - begin. Checks the structure
 * and prints "error: ..." lines (exit 1) for each problem: a packet that is
 * not field 1 of Trace or does not decode, a compressed_packets packet that
 * does not inflate, holds other fields, is nested or is 512 KiB or more, a first packet that does not
 * clear the incremental state, an event off sequence 1, a track declared
 * twice, an event on an undeclared track, a name, category, argument name
 * or argument string iid never interned (or interned twice), an end with no
 * open slice, a slice left open, a flow terminated that never started.
 *
 *   pftrace-dump FILE
 */
#include "base/compat.h"
#include "base/base.h"
#include "report/proto/perfetto-trace.pb-c.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_IID (1u << 24)
#define MAX_DEPTH 4096

struct open_slice {
	uint64_t ts;
	char *line; /* the slice's line without its duration */
};

struct track {
	uint64_t uuid;
	struct open_slice stack[64];
	size_t depth;
};

/* Interned strings by iid, grown to the largest iid seen (under MAX_IID): four tables of
 * MAX_IID pointers allocated up front cost 512 MiB of calloc, which the sanitized build
 * touches page by page (3 to 4 CPU seconds a run). */
struct itab {
	char **v;
	size_t cap;
};
static struct itab names, cats, argnames, vals;
static struct track *tracks;
static size_t ntracks;
static unsigned long errors;
/* Sizes by kind of packet: tracks, the category of a begin or instant, end, counter. */
static const char *size_kind[32];
static uint64_t size_n[32], size_b[32];
static const char *cur_kind;
/* compressed_packets packets: count, bytes with framing, bytes inflated. */
static uint64_t compressed_n, compressed_b, raw_b;
static void inflate_packets(const Perfetto__TracePacket *p, size_t framed, int nested);

static struct gp_u64map track_index; /* uuid -> index + 1 */
static struct gp_u64map flows_started; /* flow id -> 1 */

static void error(uint64_t pkt, const char *what, uint64_t v)
{
	if (errors++ < 20) {
		printf("error: packet %" PRIu64 ": %s %" PRIu64 "\n", pkt, what, v);
	}
}

static bool get_varint(const uint8_t *p, size_t n, size_t *off, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64 && *off < n; shift += 7) {
		uint8_t b = p[(*off)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			return true;
		}
	}
	return false;
}

static struct track *find_track(uint64_t uuid)
{
	uint64_t i = gp_u64map_get(&track_index, uuid, 0);

	return i ? &tracks[i - 1] : NULL;
}

static const char *lookup(const struct itab *tab, uint64_t iid, uint64_t pkt, const char *what)
{
	if (!iid || iid >= MAX_IID || iid >= tab->cap || !tab->v[iid]) {
		error(pkt, what, iid);
		return "?";
	}
	return tab->v[iid];
}

static void intern(struct itab *tab, uint64_t iid, const char *s, size_t len, uint64_t pkt,
		   const char *what)
{
	if (!iid || iid >= MAX_IID || (iid < tab->cap && tab->v[iid])) {
		error(pkt, what, iid);
		return;
	}
	if (iid >= tab->cap) {
		size_t cap = tab->cap ? tab->cap : 1024;
		while (cap <= iid) {
			cap *= 2;
		}
		char **v = realloc(tab->v, cap * sizeof(*v));
		if (!v) {
			fprintf(stderr, "pftrace-dump: out of memory\n");
			exit(2);
		}
		memset(v + tab->cap, 0, (cap - tab->cap) * sizeof(*v));
		tab->v = v;
		tab->cap = cap;
	}
	tab->v[iid] = strndup(s, len);
}

static void take_interned(const Perfetto__InternedData *in, uint64_t pkt)
{
	for (size_t i = 0; i < in->n_event_names; i++) {
		intern(&names, in->event_names[i]->iid, in->event_names[i]->name,
		       strlen(in->event_names[i]->name ? in->event_names[i]->name : ""), pkt,
		       "event name interned twice or bad iid");
	}
	for (size_t i = 0; i < in->n_event_categories; i++) {
		intern(&cats, in->event_categories[i]->iid, in->event_categories[i]->name,
		       strlen(in->event_categories[i]->name), pkt, "category interned twice");
	}
	for (size_t i = 0; i < in->n_debug_annotation_names; i++) {
		intern(&argnames, in->debug_annotation_names[i]->iid,
		       in->debug_annotation_names[i]->name,
		       strlen(in->debug_annotation_names[i]->name), pkt,
		       "argument name interned twice");
	}
	for (size_t i = 0; i < in->n_debug_annotation_string_values; i++) {
		const Perfetto__InternedString *v = in->debug_annotation_string_values[i];

		intern(&vals, v->iid, (const char *)v->str.data, v->str.len, pkt,
		       "argument string interned twice");
	}
}

static void take_track(const Perfetto__TrackDescriptor *td, uint64_t pkt)
{
	const Perfetto__ProcessDescriptor *pd = td->process;
	const Perfetto__ThreadDescriptor *th = td->thread;

	if (!td->has_uuid || find_track(td->uuid)) {
		error(pkt, "track without uuid or declared twice", td->uuid);
		return;
	}
	if (td->has_parent_uuid && !find_track(td->parent_uuid)) {
		error(pkt, "track whose parent is not declared before it", td->parent_uuid);
	}
	tracks = realloc(tracks, (ntracks + 1) * sizeof(*tracks));
	memset(&tracks[ntracks], 0, sizeof(*tracks));
	tracks[ntracks++].uuid = td->uuid;
	gp_u64map_get_or_insert(&track_index, td->uuid, ntracks, NULL);
	printf("track %" PRIu64 " parent=%" PRIu64 " pid=%" PRId64 " tid=%" PRId64
	       " counter=%d name=\"%s\"\n",
	       td->uuid, td->has_parent_uuid ? td->parent_uuid : 0,
	       pd ? (int64_t)pd->pid : th ? (int64_t)th->pid : -1, th ? th->tid : -1,
	       td->counter != NULL,
	       pd && pd->process_name ? pd->process_name
	       : th && th->thread_name ? th->thread_name
	       : td->name ? td->name : "");
}

/* The event's description after its track and time: category, name, flows, arguments. */
static char *describe(const Perfetto__TrackEvent *te, uint64_t pkt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fprintf(f, "cat=%s name=\"%s\" flows=",
		te->n_category_iids ? lookup(&cats, te->category_iids[0], pkt, "category iid") : "",
		te->name_field_case == PERFETTO__TRACK_EVENT__NAME_FIELD_NAME_IID
			? lookup(&names, te->name_iid, pkt, "name iid not interned")
		: te->name_field_case == PERFETTO__TRACK_EVENT__NAME_FIELD_NAME ? te->name
										 : "");
	for (size_t i = 0; i < te->n_flow_ids; i++) {
		fprintf(f, "%s%" PRIu64, i ? "," : "", te->flow_ids[i]);
		gp_u64map_get_or_insert(&flows_started, te->flow_ids[i], 1, NULL);
	}
	fprintf(f, " ends=");
	for (size_t i = 0; i < te->n_terminating_flow_ids; i++) {
		fprintf(f, "%s%" PRIu64, i ? "," : "", te->terminating_flow_ids[i]);
	}
	fputs(" {", f);
	for (size_t i = 0; i < te->n_debug_annotations; i++) {
		const Perfetto__DebugAnnotation *a = te->debug_annotations[i];

		fprintf(f, "%s\"%s\":", i ? "," : "",
			lookup(&argnames, a->name_iid, pkt, "argument name iid not interned"));
		switch (a->value_case) {
		case PERFETTO__DEBUG_ANNOTATION__VALUE_UINT_VALUE:
			fprintf(f, "%" PRIu64, a->uint_value);
			break;
		case PERFETTO__DEBUG_ANNOTATION__VALUE_INT_VALUE:
			fprintf(f, "%" PRId64, a->int_value);
			break;
		case PERFETTO__DEBUG_ANNOTATION__VALUE_STRING_VALUE:
			fprintf(f, "\"%s\"", a->string_value);
			break;
		case PERFETTO__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID:
			fprintf(f, "\"%s\"",
				lookup(&vals, a->string_value_iid, pkt, "argument string iid"));
			break;
		default:
			error(pkt, "argument without a value", i);
			break;
		}
	}
	fputc('}', f);
	fclose(f);
	return buf;
}

static void take_event(const Perfetto__TracePacket *p, uint64_t pkt)
{
	const Perfetto__TrackEvent *te = p->track_event;
	struct track *t = find_track(te->track_uuid);

	if (!p->has_trusted_packet_sequence_id || p->trusted_packet_sequence_id != 1) {
		error(pkt, "track event off sequence 1", p->trusted_packet_sequence_id);
	}
	if (!t) {
		error(pkt, "event on an undeclared track", te->track_uuid);
		return;
	}
	for (size_t i = 0; i < te->n_terminating_flow_ids; i++) {
		if (!gp_u64map_get(&flows_started, te->terminating_flow_ids[i], 0)) {
			error(pkt, "flow ended that never started", te->terminating_flow_ids[i]);
		}
	}
	cur_kind = te->type == PERFETTO__TRACK_EVENT__TYPE__TYPE_SLICE_END   ? "end"
		   : te->type == PERFETTO__TRACK_EVENT__TYPE__TYPE_COUNTER ? "counter"
		   : te->n_category_iids ? lookup(&cats, te->category_iids[0], pkt, "category iid")
					 : "other";
	switch (te->type) {
	case PERFETTO__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN:
		if (t->depth == GP_ARRAY_SIZE(t->stack)) {
			error(pkt, "slices nested too deep on track", t->uuid);
			return;
		}
		t->stack[t->depth].ts = p->timestamp;
		t->stack[t->depth++].line = describe(te, pkt);
		break;
	case PERFETTO__TRACK_EVENT__TYPE__TYPE_SLICE_END:
		if (!t->depth) {
			error(pkt, "end with no open slice on track", t->uuid);
			return;
		}
		t->depth--;
		printf("slice %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n", t->uuid,
		       t->stack[t->depth].ts, p->timestamp - t->stack[t->depth].ts,
		       t->stack[t->depth].line);
		free(t->stack[t->depth].line);
		break;
	case PERFETTO__TRACK_EVENT__TYPE__TYPE_INSTANT: {
		char *d = describe(te, pkt);

		printf("instant %" PRIu64 " %" PRIu64 " %s\n", t->uuid, p->timestamp, d);
		free(d);
		break;
	}
	case PERFETTO__TRACK_EVENT__TYPE__TYPE_COUNTER:
		printf("counter %" PRIu64 " %" PRIu64 " %" PRId64 "\n", t->uuid, p->timestamp,
		       te->counter_value);
		break;
	default:
		error(pkt, "event of unknown type", te->type);
	}
}

/* Counts a packet of kind (with its tag and length) in the size table. */
static void account(const char *kind, uint64_t bytes)
{
	size_t i;

	for (i = 0; i < GP_ARRAY_SIZE(size_kind) - 1 && size_kind[i]; i++) {
		if (!strcmp(size_kind[i], kind)) {
			break;
		}
	}
	size_kind[i] = kind;
	size_n[i]++;
	size_b[i] += bytes;
}

static uint64_t pkt;

/*
 * Walks a Trace (field 1 packets) in data. A packet holding compressed_packets (50) is
 * inflated (zlib format) and walked in turn; it must be under 512 KiB with its framing,
 * hold nothing else, and hold no compressed packet itself.
 */
static void walk(const uint8_t *data, size_t n, int nested)
{
	size_t off = 0, hdr;

	while (off < n) {
		uint64_t tag, len;
		Perfetto__TracePacket *p;

		hdr = off;
		if (!get_varint(data, n, &off, &tag) || tag != 0x0a ||
		    !get_varint(data, n, &off, &len) || len > n - off) {
			error(pkt, "not a length-delimited field 1 at offset", off);
			return;
		}
		p = perfetto__trace_packet__unpack(NULL, len, data + off);
		cur_kind = "other";
		if (!p) {
			error(pkt, "packet does not decode", pkt);
			return;
		}
		if (p->data_case == PERFETTO__TRACE_PACKET__DATA_COMPRESSED_PACKETS) {
			inflate_packets(p, off + len - hdr, nested);
			perfetto__trace_packet__free_unpacked(p, NULL);
			off += len;
			continue;
		}
		if (!pkt && (!p->has_sequence_flags || !(p->sequence_flags & 1))) {
			error(pkt, "first packet does not clear the incremental state", 0);
		}
		if (p->interned_data) {
			take_interned(p->interned_data, pkt);
		}
		if (p->data_case == PERFETTO__TRACE_PACKET__DATA_TRACK_DESCRIPTOR) {
			cur_kind = "track";
			take_track(p->track_descriptor, pkt);
		} else if (p->data_case == PERFETTO__TRACE_PACKET__DATA_TRACK_EVENT) {
			take_event(p, pkt);
		}
		perfetto__trace_packet__free_unpacked(p, NULL);
		account(cur_kind, off + len - hdr);
		off += len;
		pkt++;
	}
}

static void inflate_packets(const Perfetto__TracePacket *p, size_t framed, int nested)
{
	uLongf cap = 1u << 20, got;
	uint8_t *out = NULL;
	int rc;

	compressed_n++;
	compressed_b += framed;
	if (nested) {
		error(pkt, "compressed packet inside a compressed packet", 0);
		return;
	}
	if (framed >= 512u << 10) {
		error(pkt, "compressed packet of 512 KiB or more", framed);
	}
	if (p->has_timestamp || p->interned_data || p->has_sequence_flags ||
	    p->has_trusted_packet_sequence_id) {
		error(pkt, "compressed packet with other fields", 0);
	}
	do {
		free(out);
		cap *= 2;
		out = malloc(cap);
		got = cap;
		rc = out ? uncompress(out, &got, p->compressed_packets.data,
				      p->compressed_packets.len) : Z_MEM_ERROR;
	} while (rc == Z_BUF_ERROR && cap < (64u << 20));
	if (rc != Z_OK) {
		error(pkt, "compressed packets do not inflate, zlib error", (uint64_t)-rc);
	} else {
		raw_b += got;
		walk(out, got, 1);
	}
	free(out);
}

int main(int argc, char **argv)
{
	FILE *f = argc == 2 ? fopen(argv[1], "rb") : NULL;
	uint8_t *data = NULL;
	size_t n = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "usage: pftrace-dump FILE (a readable file)\n");
		return 2;
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1u << 20;
			data = realloc(data, cap);
		}
		size_t k = fread(data + n, 1, cap - n, f);
		if (!k) {
			break;
		}
		n += k;
	}
	fclose(f);
	gp_u64map_init(&track_index);
	gp_u64map_init(&flows_started);
	walk(data, n, 0);
	for (size_t i = 0; i < ntracks; i++) {
		if (tracks[i].depth) {
			error(pkt, "slices left open on track", tracks[i].uuid);
		}
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(size_kind) && size_kind[i]; i++) {
		printf("bytes %s %" PRIu64 " %" PRIu64 "\n", size_kind[i], size_n[i], size_b[i]);
	}
	printf("compressed %" PRIu64 " bytes %" PRIu64 " inflated %" PRIu64 "\n", compressed_n,
	       compressed_b, raw_b);
	printf("packets %" PRIu64 " bytes %zu errors %lu\n", pkt, n, errors);
	free(data);
	return errors ? 1 : 0;
}
