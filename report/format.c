/* SPDX-License-Identifier: MIT */
/*
 * format.c - how numbers and names read in text and Markdown: the one place
 * that decides units, separators and how a long kernel name is shortened.
 * CSV and JSON never come here: they keep exact integers and whole names.
 */
#include "base/compat.h"
#include "report/report.h"

#include <ctype.h>
#include <math.h>

/* What a NULL display means: scaled units, names whole, no width. */
static const struct gpr_display default_display;

const struct gpr_display *gpr_display_or_default(const struct gpr_display *d)
{
	return d ? d : &default_display;
}

/* v (>= 0) in unit u of names[]: 4 significant digits under 10, else one decimal. */
static void scaled(struct gp_strbuf *sb, double v, const char *const *names, const double *div,
		   size_t nunits)
{
	size_t u = 0;

	while (u + 1 < nunits && v >= div[u + 1]) {
		u++;
	}
	for (;;) {
		double x = v / div[u];
		double r3 = round(x * 1000) / 1000, r1 = round(x * 10) / 10;
		if (r3 < 10) {
			gp_strbuf_addf(sb, "%.3f %s", r3, names[u]);
			return;
		}
		if (r1 < 1000 || u + 1 == nunits) {
			gp_strbuf_addf(sb, "%.1f %s", r1, names[u]);
			return;
		}
		u++; /* 999.96 rounds up into the next unit */
	}
}

void gpr_fmt_time_human(struct gp_strbuf *sb, double ns)
{
	static const char *const names[] = {"ns", "\xc2\xb5s", "ms", "s"};
	static const double div[] = {1, 1e3, 1e6, 1e9};

	if (ns < 0) {
		gp_strbuf_addch(sb, '-');
		ns = -ns;
	}
	if (ns < 999.5) {
		gp_strbuf_addf(sb, "%.0f ns", ns);
		return;
	}
	scaled(sb, ns, names + 1, div + 1, 3);
}

/* The unit name of a fixed --timeunit, and its decimals (exact to the ns). */
static const char *fixed_unit(uint64_t scale, int *decimals)
{
	*decimals = scale == 1000 ? 3 : scale == 1000000 ? 6 : 9;
	return scale == 1000 ? "us" : scale == 1000000 ? "ms" : "s";
}

/* ns in the fixed unit, exact: 1234567 in ms is "1.234567". */
static void fixed_value(struct gp_strbuf *sb, uint64_t ns, uint64_t scale, bool neg)
{
	int dec;

	(void)fixed_unit(scale, &dec);
	gp_strbuf_addf(sb, "%s%" PRIu64 ".%0*" PRIu64, neg ? "-" : "", ns / scale, dec, ns % scale);
}

void gpr_fmt_ns(struct gp_strbuf *sb, const struct gpr_display *d, uint64_t ns)
{
	static const char *const names[] = {"\xc2\xb5s", "ms", "s"};
	static const uint64_t div[] = {1000, 1000000, 1000000000};
	const struct gpr_display *display = gpr_display_or_default(d);
	int dec;

	if (display->scale) {
		fixed_value(sb, ns, display->scale, false);
		gp_strbuf_addf(sb, " %s", fixed_unit(display->scale, &dec));
		return;
	}
	if (display->exact) {
		gp_strbuf_addf(sb, "%" PRIu64 " ns", ns);
		return;
	}
	for (size_t u = GP_ARRAY_SIZE(div); u-- > 0;) {
		if (ns >= div[u] && ns < 1000 * div[u] && ns % div[u] == 0) {
			/* A round figure in a sentence: "5 µs", not "5.000 µs". */
			gp_strbuf_addf(sb, "%" PRIu64 " %s", ns / div[u], names[u]);
			return;
		}
	}
	gpr_fmt_time_human(sb, (double)ns);
}

void gpr_fmt_secs(struct gp_strbuf *sb, uint64_t ns)
{
	gp_strbuf_addf(sb, "%" PRIu64 ".%09" PRIu64 " s", ns / 1000000000u, ns % 1000000000u);
}

