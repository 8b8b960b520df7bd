/* SPDX-License-Identifier: MIT */
/*
 * table.c - one table layout, four renderings (text, CSV, JSON, Markdown).
 */
#include "base/compat.h"
#include "report/report.h"

int gpr_format_parse(const char *name)
{
	if (!strcmp(name, "text") || !strcmp(name, "table")) {
		return GPR_FORMAT_TEXT;
	}
	if (!strcmp(name, "json")) {
		return GPR_FORMAT_JSON;
	}
	if (!strcmp(name, "csv")) {
		return GPR_FORMAT_CSV;
	}
	if (!strcmp(name, "markdown") || !strcmp(name, "md")) {
		return GPR_FORMAT_MARKDOWN;
	}
	return -1;
}

void gpr_table_init(struct gpr_table *t, const struct gpr_col *cols, size_t ncols)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->ncols = ncols;
}

void gpr_table_release(struct gpr_table *t)
{
	for (size_t i = 0; i < t->cells.n; i++) {
		free(t->cells.v[i]);
	}
	gp_vec_free(&t->cells);
}

void gpr_table_cell(struct gpr_table *t, const char *s)
{
	char *c = strdup(s ? s : "");

	if (!c || gp_vec_push(&t->cells, c)) {
		free(c);
		t->failed = true;
	}
}

void gpr_table_cellf(struct gpr_table *t, const char *fmt, ...)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	gp_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (sb.failed) {
		t->failed = true;
		gp_strbuf_release(&sb);
		return;
	}
	gpr_table_cell(t, sb.buf);
	gp_strbuf_release(&sb);
}

void gpr_table_cell_pct(struct gpr_table *t, uint64_t num, uint64_t den)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;

	gpr_fmt_pct(&sb, num, den);
	if (sb.failed) {
		t->failed = true;
	}
	gpr_table_cell(t, sb.buf);
	gp_strbuf_release(&sb);
}

size_t gpr_table_rows(const struct gpr_table *t)
{
	return t->ncols ? t->cells.n / t->ncols : 0;
}

/* Display width of UTF-8 text: code points (good enough for names). */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++) {
		w += ((unsigned char)*s & 0xc0) != 0x80;
	}
	return w;
}

static void pad(struct gp_strbuf *o, size_t n)
{
	while (n--) {
		gp_strbuf_addch(o, ' ');
	}
}

static void render_text(const struct gpr_table *t, struct gp_strbuf *o)
{
	size_t rows = gpr_table_rows(t);
	size_t *w = calloc(t->ncols, sizeof(*w));

	if (!w) {
		o->failed = true;
		return;
	}
	for (size_t c = 0; c < t->ncols; c++) {
		w[c] = width(t->cols[c].name);
		for (size_t r = 0; r < rows; r++) {
			size_t x = width(t->cells.v[r * t->ncols + c]);
			w[c] = x > w[c] ? x : w[c];
		}
	}
	for (size_t r = 0; r <= rows + 1; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			bool last = c + 1 == t->ncols;
			bool right = (t->cols[c].flags & GPR_COL_NUM) && !(t->cols[c].flags & GPR_COL_LEFT);
			if (r == 1) {
				for (size_t k = 0; k < w[c]; k++) {
					gp_strbuf_addch(o, '-');
				}
				if (!last) {
					gp_strbuf_adds(o, "  ");
				}
				continue;
			}
			const char *s = r == 0 ? t->cols[c].name : t->cells.v[(r - 2) * t->ncols + c];
			size_t x = width(s);
			if (right) {
				pad(o, w[c] - x);
			}
			gp_strbuf_adds(o, s);
			if (!last) {
				if (!right) {
					pad(o, w[c] - x);
				}
				gp_strbuf_adds(o, "  ");
			}
		}
		gp_strbuf_addch(o, '\n');
	}
	free(w);
}

static void csv_cell(struct gp_strbuf *o, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		gp_strbuf_adds(o, s);
		return;
	}
	gp_strbuf_addch(o, '"');
	for (; *s; s++) {
		if (*s == '"') {
			gp_strbuf_addch(o, '"');
		}
		gp_strbuf_addch(o, *s);
	}
	gp_strbuf_addch(o, '"');
}

