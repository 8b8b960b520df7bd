/* SPDX-License-Identifier: MIT */
/*
 * ops-nvtx.c - PyTorch operators recorded as NVTX ranges (docs/ops.md).
 * Under torch.autograd.profiler.emit_nvtx() PyTorch pushes one NVTX range
 * per operator, named by torch/csrc/profiler/util.cpp getNvtxStr():
 *
 *     NAME[, seq = N][, op_id = N][, sizes = [[d, d], [], ...]][, input_op_ids = [...]]
 *
 * (the legacy profiler wrote "NAME, seq = N, sizes = [...]" the same way).
 * A range of that form becomes a CPU operator range named NAME, its sizes
 * the signature's D section ("D=[[8,4],[16],[]]", trace/FORMAT.md NVTX field
 * args); the ranges carry no data types, so analyze/op-models.c gives them
 * FLOPs but neither bytes nor a peak.
 */
#include "base/compat.h"
#include "analyze/model-internal.h"

#include <string.h>

/* Longest operator name and signature taken: anything longer is not PyTorch's. */
#define MAX_NAME 1024
#define MAX_SIG 65536
#define MAX_DIGITS 18

/* Past "lit" at p, or NULL. */
static const char *lit(const char *p, const char *s)
{
	size_t n = strlen(s);
	return strncmp(p, s, n) ? NULL : p + n;
}

/* Past a run of 1..MAX_DIGITS digits at p (appended to sig when not NULL), or NULL. */
static const char *digits(const char *p, struct gp_strbuf *sig)
{
	size_t n = 0;

	while (p[n] >= '0' && p[n] <= '9') {
		n++;
	}
	if (!n || n > MAX_DIGITS) {
		return NULL;
	}
	if (sig) {
		gp_strbuf_add(sig, p, n);
	}
	return p + n;
}

/* One shape "[d, d, ...]" or "[]" at p, appended compact; past it, or NULL. */
static const char *shape(const char *p, struct gp_strbuf *sig)
{
	if (*p != '[') {
		return NULL;
	}
	gp_strbuf_addch(sig, '[');
	p++;
	if (*p != ']') {
		for (;;) {
			p = digits(p, sig);
			if (!p || *p == ']') {
				break;
			}
			p = lit(p, ", ");
			if (!p) {
				return NULL;
			}
			gp_strbuf_addch(sig, ',');
		}
	}
	if (!p) {
		return NULL;
	}
	gp_strbuf_addch(sig, ']');
	return p + 1;
}

/* "[shape, shape, ...]" at p as the signature "D=[...]"; past it, or NULL. */
static const char *sizes(const char *p, struct gp_strbuf *sig)
{
	if (*p != '[') {
		return NULL;
	}
	gp_strbuf_adds(sig, "D=[");
	p++;
	if (*p != ']') {
		for (;;) {
			p = shape(p, sig);
			if (!p || *p == ']' || sig->len > MAX_SIG) {
				break;
			}
			p = lit(p, ", ");
			if (!p) {
				return NULL;
			}
			gp_strbuf_addch(sig, ',');
		}
	}
	if (!p || sig->len > MAX_SIG) {
		return NULL;
	}
	gp_strbuf_addch(sig, ']');
	return p + 1;
}

/* "[(id,nr), ...]" at p, the whole rest of the text; past it, or NULL. */
static const char *input_ids(const char *p)
{
	if (*p != '[') {
		return NULL;
	}
	for (p++; *p && *p != ']'; p++) {
		if (!strchr("0123456789(), ", *p)) {
			return NULL;
		}
	}
	return *p == ']' ? p + 1 : NULL;
}

/* Where the fields begin: the first ", " followed by a field's name; NULL none. */
static const char *fields_start(const char *text)
{
	static const char *const names[] = {"seq = ", "op_id = ", "sizes = "};

	for (const char *p = strstr(text, ", "); p; p = strstr(p + 1, ", ")) {
		for (size_t i = 0; i < GP_ARRAY_SIZE(names); i++) {
			if (lit(p + 2, names[i])) {
				return p;
			}
		}
	}
	return NULL;
}

int gpa_ops_nvtx_parse(const char *text, size_t *name_len, struct gp_strbuf *sig)
{
	const char *f = fields_start(text), *p, *q;

	gp_strbuf_reset(sig);
	if (!f || f == text || (size_t)(f - text) > MAX_NAME) {
		return 0;
	}
	p = f;
	if ((q = lit(p, ", seq = "))) {
		p = digits(q, NULL);
	}
	if (p && (q = lit(p, ", op_id = "))) {
		p = digits(q, NULL);
	}
	if (p && (q = lit(p, ", sizes = "))) {
		p = sizes(q, sig);
	}
	if (p && (q = lit(p, ", input_op_ids = "))) {
		p = input_ids(q);
	}
	if (sig->failed) {
		gp_strbuf_reset(sig);
		return -GP_ERR_NOMEM;
	}
	if (!p || *p) {
		gp_strbuf_reset(sig);
		return 0;
	}
	*name_len = (size_t)(f - text);
	return 1;
}

int gpa_ops_nvtx_convert(struct gpa_model *m)
{
	struct gp_strbuf sig = GP_STRBUF_INIT, name = GP_STRBUF_INIT;
	uint32_t last = GPA_NONE;
	int ret = 0, r1 = 0;
	size_t len;

	for (size_t r = 0; r < m->nvtx.n && !ret; r++) {
		/* the cheap test first: a range of a user's own name is left as it is */
		if (m->nvtx.origin[r] != GPA_RANGE_NVTX || m->nvtx.name[r] == last) {
			continue;
		}
		const char *t = gpa_model_str(m, m->nvtx.name[r]);
		if (!strstr(t, ", ") || (r1 = gpa_ops_nvtx_parse(t, &len, &sig)) <= 0) {
			ret = r1 < 0 ? r1 : 0;
			r1 = 0;
			last = m->nvtx.name[r]; /* not an operator: its repeats neither */
			continue;
		}
		gp_strbuf_reset(&name);
		gp_strbuf_add(&name, t, len); /* t moves when the table grows */
		uint32_t nid = name.failed ? GPA_NONE : gpa_model_intern(m, name.buf);
		uint32_t aid = sig.len ? gpa_model_intern(m, sig.buf) : 0;
		if (nid == GPA_NONE || aid == GPA_NONE) {
			ret = -GP_ERR_NOMEM;
			break;
		}
		if (aid && !m->nvtx.args) {
			m->nvtx.args = calloc(m->nvtx.cap ? m->nvtx.cap : 1, sizeof(*m->nvtx.args));
			if (!m->nvtx.args) {
				ret = -GP_ERR_NOMEM;
				break;
			}
		}
		if (m->nvtx.args) {
			m->nvtx.args[r] = aid;
		}
		m->nvtx.name[r] = nid;
		m->nvtx.origin[r] = GPA_RANGE_CPU_OP;
		last = GPA_NONE;
	}
	gp_strbuf_release(&sig);
	gp_strbuf_release(&name);
	return ret;
}