void gpr_fmt_bytes(struct gp_strbuf *sb, uint64_t b)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double v = (double)b;
	int u = -1;

	if (b < 1024) {
		gp_strbuf_addf(sb, "%" PRIu64 " B", b);
		return;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	gp_strbuf_addf(sb, "%.2f %s", v, units[u]);
}

void gpr_fmt_flops(struct gp_strbuf *sb, double f)
{
	static const char *const names[] = {"kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"};
	static const double div[] = {1e3, 1e6, 1e9, 1e12, 1e15, 1e18};

	if (!(f >= 0)) {
		gp_strbuf_adds(sb, "-");
		return;
	}
	if (f < 999.5) {
		gp_strbuf_addf(sb, "%.0f FLOP", f);
		return;
	}
	scaled(sb, f, names, div, GP_ARRAY_SIZE(div));
}

void gpr_fmt_count(struct gp_strbuf *sb, uint64_t n)
{
	char digits[32];
	int len = snprintf(digits, sizeof(digits), "%" PRIu64, n);

	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0) {
			gp_strbuf_addch(sb, ',');
		}
		gp_strbuf_addch(sb, digits[i]);
	}
}

void gpr_fmt_counted(struct gp_strbuf *sb, uint64_t n, const char *one, const char *many)
{
	gpr_fmt_count(sb, n);
	gp_strbuf_addf(sb, " %s", n == 1 ? one : many);
}

void gpr_fmt_cuda_version(struct gp_strbuf *sb, uint32_t v)
{
	if (!v) {
		gp_strbuf_adds(sb, "unknown");
		return;
	}
	gp_strbuf_addf(sb, "%" PRIu32 ".%" PRIu32, v / 1000, (v % 1000) / 10);
}

void gpr_json_key(struct gp_strbuf *sb, const char *name, const char *suffix)
{
	gp_strbuf_addch(sb, '"');
	for (; *name; name++) {
		gp_strbuf_addch(sb, *name == '-' ? '_' : *name);
	}
	gp_strbuf_addf(sb, "%s\":", suffix);
}

void gpr_fmt_pct(struct gp_strbuf *sb, uint64_t num, uint64_t den)
{
	if (!den) {
		return;
	}
	unsigned __int128 x = ((unsigned __int128)num * 20000 + den) / ((unsigned __int128)den * 2);
	gp_strbuf_addf(sb, "%" PRIu64 ".%02" PRIu64, (uint64_t)(x / 100), (uint64_t)(x % 100));
}

/* ---- a table cell for people */

/* A number cell: digits with an optional sign and fraction; false for anything else. */
static bool number_cell(const char *s, double *v, bool *integer)
{
	const char *p = s + (*s == '-');
	char *end;

	if (!isdigit((unsigned char)*p)) {
		return false;
	}
	*integer = !strpbrk(p, ".eE");
	*v = strtod(s, &end);
	return !*end;
}

bool gpr_fmt_cell(struct gp_strbuf *sb, const struct gpr_display *d, const char *cell,
		  unsigned flags)
{
	const struct gpr_display *display = gpr_display_or_default(d);
	double v;
	bool integer;

	if (!(flags & (GPR_COL_NS | GPR_COL_COUNT | GPR_COL_BYTES | GPR_COL_FLOPS)) ||
	    !number_cell(cell, &v, &integer)) {
		return false;
	}
	v *= (flags & GPR_COL_E6) ? 1e6 : (flags & GPR_COL_E9) ? 1e9 : 1;
	if (flags & GPR_COL_FLOPS) {
		gpr_fmt_flops(sb, v);
		return true;
	}
	if ((flags & GPR_COL_BYTES) && v >= 0 && v < 1.8e19) {
		gpr_fmt_bytes(sb, (uint64_t)(v + 0.5)); /* "1.6634e+10" bytes too */
		return true;
	}
	if (flags & GPR_COL_NS) {
		if (display->scale && integer) {
			fixed_value(sb, (uint64_t)fabs(v), display->scale, v < 0);
			return true;
		}
		if (display->exact || display->scale) {
			return false;
		}
		gpr_fmt_time_human(sb, v);
		return true;
	}
	if (!integer || v < 0) {
		return false;
	}
	if (flags & GPR_COL_BYTES) {
		gpr_fmt_bytes(sb, (uint64_t)strtoull(cell, NULL, 10));
	} else {
		gpr_fmt_count(sb, (uint64_t)strtoull(cell, NULL, 10));
	}
	return true;
}

