/* SPDX-License-Identifier: MIT */
/*
 * sink-info.c - the text and JSON sinks, and how they render file info.
 */
#include "base/compat.h"
#include "analyze/file-info.h"
#include "report/report.h"

struct text_sink {
	struct gpr_sink base;
};

struct json_sink {
	struct gpr_sink base;
};

/* ---- text */

static void text_begin(struct gpr_sink *s)
{
	(void)s;
}

static void row(struct gp_strbuf *o, const char *label)
{
	gp_strbuf_addf(o, "  %-10s  ", label);
}


/* CUDA, CUPTI and gpuprof versions; what the trace does not hold is "unknown". */
static void versions_text(struct gp_strbuf *o, const struct gpa_file_info *fi)
{
	row(o, "versions");
	if (!fi->process.driver_version && !fi->process.runtime_version &&
	    !fi->process.cupti_version && !fi->process.gpuprof_version[0]) {
		gp_strbuf_adds(o, "unknown (none in the trace)\n");
		return;
	}
	gp_strbuf_adds(o, "CUDA driver ");
	gpr_fmt_cuda_version(o, fi->process.driver_version);
	gp_strbuf_adds(o, ", runtime ");
	gpr_fmt_cuda_version(o, fi->process.runtime_version);
	if (fi->process.cupti_version) {
		gp_strbuf_addf(o, ", CUPTI %" PRIu32, fi->process.cupti_version);
	} else {
		gp_strbuf_adds(o, ", CUPTI unknown");
	}
	gp_strbuf_addf(o, ", gpuprof %s\n",
		       fi->process.gpuprof_version[0] ? fi->process.gpuprof_version : "unknown");
}

/* Each device and its properties ("unknown" where the trace has none). */
static void devices_text(struct gp_strbuf *o, const struct gpa_file_info *fi)
{
	if (!fi->devices.n) {
		row(o, "devices");
		if (!fi->work_devs.n) {
			gp_strbuf_adds(o, "none\n");
			return;
		}
		for (size_t i = 0; i < fi->work_devs.n; i++) {
			gp_strbuf_addf(o, "%s%" PRIu32, i ? ", " : "", fi->work_devs.v[i]);
		}
		gp_strbuf_adds(o, ": named by GPU records; the trace holds no device properties\n");
		return;
	}
	for (size_t i = 0; i < fi->devices.n; i++) {
		const struct gpa_device_info *d = &fi->devices.v[i];
		row(o, i ? "" : "devices");
		gp_strbuf_addf(o, "%" PRIu32 ": %s", d->id, d->name[0] ? d->name : "unnamed");
		if (d->cc_major) {
			gp_strbuf_addf(o, ", cc %u.%u", d->cc_major, d->cc_minor);
		}
		if (d->num_sms) {
			gp_strbuf_addf(o, ", %" PRIu32 " SMs", d->num_sms);
		}
		if (d->global_mem_bytes) {
			gp_strbuf_adds(o, ", ");
			gpr_fmt_bytes(o, d->global_mem_bytes);
		}
		if (d->global_mem_bw_kbps) {
			gp_strbuf_addf(o, ", %.1f GB/s", (double)d->global_mem_bw_kbps * 1e3 / 1e9);
		} else {
			gp_strbuf_adds(o, ", memory bandwidth unknown");
		}
		if (!d->cc_major || !d->num_sms || !d->global_mem_bytes) {
			gp_strbuf_adds(o, " (other properties not in the trace)");
		}
		gp_strbuf_addch(o, '\n');
	}
}

