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
	gp_vec_free(&t->cflags);
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

void gpr_table_cell_as(struct gpr_table *t, unsigned flags, const char *fmt, ...)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	gp_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	gpr_table_cell(t, sb.failed ? "" : sb.buf);
	t->failed |= sb.failed;
	gp_strbuf_release(&sb);
	/* the flags of every cell so far, 0 for the untyped ones */
	while (!t->failed && t->cflags.n < t->cells.n) {
		unsigned f = t->cflags.n + 1 == t->cells.n ? flags : 0u;
		if (gp_vec_push(&t->cflags, f)) {
			t->failed = true;
		}
	}
}

/* What cell i holds beyond its column's flags. */
static unsigned cell_flags(const struct gpr_table *t, size_t i)
{
	return i < t->cflags.n ? t->cflags.v[i] : 0;
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

static void pad(struct gp_strbuf *o, size_t n)
{
	while (n--) {
		gp_strbuf_addch(o, ' ');
	}
}

/* The narrowest a shortened name gets, whatever the other columns take. */
#define NAME_MIN_WIDTH 40

/* The table as text or Markdown shows it: headers and cells (owned copies). */
struct view {
	const struct gpr_display *d; /* never NULL */
	size_t ncols, rows;
	char **head; /* ncols */
	char **cell; /* rows * ncols */
	size_t *w;   /* ncols: widest of header and cells */
};

static unsigned col_flags(const struct gpr_col *c)
{
	size_t n = strlen(c->name);

	return c->flags | (n >= 5 && !strcmp(c->name + n - 5, " (ns)") ? GPR_COL_NS : 0);
}

static void view_release(struct view *v)
{
	for (size_t i = 0; v->cell && i < v->rows * v->ncols; i++) {
		free(v->cell[i]);
	}
	for (size_t i = 0; v->head && i < v->ncols; i++) {
		free(v->head[i]);
	}
	free(v->cell);
	free(v->head);
	free(v->w);
}

/* The formatted cell (NULL when formatting it ran out of memory: never the raw value instead). */
static char *take(struct gp_strbuf *sb, bool changed, const char *orig)
{
	char *r = !changed ? strdup(orig) : sb->failed ? NULL : strdup(sb->buf ? sb->buf : "");

	gp_strbuf_release(sb);
	return r;
}

/* A NAME column's cells shortened together, so that different names stay told apart. */
static int fit_name_column(struct view *v, const struct gpr_table *t, size_t c, size_t budget)
{
	const char **names = calloc(v->rows + 1, sizeof(*names));
	char **shown = calloc(v->rows + 1, sizeof(*shown));
	int ret = -1;

	if (!names || !shown) {
		goto out;
	}
	for (size_t r = 0; r < v->rows; r++) {
		names[r] = t->cells.v[r * t->ncols + c];
	}
	if (gpr_fmt_names_fit(shown, names, v->rows, budget)) {
		goto out;
	}
	for (size_t r = 0; r < v->rows; r++) {
		char **cell = &v->cell[r * v->ncols + c];
		size_t x = gpr_text_width(shown[r]);
		free(*cell);
		*cell = shown[r];
		v->w[c] = x > v->w[c] ? x : v->w[c];
	}
	ret = 0;
out:
	free(names);
	free(shown);
	return ret;
}

static size_t digits(size_t n);

/* Cells of a NAME or ELIDE column shortened so that the line fits the display width. */
static int fit_names(struct view *v, const struct gpr_table *t, size_t c)
{
	size_t width = v->d->width, others = 2 * (v->ncols - 1), budget;

	for (size_t k = 0; k < v->ncols; k++) {
		others += k == c ? 0 : v->w[k];
	}
	/* a table that cannot fold (two columns) gives its name what is left, down to 16 */
	size_t least = v->ncols < 3 ? 16 : NAME_MIN_WIDTH;
	budget = width > others + least ? width - others : least;
	if (v->ncols >= 3 && others + v->w[c] > width) {
		/*
		 * It folds: a block holds the first column, maybe the row numbers,
		 * and at least this one: free text takes what those leave.
		 */
		size_t lead = 2 + digits(v->rows) + 2 + (c ? v->w[0] + 2 : 0), widest = 0;
		for (size_t k = 1; !c && k < v->ncols; k++) {
			widest = v->w[k] > widest ? v->w[k] : widest; /* the first column's block-mate */
		}
		lead += c ? 0 : widest;
		size_t room = width > lead + 20 ? width - lead : 20;
		budget = budget < room ? budget : room;
	}
	if (v->w[c] <= budget) {
		return 0;
	}
	v->w[c] = gpr_text_width(v->head[c]);
	if (t->cols[c].flags & GPR_COL_NAME) {
		return fit_name_column(v, t, c, budget);
	}
	for (size_t r = 0; r < v->rows; r++) {
		struct gp_strbuf sb = GP_STRBUF_INIT;
		char **cell = &v->cell[r * v->ncols + c];
		gpr_fmt_elide_words(&sb, *cell, budget); /* the cell as formatted (units) */
		free(*cell);
		if (!(*cell = take(&sb, true, ""))) {
			return -1;
		}
		size_t x = gpr_text_width(*cell);
		v->w[c] = x > v->w[c] ? x : v->w[c];
	}
	return 0;
}

static int view_init(struct view *v, const struct gpr_table *t, const struct gpr_display *d,
		     bool text)
{
	memset(v, 0, sizeof(*v));
	v->d = gpr_display_or_default(d);
	v->ncols = t->ncols;
	v->rows = gpr_table_rows(t);
	v->head = calloc(v->ncols ? v->ncols : 1, sizeof(*v->head));
	v->cell = calloc(v->rows * v->ncols + 1, sizeof(*v->cell));
	v->w = calloc(v->ncols ? v->ncols : 1, sizeof(*v->w));
	if (!v->head || !v->cell || !v->w) {
		return -1;
	}
	for (size_t c = 0; c < v->ncols; c++) {
		unsigned fl = col_flags(&t->cols[c]);
		struct gp_strbuf sb = GP_STRBUF_INIT;
		bool ch = gpr_fmt_header(&sb, v->d, t->cols[c].name, fl);
		if (!(v->head[c] = take(&sb, ch, t->cols[c].name))) {
			return -1;
		}
		v->w[c] = gpr_text_width(v->head[c]);
		for (size_t r = 0; r < v->rows; r++) {
			const char *orig = t->cells.v[r * t->ncols + c];
			ch = gpr_fmt_cell(&sb, v->d, orig, fl | cell_flags(t, r * t->ncols + c));
			if (!(v->cell[r * v->ncols + c] = take(&sb, ch, orig))) {
				return -1;
			}
			size_t x = gpr_text_width(v->cell[r * v->ncols + c]);
			v->w[c] = x > v->w[c] ? x : v->w[c];
		}
	}
	for (size_t c = 0; text && v->d->width && c < v->ncols; c++) {
		bool wide = v->d->wide;
		if ((t->cols[c].flags & (GPR_COL_NAME | GPR_COL_ELIDE)) && !wide && fit_names(v, t, c)) {
			return -1;
		}
	}
	return 0;
}

/* Whether the first column's cells, as shown, tell every row apart. */
static bool first_is_key(const struct view *v)
{
	for (size_t r = 0; r < v->rows; r++) {
		for (size_t q = r + 1; q < v->rows; q++) {
			if (!strcmp(v->cell[r * v->ncols], v->cell[q * v->ncols])) {
				return false;
			}
		}
	}
	return true;
}

/* Digits of n. */
static size_t digits(size_t n)
{
	size_t d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/*
 * Rows of the columns in idx[0..n) as aligned text, each led by its row
 * number in a "#" column numw wide when numw is not 0.
 */
static void text_block(const struct gpr_table *t, const struct view *v, const size_t *idx,
		       size_t n, size_t numw, struct gp_strbuf *o)
{
	for (size_t r = 0; r <= v->rows + 1; r++) {
		if (numw && r == 1) {
			for (size_t i = 0; i < numw; i++) {
				gp_strbuf_addch(o, '-');
			}
			gp_strbuf_adds(o, "  ");
		} else if (numw) {
			char num[32];
			snprintf(num, sizeof(num), r ? "%zu" : "#", r - 1);
			pad(o, numw - strlen(num));
			gp_strbuf_adds(o, num);
			gp_strbuf_adds(o, "  ");
		}
		for (size_t k = 0; k < n; k++) {
			size_t c = idx[k], w = v->w[c];
			bool last = k + 1 == n;
			bool right = (t->cols[c].flags & GPR_COL_NUM) && !(t->cols[c].flags & GPR_COL_LEFT);
			if (r == 1) {
				for (size_t i = 0; i < w; i++) {
					gp_strbuf_addch(o, '-');
				}
				if (!last) {
					gp_strbuf_adds(o, "  ");
				}
				continue;
			}
			const char *s = r == 0 ? v->head[c] : v->cell[(r - 2) * v->ncols + c];
			size_t x = gpr_text_width(s);
			if (right) {
				pad(o, w - x);
			}
			gp_strbuf_adds(o, s);
			if (!last) {
				if (!right) {
					pad(o, w - x);
				}
				gp_strbuf_adds(o, "  ");
			}
		}
		gp_strbuf_addch(o, '\n');
	}
}

/*
 * Aligned text. A table wider than the display folds: its columns go into
 * blocks that fit, one under the other, each led by the first column (the
 * row's key) so that every line can be read on its own.
 */
static void render_text(const struct gpr_table *t, const struct gpr_display *disp,
			struct gp_strbuf *o)
{
	const struct gpr_display *d = gpr_display_or_default(disp);
	size_t *idx = NULL, total = 0;
	struct view v;

	if (view_init(&v, t, d, true) || !(idx = calloc(t->ncols + 1, sizeof(*idx)))) {
		view_release(&v);
		o->failed = true;
		return;
	}
	for (size_t c = 0; c < t->ncols; c++) {
		total += v.w[c] + (c ? 2 : 0);
		idx[c] = c;
	}
	if (!d->width || d->wide || total <= d->width || t->ncols < 3) {
		text_block(t, &v, idx, t->ncols, 0, o);
	} else {
		/* rows the first column does not tell apart are numbered in every block */
		size_t numw = first_is_key(&v) ? 0 : digits(v.rows);
		size_t lead = v.w[0] + (numw ? numw + 2 : 0);
		for (size_t c = 1; c < t->ncols;) {
			size_t n = 1, used = lead;
			while (c < t->ncols && (n == 1 || used + 2 + v.w[c] <= d->width)) {
				used += 2 + v.w[c];
				idx[n++] = c++;
			}
			if (idx[1] != 1) {
				gp_strbuf_addch(o, '\n');
			}
			text_block(t, &v, idx, n, numw, o);
		}
	}
	free(idx);
	view_release(&v);
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
			if (!t->cols[c].json) {
				GP_BUG("table column '%s' has no JSON key", t->cols[c].name);
			}
			gp_strbuf_add_json_str(o, t->cols[c].json, strlen(t->cols[c].json));
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

static void render_md(const struct gpr_table *t, const struct gpr_display *d, struct gp_strbuf *o)
{
	struct view v;
	size_t rows = gpr_table_rows(t);

	if (view_init(&v, t, d, false)) {
		view_release(&v);
		o->failed = true;
		return;
	}
	for (size_t r = 0; r <= rows + 1; r++) {
		gp_strbuf_addch(o, '|');
		for (size_t c = 0; c < t->ncols; c++) {
			if (r == 1) {
				gp_strbuf_adds(o, (t->cols[c].flags & GPR_COL_NUM) ? " ---: |" : " --- |");
				continue;
			}
			gp_strbuf_addch(o, ' ');
			md_cell(o, r == 0 ? v.head[c] : v.cell[(r - 2) * v.ncols + c]);
			gp_strbuf_adds(o, " |");
		}
		gp_strbuf_addch(o, '\n');
	}
	view_release(&v);
}

int gpr_table_render(const struct gpr_table *t, enum gpr_format fmt, const struct gpr_display *d,
		     struct gp_strbuf *out)
{
	if (t->failed || (t->ncols && t->cells.n % t->ncols)) {
		return t->failed ? -GP_ERR_NOMEM : -GP_ERR_API;
	}
	switch (fmt) {
	case GPR_FORMAT_TEXT:
		render_text(t, d, out);
		break;
	case GPR_FORMAT_CSV:
		render_csv(t, out);
		break;
	case GPR_FORMAT_JSON:
		render_json(t, out);
		break;
	case GPR_FORMAT_MARKDOWN:
		render_md(t, d, out);
		break;
	}
	return out->failed ? -GP_ERR_NOMEM : 0;
}

int gpr_table_section(struct gpr_table *t, enum gpr_format fmt, const struct gpr_display *d,
		      const char *title, const char *key, bool first, struct gp_strbuf *out)
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
	ret = gpr_table_render(t, fmt, d, out);
	gpr_table_release(t);
	return ret;
}