bool gpr_fmt_header(struct gp_strbuf *sb, const struct gpr_display *d, const char *name,
		    unsigned flags)
{
	const struct gpr_display *display = gpr_display_or_default(d);
	size_t n = strlen(name);
	int dec;

	if ((flags & (GPR_COL_E6 | GPR_COL_E9)) && (flags & (GPR_COL_BYTES | GPR_COL_FLOPS))) {
		/* the cells carry their units: "Data Moved (MB)" -> "Data Moved", "GFLOPs" -> "FLOPs" */
		if (n > 5 && !strcmp(name + n - 5, " (MB)")) {
			gp_strbuf_add(sb, name, n - 5);
			return true;
		}
		if (name[0] == 'G' && !strncmp(name + 1, "FLOP", 4)) {
			gp_strbuf_adds(sb, name + 1);
			return true;
		}
		return false;
	}
	if (!(flags & GPR_COL_NS) || display->exact || n < 5 || strcmp(name + n - 5, " (ns)")) {
		return false;
	}
	gp_strbuf_add(sb, name, n - 5);
	if (display->scale) {
		gp_strbuf_addf(sb, " (%s)", fixed_unit(display->scale, &dec));
	}
	return true;
}

/* ---- names that fit */

size_t gpr_text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++) {
		w += ((unsigned char)*s & 0xc0) != 0x80;
	}
	return w;
}

/* Bytes of s that hold its first n code points. */
static size_t prefix_bytes(const char *s, size_t n)
{
	size_t i = 0;

	while (s[i] && n) {
		i++;
		while (((unsigned char)s[i] & 0xc0) == 0x80) {
			i++;
		}
		n--;
	}
	return i;
}

#define ANON "(anonymous namespace)"

/*
 * The identifying part of a demangled name: scope and function without the
 * return type, template arguments and parameters ("void ns::k<int>(float*)"
 * -> "ns::k"). Mangled names and names that are not signatures (no parameter
 * list: a range, "[param|cuda]") come back whole.
 */
static void ident_part(struct gp_strbuf *sb, const char *name)
{
	size_t depth = 0, begin = sb->len, start = sb->len;
	const char *p = name;
	/* A space ends a return type only in a signature: "## backward ##" is a range's name. */
	bool signature = strchr(name, '(') != NULL;

	if ((name[0] == '_' && name[1] == 'Z') || !signature) {
		/* mangled, or not a C++ signature (a range, "[param|cuda]"): kept whole */
		gp_strbuf_adds(sb, name);
		return;
	}
	for (; *p; p++) {
		if (!depth && !strncmp(p, ANON, sizeof(ANON) - 1)) {
			gp_strbuf_adds(sb, ANON);
			p += sizeof(ANON) - 2;
			continue;
		}
		if (*p == '(' && !depth && sb->len > begin) {
			break; /* the parameter list */
		}
		if (*p == '<' || *p == '(' || *p == '[') {
			depth++;
		} else if ((*p == '>' || *p == ')' || *p == ']') && depth) {
			depth--;
		} else if (!depth && *p == ' ' && signature && p[1] != '(') {
			begin = sb->len + 1; /* after a return type */
			gp_strbuf_addch(sb, ' ');
		} else if (!depth) {
			gp_strbuf_addch(sb, *p);
		}
	}
	if (begin > start && begin < sb->len && sb->buf) {
		memmove(sb->buf + start, sb->buf + begin, sb->len - begin + 1);
		sb->len -= begin - start;
	}
	if (sb->len == start) {
		gp_strbuf_adds(sb, name);
	}
}