static void text_file_info(struct gpr_sink *s, const struct gpa_file_info *fi)
{
	struct gp_strbuf *o = s->out;
	const struct gpr_display *d = gpr_display_or_default(s->display);
	size_t from;

	if (s->items++) {
		gp_strbuf_addch(o, '\n');
	}
	gpr_fmt_elide(o, fi->path, d->wide ? 0 : d->width);
	gp_strbuf_addch(o, '\n');
	from = o->len;
	const char *src = gpa_file_info_source(fi);
	if (strcmp(src, "gpz")) {
		row(o, "source");
		gp_strbuf_addf(o, "%s, imported: what follows is of the converted trace\n",
			       !strcmp(src, "kineto") ? "PyTorch profiler (Kineto) JSON"
			       : !strcmp(src, "nsys") ? "Nsight Systems SQLite export"
						      : src);
	}
	row(o, "format");
	gp_strbuf_addf(o, "%u.%u, ", fi->major, fi->minor);
	gpr_fmt_bytes(o, fi->file_bytes);
	gp_strbuf_addf(o, " (%" PRIu64 " bytes), %" PRIu64 " chunks, %" PRIu64 " strings, ",
		       fi->file_bytes, fi->chunks, fi->strings);
	gp_strbuf_adds(o, fi->has_footer ? "closed cleanly\n" : "not closed cleanly\n");
	if (fi->has_process) {
		row(o, "process");
		gp_strbuf_addf(o, "pid %" PRIu32 " on %s: %s\n", fi->process.pid,
			       fi->process.host[0] ? fi->process.host : "an unnamed host",
			       fi->process.cmdline[0] ? fi->process.cmdline
			       : fi->process.exe[0]   ? fi->process.exe
						      : "(no command line in the trace)");
		if (fi->process.rank >= 0 && fi->process.world_size > 0) {
			row(o, "rank");
			gp_strbuf_addf(o, "%" PRId32 " of %" PRId32 " (local %" PRId32 ", %s)\n",
				       fi->process.rank, fi->process.world_size,
				       fi->process.local_rank, fi->process.launcher);
		}
		versions_text(o, fi);
		if (fi->process.status[0]) {
			row(o, "status");
			gp_strbuf_addf(o, "%s\n", fi->process.status);
		}
		if (fi->process.has_exit) {
			row(o, "exit");
			if (fi->process.exit_status < 0) {
				gp_strbuf_adds(o, "unknown (the process ended through exit())\n");
			} else {
				gp_strbuf_addf(o, "%" PRId32 "\n", fi->process.exit_status);
			}
		}
	} else {
		row(o, "process");
		gp_strbuf_adds(o, "unknown (no process record)\n");
	}
	devices_text(o, fi);
	row(o, "span");
	if (fi->has_span) {
		gpr_fmt_ns(o, d, fi->last_ts - fi->first_ts);
		/* The clock's own readings only where exact ns are asked for (and in --json). */
		if (d->exact) {
			gp_strbuf_addf(o, " (%" PRIu64 " to %" PRIu64 " ns on the trace clock)",
				       fi->first_ts, fi->last_ts);
		}
		gp_strbuf_addch(o, '\n');
	} else {
		gp_strbuf_adds(o, "none (no timed records)\n");
	}
	row(o, "events");
	gpr_fmt_count(o, fi->events);
	gp_strbuf_addch(o, '\n');
	row(o, "records");
	bool any = false;
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		const char *kn = gpa_kind_name(k);
		if (!kn || !fi->records[k]) {
			continue;
		}
		gp_strbuf_addf(o, "%s%s ", any ? ", " : "", kn);
		gpr_fmt_count(o, fi->records[k]);
		any = true;
	}
	gp_strbuf_adds(o, any ? "\n" : "none\n");
	row(o, "losses");
	if (!fi->loss_total && !fi->has_footer) {
		/* the final counts are written at close: a file cut short may have lost more */
		gp_strbuf_adds(o, "unknown (no footer: the trace was cut short)");
	} else if (!fi->loss_total) {
		gp_strbuf_adds(o, "none");
	} else {
		any = false;
		for (unsigned c = 0; c < GPT_LOSS__MAX; c++) {
			if (fi->losses[c]) {
				gp_strbuf_addf(o, "%s%s ", any ? ", " : "", gpa_loss_cause_name(c));
				gpr_fmt_count(o, fi->losses[c]);
				any = true;
			}
		}
		if (!fi->has_footer) {
			gp_strbuf_adds(o, "; more may be lost (no footer: the trace was cut short)");
		}
	}
	if (fi->overhead_union_ns) {
		/* the time under some overhead record: records of several threads overlap */
		gp_strbuf_adds(o, "; profiler overhead ");
		gpr_fmt_ns(o, d, fi->overhead_union_ns);
	}
	gp_strbuf_addch(o, '\n');
	row(o, "integrity");
	if (!fi->truncated && !fi->problem_count) {
		gp_strbuf_adds(o, "ok\n");
	} else {
		if (fi->truncated) {
			gp_strbuf_addf(o, "truncated at offset %" PRIu64 "%s", fi->truncated_at,
				       fi->problem_count ? "; " : "");
		}
		if (fi->problem_count) {
			gp_strbuf_addf(o, "%" PRIu64 " corrupt chunk%s skipped", fi->problem_count,
				       fi->problem_count == 1 ? "" : "s");
		}
		gp_strbuf_addch(o, '\n');
		for (size_t i = 0; i < fi->problems.n; i++) {
			row(o, "");
			gp_strbuf_addf(o, "chunk %" PRIu32 " at offset %" PRIu64 ": %s\n",
				       fi->problems.v[i].chunk_index, fi->problems.v[i].offset,
				       fi->problems.v[i].reason);
		}
	}
	/* Long lines (records, command lines) wrap under their value column. */
	gpr_text_wrap_lines(o, d, from, 14);
}

