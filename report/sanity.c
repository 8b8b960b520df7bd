/* SPDX-License-Identifier: MIT */
/*
 * sanity.c - implausible data (analyze/sanity.h) in a command's output: the
 * counts as a JSON object, and the warnings added to what a command printed
 * in JSON or Markdown (text and CSV have them on standard error).
 */
#include "base/compat.h"
#include "report/report.h"
#include "analyze/sanity.h"

#include <ctype.h>

void gpr_sanity_json(struct gp_strbuf *o, const struct gpa_sanity *s)
{
	gp_strbuf_addf(o,
		       "\"sanity\":{\"negative_durations\":%" PRIu64 ",\"absurd_durations\":%" PRIu64
		       ",\"absurd_max_ns\":%" PRIu64 ",\"absurd_gpu_ops_left_out\":%" PRIu64
		       ",\"outliers\":%" PRIu64 ",\"outlier_gpu_ops_left_out\":%" PRIu64
		       ",\"outlier_far_ns\":%" PRIu64 ",\"launches_without_kernels\":%" PRIu64
		       ",\"processes_without_kernels\":%u,\"duplicate_inputs\":%u"
		       ",\"duplicate_files_not_read\":%u,\"duplicate_processes\":%u}",
		       s->negative, s->absurd, s->absurd_max_ns, s->absurd_gpu, s->outliers,
		       s->outlier_gpu, s->outlier_far_ns, s->launches_without_kernels,
		       s->procs_without_kernels, s->duplicates, s->duplicate_files,
		       s->duplicate_procs);
}

struct sentences {
	struct gp_strbuf *o;
	bool md, first;
};

static int json_sentence(void *data, const char *sentence)
{
	struct sentences *w = data;

	if (!w->first) {
		gp_strbuf_addch(w->o, ',');
	}
	w->first = false;
	gp_strbuf_add_json_str(w->o, sentence, strlen(sentence));
	return 0;
}

static int md_sentence(void *data, const char *sentence)
{
	struct sentences *w = data;

	gp_strbuf_addf(w->o, "- %s\n", sentence);
	return 0;
}

/*
 * ,"sanity":{...,"warnings":[...]} before the closing brace of the JSON
 * object out holds (whole), or that out's last piece closes (!whole).
 */
static int add_json(struct gp_strbuf *out, const struct gpa_model *m, const struct gpa_sanity *s,
		    bool whole)
{
	struct gp_strbuf tail = GP_STRBUF_INIT;
	size_t end = out->len, start = 0, before;
	int ret;

	while (start < out->len && isspace((unsigned char)out->buf[start])) {
		start++;
	}
	while (end > start && isspace((unsigned char)out->buf[end - 1])) {
		end--;
	}
	if (start == end || (whole && out->buf[start] != '{') || out->buf[end - 1] != '}') {
		return 0; /* not one object (a list, lines of JSON): standard error has them */
	}
	for (before = end - 1; before > 0 && isspace((unsigned char)out->buf[before - 1]);) {
		before--;
	}
	bool empty = before > 0 && out->buf[before - 1] == '{';
	gp_strbuf_add(&tail, out->buf + end - 1, out->len - (end - 1));
	out->len = end - 1;
	out->buf[out->len] = '\0';
	gp_strbuf_adds(out, empty ? "" : ",");
	gpr_sanity_json(out, s);
	out->len--; /* the object's closing brace: the warnings go inside */
	gp_strbuf_adds(out, ",\"warnings\":[");
	struct sentences w = {out, false, true};
	ret = gpa_sanity_warnings(m, s, json_sentence, &w);
	gp_strbuf_adds(out, "]}");
	gp_strbuf_add(out, tail.buf, tail.len);
	ret = ret ? ret : (tail.failed || out->failed ? -GP_ERR_NOMEM : 0);
	gp_strbuf_release(&tail);
	return ret;
}

static int append(struct gp_strbuf *out, enum gpr_format fmt, const struct gpa_model *m, bool whole)
{
	struct gpa_sanity s;

	if (fmt != GPR_FORMAT_JSON && fmt != GPR_FORMAT_MARKDOWN) {
		return 0;
	}
	gpa_sanity_check(m, &s);
	if (!gpa_sanity_any(&s)) {
		return 0;
	}
	if (fmt == GPR_FORMAT_JSON) {
		return add_json(out, m, &s, whole);
	}
	struct sentences w = {out, true, true};
	gp_strbuf_adds(out, out->len && out->buf[out->len - 1] != '\n' ? "\n\n" : "\n");
	gp_strbuf_adds(out, "## Warnings\n\n");
	int ret = gpa_sanity_warnings(m, &s, md_sentence, &w);
	return ret ? ret : (out->failed ? -GP_ERR_NOMEM : 0);
}

int gpr_sanity_append(struct gp_strbuf *out, enum gpr_format fmt, const struct gpa_model *m)
{
	return append(out, fmt, m, true);
}

int gpr_sanity_append_end(struct gp_strbuf *out, enum gpr_format fmt, const struct gpa_model *m)
{
	return append(out, fmt, m, false);
}