void gpr_fmt_name_fit(struct gp_strbuf *sb, const char *name, size_t maxw)
{
	struct gp_strbuf id = GP_STRBUF_INIT;

	if (!maxw || gpr_text_width(name) <= maxw) {
		gp_strbuf_adds(sb, name);
		return;
	}
	ident_part(&id, name);
	/* The middle gives way: the scope's start and the function's end stay. */
	if (id.failed) {
		sb->failed = true; /* out of memory: never the name unshortened instead */
	} else {
		gpr_fmt_elide(sb, id.buf, maxw);
	}
	gp_strbuf_release(&id);
}

/* Where the identifying part of name begins: past a return type ("void ", "float* "). */
static size_t ident_start(const char *name)
{
	size_t depth = 0, begin = 0;

	if (!strchr(name, '(')) {
		return 0;
	}
	for (size_t i = 0; name[i]; i++) {
		char ch = name[i];
		if (!depth && (ch == '(' || ch == '<') && i) {
			break;
		}
		if (ch == '<' || ch == '(' || ch == '[') {
			depth++;
		} else if ((ch == '>' || ch == ')' || ch == ']') && depth) {
			depth--;
		} else if (!depth && ch == ' ' && name[i + 1] != '(') {
			begin = i + 1; /* "f (x)" is a name and its note, not a return type */
		}
	}
	return begin;
}

static bool is_delim(char c)
{
	return c == '<' || c == '>' || c == ',' || c == ':' || c == '(' || c == ' ' || c == '_';
}

/*
 * name (past its return type) in maxw columns, showing the part from byte p
 * on, where it differs from the names it would otherwise read the same as:
 * its identifying part (or its start) elided to at most 3/5 of the width, "…",
 * then the differing part, cut with "…" at the end when it is longer.
 */
static void fit_showing(struct gp_strbuf *sb, const char *f, size_t p, size_t maxw)
{
	struct gp_strbuf id = GP_STRBUF_INIT, head = GP_STRBUF_INIT;
	size_t b = p, half = maxw * 3 / 5, rest;

	/*
	 * back up to the start of the word holding the difference, for context,
	 * but not so far that the difference falls out of what is left
	 */
	while (b > 0 && p - b < maxw / 8 && !is_delim(f[b - 1])) {
		b--;
	}
	while (b > 0 && ((unsigned char)f[b] & 0xc0) == 0x80) {
		b--;
	}
	ident_part(&id, f);
	if (id.failed || maxw < 12) {
		sb->failed |= id.failed;
		gpr_fmt_elide(sb, f, maxw);
		gp_strbuf_release(&id);
		return;
	}
	gp_strbuf_add(&head, f, b);
	if (!head.failed && gpr_text_width(head.buf ? head.buf : "") <= half) {
		gp_strbuf_adds(sb, head.buf ? head.buf : "");
	} else if (id.len <= b) {
		/*
		 * The function's own name, its start kept: what tells kernels of
		 * one scope apart ("vectorized_elementwise_kernel" beside
		 * "elementwise_kernel"); the scope they share gives way.
		 */
		const char *lc = id.buf;
		for (const char *q = strstr(id.buf, "::"); q; q = strstr(q + 2, "::")) {
			lc = q + 2;
		}
		if (gpr_text_width(lc) <= half - 1) {
			gp_strbuf_adds(sb, lc);
		} else {
			gp_strbuf_add(sb, lc, prefix_bytes(lc, half - 2));
		}
		gp_strbuf_adds(sb, "\xe2\x80\xa6");
	} else {
		gpr_fmt_elide(sb, head.buf ? head.buf : "", half);
	}
	gp_strbuf_release(&head);
	gp_strbuf_release(&id);
	size_t used = gpr_text_width(sb->buf ? sb->buf : "");
	rest = maxw > used ? maxw - used : 1;
	if (gpr_text_width(f + b) <= rest) {
		gp_strbuf_adds(sb, f + b);
		return;
	}
	gp_strbuf_add(sb, f + b, prefix_bytes(f + b, rest - 1));
	gp_strbuf_adds(sb, "\xe2\x80\xa6");
}