static void text_end(struct gpr_sink *s)
{
	(void)s;
}

static const struct gpr_sink_ops text_ops = {
	.name = "text",
	.begin = text_begin,
	.file_info = text_file_info,
	.end = text_end,
};

/* ---- JSON: one document, {"files": [...]} */

static void jstr(struct gp_strbuf *o, const char *key, const char *v)
{
	gp_strbuf_add_json_str(o, key, strlen(key));
	gp_strbuf_addch(o, ':');
	gp_strbuf_add_json_str(o, v ? v : "", v ? strlen(v) : 0);
}

static void ju64(struct gp_strbuf *o, const char *key, uint64_t v)
{
	gp_strbuf_add_json_str(o, key, strlen(key));
	gp_strbuf_addf(o, ":%" PRIu64, v);
}

static void ji64(struct gp_strbuf *o, const char *key, int64_t v)
{
	gp_strbuf_add_json_str(o, key, strlen(key));
	gp_strbuf_addf(o, ":%" PRId64, v);
}

static void jbool(struct gp_strbuf *o, const char *key, bool v)
{
	gp_strbuf_add_json_str(o, key, strlen(key));
	gp_strbuf_adds(o, v ? ":true" : ":false");
}

static void json_begin(struct gpr_sink *s)
{
	gp_strbuf_adds(s->out, "{\"schema\":\"gpuprof-info/2\",\"files\":[");
}