static void render_csv(const struct gpr_table *t, struct gp_strbuf *o)
{
	size_t rows = gpr_table_rows(t);

	for (size_t r = 0; r <= rows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			if (c) {
				gp_strbuf_addch(o, ',');
			}
			csv_cell(o, r == 0 ? t->cols[c].name : t->cells.v[(r - 1) * t->ncols + c]);
		}
		gp_strbuf_addch(o, '\n'); /* LF line ends, as nsys writes on Linux */
	}
}

static void render_json(const struct gpr_table *t, struct gp_strbuf *o)
{
	size_t rows = gpr_table_rows(t);

	gp_strbuf_addch(o, '[');
	for (size_t r = 0; r < rows; r++) {
		gp_strbuf_adds(o, r ? ",{" : "{");
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = t->cells.v[r * t->ncols + c];
			if (c) {
				gp_strbuf_addch(o, ',');
			}
			gp_strbuf_add_json_str(o, t->cols[c].name, strlen(t->cols[c].name));
			gp_strbuf_addch(o, ':');
			if (t->cols[c].flags & GPR_COL_NUM) {
				gp_strbuf_adds(o, *s ? s : "null");
			} else {
				gp_strbuf_add_json_str(o, s, strlen(s));
			}
		}
		gp_strbuf_addch(o, '}');
	}
	gp_strbuf_addch(o, ']');
}

static void md_cell(struct gp_strbuf *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '\\' || *s == '`' || *s == '*' || *s == '_' || *s == '<') {
			gp_strbuf_addch(o, '\\');
		}
		gp_strbuf_addch(o, *s == '\n' ? ' ' : *s);
	}
}

static void render_md(const struct gpr_table *t, struct gp_strbuf *o)
{
	size_t rows = gpr_table_rows(t);

	for (size_t r = 0; r <= rows + 1; r++) {
		gp_strbuf_addch(o, '|');
		for (size_t c = 0; c < t->ncols; c++) {
			if (r == 1) {
				gp_strbuf_adds(o, (t->cols[c].flags & GPR_COL_NUM) ? " ---: |" : " --- |");
				continue;
			}
			gp_strbuf_addch(o, ' ');
			md_cell(o, r == 0 ? t->cols[c].name : t->cells.v[(r - 2) * t->ncols + c]);
			gp_strbuf_adds(o, " |");
		}
		gp_strbuf_addch(o, '\n');
	}
}

int gpr_table_render(const struct gpr_table *t, enum gpr_format fmt, struct gp_strbuf *out)
{
	if (t->failed || (t->ncols && t->cells.n % t->ncols)) {
		return t->failed ? -GP_ERR_NOMEM : -GP_ERR_API;
	}
	switch (fmt) {
	case GPR_FORMAT_TEXT:
		render_text(t, out);
		break;
	case GPR_FORMAT_CSV:
		render_csv(t, out);
		break;
	case GPR_FORMAT_JSON:
		render_json(t, out);
		break;
	case GPR_FORMAT_MARKDOWN:
		render_md(t, out);
		break;
	}
	return out->failed ? -GP_ERR_NOMEM : 0;
}

int gpr_table_section(struct gpr_table *t, enum gpr_format fmt, const char *title,
		      const char *key, bool first, struct gp_strbuf *out)
{
	int ret;

	switch (fmt) {
	case GPR_FORMAT_TEXT:
		gp_strbuf_addf(out, "\n%s\n\n", title);
		break;
	case GPR_FORMAT_MARKDOWN:
		gp_strbuf_addf(out, "\n### %s\n\n", title);
		break;
	case GPR_FORMAT_JSON:
		gp_strbuf_addf(out, ",\n\"%s\":", key);
		break;
	case GPR_FORMAT_CSV:
		if (!first) {
			gp_strbuf_addch(out, '\n');
		}
		break;
	}
	ret = gpr_table_render(t, fmt, out);
	gpr_table_release(t);
	return ret;
}