struct fitted {
	const char *full; /* past its return type */
	char *shown;
	size_t row;
};

static int by_shown(const void *a, const void *b)
{
	const struct fitted *x = a, *y = b;
	int c = strcmp(x->shown, y->shown);

	return c ? c : strcmp(x->full, y->full);
}

/* Bytes the names of f[0..n) (sorted, at least two different) share at their start. */
static size_t common_prefix(const struct fitted *f, size_t n)
{
	size_t p = strlen(f[0].full);

	for (size_t i = 1; i < n; i++) {
		size_t k = 0;
		while (k < p && f[i].full[k] == f[0].full[k]) {
			k++;
		}
		p = k;
	}
	while (p > 0 && ((unsigned char)f[0].full[p] & 0xc0) == 0x80) {
		p--;
	}
	return p;
}

/* name's identifying part, "…" and as much of its end as fits maxw columns. */
static void fit_tail(struct gp_strbuf *sb, const char *f, size_t maxw)
{
	struct gp_strbuf id = GP_STRBUF_INIT;
	size_t w = gpr_text_width(f), used;

	ident_part(&id, f);
	gpr_fmt_elide(sb, id.failed ? "" : id.buf, maxw / 2 - 1);
	sb->failed |= id.failed;
	gp_strbuf_release(&id);
	gp_strbuf_adds(sb, "\xe2\x80\xa6");
	used = gpr_text_width(sb->buf ? sb->buf : "");
	if (used < maxw && w > maxw - used) {
		gp_strbuf_adds(sb, f + prefix_bytes(f, w - (maxw - used)));
	}
}

/*
 * Names of one run of equal shown forms that differ: each shows where, or
 * (tail) its end, for names the first way could not tell apart.
 */
static int tell_apart(struct fitted *f, size_t n, size_t maxw, bool tail)
{
	size_t p = common_prefix(f, n);

	for (size_t i = 0; i < n; i++) {
		struct gp_strbuf sb = GP_STRBUF_INIT;
		if (tail) {
			fit_tail(&sb, f[i].full, maxw);
		} else {
			fit_showing(&sb, f[i].full, p, maxw);
		}
		if (sb.failed) {
			gp_strbuf_release(&sb);
			return -GP_ERR_NOMEM;
		}
		free(f[i].shown);
		f[i].shown = gp_strbuf_detach(&sb, NULL);
	}
	return 0;
}

/*
 * The last resort for names that still read the same (they differ only in
 * their middle, in more places than fit): each different name of a run gets
 * its number within the run at its end, " #2", so that the rows read apart.
 */
static int number_alike(struct fitted *f, size_t n, size_t maxw)
{
	qsort(f, n, sizeof(*f), by_shown);
	for (size_t i = 0, j; i < n; i = j) {
		unsigned k = 1;
		for (j = i + 1; j < n && !strcmp(f[j].shown, f[i].shown); j++) {
		}
		if (!strcmp(f[i].full, f[j - 1].full)) {
			continue; /* one name, maybe on several rows */
		}
		for (size_t q = i; q < j; q++) {
			struct gp_strbuf sb = GP_STRBUF_INIT;
			char tag[24];
			k += q > i && strcmp(f[q].full, f[q - 1].full) != 0;
			snprintf(tag, sizeof(tag), " #%u", k);
			/* room for the number: the middle gives way, the ends may differ */
			gpr_fmt_elide(&sb, f[q].shown, maxw > strlen(tag) + 1 ? maxw - strlen(tag) : 1);
			gp_strbuf_adds(&sb, tag);
			if (sb.failed) {
				gp_strbuf_release(&sb);
				return -GP_ERR_NOMEM;
			}
			free(f[q].shown);
			f[q].shown = gp_strbuf_detach(&sb, NULL);
		}
	}
	return 0;
}