static void json_file_info(struct gpr_sink *s, const struct gpa_file_info *fi)
{
	struct gp_strbuf *o = s->out;

	if (s->items++) {
		gp_strbuf_addch(o, ',');
	}
	gp_strbuf_addch(o, '{');
	jstr(o, "path", fi->path);
	gp_strbuf_addch(o, ',');
	jstr(o, "source", gpa_file_info_source(fi));
	gp_strbuf_addf(o, ",\"format\":\"%u.%u\",", fi->major, fi->minor);
	ju64(o, "file_bytes", fi->file_bytes);
	gp_strbuf_addch(o, ',');
	ju64(o, "chunks", fi->chunks);
	gp_strbuf_addch(o, ',');
	ju64(o, "strings", fi->strings);
	gp_strbuf_addch(o, ',');
	jbool(o, "closed_cleanly", fi->has_footer);
	gp_strbuf_addch(o, ',');
	jbool(o, "truncated", fi->truncated);
	if (fi->truncated) {
		gp_strbuf_addch(o, ',');
		ju64(o, "truncated_at", fi->truncated_at);
	}
	gp_strbuf_adds(o, ",\"process\":");
	if (fi->has_process) {
		gp_strbuf_addch(o, '{');
		ju64(o, "pid", fi->process.pid);
		gp_strbuf_addch(o, ',');
		ju64(o, "ppid", fi->process.ppid);
		gp_strbuf_addch(o, ',');
		jstr(o, "host", fi->process.host);
		gp_strbuf_addch(o, ',');
		jstr(o, "exe", fi->process.exe);
		gp_strbuf_addch(o, ',');
		jstr(o, "cmdline", fi->process.cmdline);
		gp_strbuf_addch(o, ',');
		ji64(o, "rank", fi->process.rank);
		gp_strbuf_addch(o, ',');
		ji64(o, "local_rank", fi->process.local_rank);
		gp_strbuf_addch(o, ',');
		ji64(o, "world_size", fi->process.world_size);
		gp_strbuf_addch(o, ',');
		jstr(o, "launcher", fi->process.launcher);
		gp_strbuf_addch(o, ',');
		ju64(o, "cuda_driver_version", fi->process.driver_version);
		gp_strbuf_addch(o, ',');
		ju64(o, "cuda_runtime_version", fi->process.runtime_version);
		gp_strbuf_addch(o, ',');
		ju64(o, "cupti_version", fi->process.cupti_version);
		gp_strbuf_addch(o, ',');
		ju64(o, "nccl_version", fi->process.nccl_version);
		gp_strbuf_addch(o, ',');
		jstr(o, "gpuprof_version", fi->process.gpuprof_version);
		gp_strbuf_addch(o, ',');
		jstr(o, "settings", fi->process.settings);
		gp_strbuf_addch(o, ',');
		jstr(o, "status", fi->process.status);
		if (fi->process.has_exit) {
			gp_strbuf_addch(o, ',');
			ji64(o, "exit_status", fi->process.exit_status);
		}
		gp_strbuf_addch(o, '}');
	} else {
		gp_strbuf_adds(o, "null");
	}
	gp_strbuf_adds(o, ",\"devices\":[");
	for (size_t i = 0; i < fi->devices.n; i++) {
		const struct gpa_device_info *d = &fi->devices.v[i];
		gp_strbuf_adds(o, i ? ",{" : "{");
		ju64(o, "id", d->id);
		gp_strbuf_addch(o, ',');
		jstr(o, "name", d->name);
		gp_strbuf_addf(o, ",\"compute_capability\":\"%u.%u\",", d->cc_major, d->cc_minor);
		ju64(o, "sms", d->num_sms);
		gp_strbuf_addch(o, ',');
		ju64(o, "memory_bytes", d->global_mem_bytes);
		gp_strbuf_addch(o, ',');
		ju64(o, "memory_bandwidth_kbps", d->global_mem_bw_kbps);
		gp_strbuf_addch(o, '}');
	}
	gp_strbuf_adds(o, "],\"work_devices\":[");
	for (size_t i = 0; i < fi->work_devs.n; i++) {
		gp_strbuf_addf(o, "%s%" PRIu32, i ? "," : "", fi->work_devs.v[i]);
	}
	gp_strbuf_adds(o, "],");
	if (fi->has_span) {
		ju64(o, "first_ns", fi->first_ts);
		gp_strbuf_addch(o, ',');
		ju64(o, "last_ns", fi->last_ts);
		gp_strbuf_addch(o, ',');
		ju64(o, "span_ns", fi->last_ts - fi->first_ts);
		gp_strbuf_addch(o, ',');
	}
	ju64(o, "events", fi->events);
	gp_strbuf_adds(o, ",\"records\":{");
	bool any = false;
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		const char *kn = gpa_kind_name(k);
		if (kn && fi->records[k]) {
			if (any) {
				gp_strbuf_addch(o, ',');
			}
			ju64(o, kn, fi->records[k]);
			any = true;
		}
	}
	gp_strbuf_adds(o, "},\"losses\":{");
	any = false;
	for (unsigned c = 0; c < GPT_LOSS__MAX; c++) {
		if (fi->losses[c]) {
			if (any) {
				gp_strbuf_addch(o, ',');
			}
			gpr_json_key(o, gpa_loss_cause_name(c), ""); /* "cupti_dropped" */
			gp_strbuf_addf(o, "%" PRIu64, fi->losses[c]);
			any = true;
		}
	}
	gp_strbuf_adds(o, "},");
	jbool(o, "losses_known", fi->has_footer); /* cut short: more may be lost */
	gp_strbuf_addch(o, ',');
	ju64(o, "overhead_ns", fi->overhead_ns);
	gp_strbuf_addch(o, ',');
	ju64(o, "overhead_union_ns", fi->overhead_union_ns);
	gp_strbuf_addch(o, ',');
	ju64(o, "corrupt_chunks", fi->problem_count);
	gp_strbuf_adds(o, ",\"problems\":[");
	for (size_t i = 0; i < fi->problems.n; i++) {
		gp_strbuf_adds(o, i ? ",{" : "{");
		ju64(o, "chunk", fi->problems.v[i].chunk_index);
		gp_strbuf_addch(o, ',');
		ju64(o, "offset", fi->problems.v[i].offset);
		gp_strbuf_addch(o, ',');
		jstr(o, "error", gp_err_str(fi->problems.v[i].err));
		gp_strbuf_addch(o, ',');
		jstr(o, "reason", fi->problems.v[i].reason);
		gp_strbuf_addch(o, '}');
	}
	gp_strbuf_adds(o, "]}");
}

static void json_end(struct gpr_sink *s)
{
	gp_strbuf_adds(s->out, "]}\n");
}

static const struct gpr_sink_ops json_ops = {
	.name = "json",
	.begin = json_begin,
	.file_info = json_file_info,
	.end = json_end,
};

int gpr_sink_new(enum gpr_format fmt, const struct gpr_display *d, struct gp_strbuf *out,
		 struct gpr_sink **sink)
{
	*sink = NULL;
	switch (fmt) {
	case GPR_FORMAT_TEXT: {
		struct text_sink *t = calloc(1, sizeof(*t));
		if (!t) {
			return -GP_ERR_NOMEM;
		}
		t->base.ops = &text_ops;
		t->base.out = out;
		t->base.display = d;
		*sink = &t->base;
		return 0;
	}
	case GPR_FORMAT_JSON: {
		struct json_sink *j = calloc(1, sizeof(*j));
		if (!j) {
			return -GP_ERR_NOMEM;
		}
		j->base.ops = &json_ops;
		j->base.out = out;
		j->base.display = d;
		*sink = &j->base;
		return 0;
	}
	default:
		return -GP_ERR_API;
	}
}

void gpr_sink_free(struct gpr_sink *s)
{
	free(s);
}