int gpr_fmt_names_fit(char **out, const char *const *names, size_t n, size_t maxw)
{
	struct fitted *f = calloc(n ? n : 1, sizeof(*f));
	int ret = -GP_ERR_NOMEM;

	if (!f) {
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct gp_strbuf sb = GP_STRBUF_INIT;
		gpr_fmt_name_fit(&sb, names[i], maxw);
		f[i].full = names[i] + ident_start(names[i]);
		f[i].shown = sb.failed ? NULL : gp_strbuf_detach(&sb, NULL);
		gp_strbuf_release(&sb);
		if (!f[i].shown) {
			goto out;
		}
		f[i].row = i;
	}
	/*
	 * Names still alike after a pass share more than the group they came
	 * from: the next pass looks further right. A few passes end it.
	 */
	for (int pass = 0, again = 1; again && pass < 6; pass++) {
		again = 0;
		qsort(f, n, sizeof(*f), by_shown);
		for (size_t i = 0, j; i < n; i = j) {
			bool differ = false;
			for (j = i + 1; j < n && !strcmp(f[j].shown, f[i].shown); j++) {
				differ |= strcmp(f[j].full, f[i].full) != 0;
			}
			if (!differ || !maxw) {
				continue;
			}
			if (tell_apart(f + i, j - i, maxw, pass >= 4)) {
				goto out;
			}
			again = 1;
		}
	}
	if (maxw && number_alike(f, n, maxw)) {
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		out[f[k].row] = f[k].shown;
		f[k].shown = NULL;
	}
	ret = 0;
out:
	for (size_t i = 0; f && i < n; i++) {
		free(f[i].shown);
	}
	free(f);
	return ret;
}

void gpr_fmt_elide(struct gp_strbuf *sb, const char *s, size_t maxw)
{
	size_t w = gpr_text_width(s), head, tail;

	if (!maxw || w <= maxw) {
		gp_strbuf_adds(sb, s);
		return;
	}
	head = maxw > 1 ? (maxw - 1) / 2 : 0;
	tail = maxw > 1 ? maxw - 1 - head : 0;
	/* The last "::" component (the function) stays whole while a little head stays too. */
	const char *last = NULL;
	for (const char *q = strstr(s, "::"); q; q = strstr(q + 2, "::")) {
		last = q + 2;
	}
	if (last && maxw > 8) {
		size_t lw = gpr_text_width(last);
		tail = lw > tail ? (lw < maxw - 5 ? lw : maxw - 5) : tail;
		head = maxw - 1 - tail;
	}
	gp_strbuf_add(sb, s, prefix_bytes(s, head));
	gp_strbuf_adds(sb, "\xe2\x80\xa6");
	gp_strbuf_adds(sb, s + prefix_bytes(s, w - tail));
}

void gpr_fmt_elide_words(struct gp_strbuf *sb, const char *s, size_t maxw)
{
	size_t w = gpr_text_width(s), keep = 0, keep_w = 0;

	if (!maxw || w <= maxw) {
		gp_strbuf_adds(sb, s);
		return;
	}
	/* the longest run of whole words from the start that leaves room for the ellipsis */
	for (size_t i = 1, hw = 1; s[i] && hw + 1 <= maxw; i++) {
		if (s[i] == ' ' && s[i - 1] != ' ') {
			keep = i;
			keep_w = hw;
		}
		hw += ((unsigned char)s[i] & 0xc0) != 0x80;
	}
	if (keep && 2 * keep_w >= maxw) {
		gp_strbuf_add(sb, s, keep);
		gp_strbuf_adds(sb, "\xe2\x80\xa6");
		return;
	}
	gpr_fmt_elide(sb, s, maxw); /* one long word: its middle gives way */
}

/* Shortens sb to its first len bytes (len <= sb->len). */
static void cut(struct gp_strbuf *sb, size_t len)
{
	if (len < sb->len) {
		sb->len = len;
		sb->buf[len] = '\0';
	}
}

/*
 * Whether the space at p may end a line: not between a number and the unit
 * or word it counts ("5 µs", "86.30 %", "188 gaps" stay on one line).
 */
static bool break_at(const char *line, const char *p)
{
	return *p == ' ' && !(p > line && isdigit((unsigned char)p[-1]) && p[1] &&
			      p[1] != ' ' && !isdigit((unsigned char)p[1]));
}

void gpr_text_wrap(struct gp_strbuf *sb, const struct gpr_display *d, size_t from, size_t indent)
{
	size_t width = gpr_display_or_default(d)->width, col = 0, last_space = 0;
	struct gp_strbuf out = GP_STRBUF_INIT;
	char *line;

	if (!width || sb->failed || !sb->buf || from >= sb->len ||
	    gpr_text_width(sb->buf + from) <= width) {
		return;
	}
	line = strdup(sb->buf + from);
	if (!line) {
		sb->failed = true;
		return;
	}
	for (const char *p = line; *p && !out.failed; p++) {
		/* out of memory: stop, last_space may be past what out holds */
		bool lead = ((unsigned char)*p & 0xc0) != 0x80;
		if (break_at(line, p) && col >= width) {
			gp_strbuf_addf(&out, "\n%*s", (int)indent, ""); /* a break at this space */
			col = indent;
			last_space = 0;
			continue;
		}
		if (lead && col >= width && !last_space && col > indent) {
			/* a word longer than the line: it breaks where the line ends */
			gp_strbuf_addf(&out, "\n%*s", (int)indent, "");
			col = indent;
		}
		if (lead && col >= width && last_space) {
			/* Break at the last space: the rest moves to a new, indented line. */
			size_t rest = out.len - last_space - 1;
			char *tail = strndup(out.buf + last_space + 1, rest);
			if (!tail) {
				out.failed = true;
				break;
			}
			cut(&out, last_space);
			gp_strbuf_addf(&out, "\n%*s%s", (int)indent, "", tail);
			col = indent + gpr_text_width(tail);
			last_space = 0;
			free(tail);
		}
		if (break_at(line, p) && col > indent) {
			last_space = out.len;
		}
		gp_strbuf_addch(&out, *p);
		col += lead;
	}
	free(line);
	cut(sb, from);
	gp_strbuf_add(sb, out.buf ? out.buf : "", out.len);
	sb->failed |= out.failed;
	gp_strbuf_release(&out);
}

void gpr_text_wrap_lines(struct gp_strbuf *sb, const struct gpr_display *d, size_t from,
			 size_t indent)
{
	struct gp_strbuf out = GP_STRBUF_INIT, line = GP_STRBUF_INIT;
	const char *p, *end;

	if (!gpr_display_or_default(d)->width || sb->failed || from >= sb->len) {
		return;
	}
	for (p = sb->buf + from; *p; p = *end ? end + 1 : end) {
		end = strchr(p, '\n');
		end = end ? end : p + strlen(p);
		gp_strbuf_reset(&line);
		gp_strbuf_add(&line, p, (size_t)(end - p));
		gpr_text_wrap(&line, d, 0, indent);
		gp_strbuf_add(&out, line.buf, line.len);
		if (*end) {
			gp_strbuf_addch(&out, '\n');
		}
		out.failed |= line.failed;
	}
	cut(sb, from);
	gp_strbuf_add(sb, out.buf, out.len);
	sb->failed |= out.failed;
	gp_strbuf_release(&out);
	gp_strbuf_release(&line);
}
