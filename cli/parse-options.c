/* SPDX-License-Identifier: MIT */
/*
 * parse-options - the option tables of the subcommands: parsing in the
 * manner of getopt_long (short clusters, attached and separate values,
 * --name=value, unique abbreviations of long names, "--"), value checks,
 * and the help text. docs/dev/cli.md describes the convention.
 */
#include "base/compat.h"
#include "cli/cli.h"
#include "cli/parse-options.h"
#include "trace/trace.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <math.h>
#include <pcre2.h>

int cli_opt_usage_error(const struct cli_ctx *ctx, const char *fmt, ...)
{
	const char *usage = ctx->cmd->usage;
	const char *nl = strchr(usage, '\n');
	va_list ap;

	if (ctx->prescan) {
		return CMD_USAGE;
	}
	fputs("gpuprof: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%.*s\n", nl ? (int)(nl - usage) : (int)strlen(usage), usage);
	return CMD_USAGE;
}

/* Says a message with one %s (an option's err, a format the table gives). */
static int say(const struct cli_ctx *ctx, const char *fmt, const char *what)
{
	return cli_opt_usage_error(ctx, fmt, what);
}

/* ------------------------------------------------------------ values */

bool cli_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (*s < '0' || *s > '9') {
		return false;
	}
	for (; *s >= '0' && *s <= '9'; s++) {
		if (gp_mul_overflow_u64(v, 10, &v) ||
		    gp_add_overflow_u64(v, (uint64_t)(*s - '0'), &v)) {
			return false;
		}
	}
	if (*s || v > max) {
		return false;
	}
	*out = v;
	return true;
}

/* "10us", "1.5ms", "250" (ns), "2s" -> ns; false when malformed or too large. */
bool cli_parse_duration(const char *s, uint64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t ns;
		unsigned digits; /* decimals a value may have */
	} units[] = {{"ns", 1, 0}, {"us", 1000, 3}, {"ms", 1000000, 6}, {"s", 1000000000, 9},
		     {"", 1, 0}};
	uint64_t whole = 0, frac = 0;
	unsigned nfrac = 0;
	const char *p = s;

	if (*p < '0' || *p > '9') {
		return false;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		if (gp_mul_overflow_u64(whole, 10, &whole) ||
		    gp_add_overflow_u64(whole, (uint64_t)(*p - '0'), &whole)) {
			return false;
		}
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (nfrac == 9) {
				return false;
			}
			frac = frac * 10 + (uint64_t)(*p - '0');
			nfrac++;
		}
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(units); i++) {
		if (strcmp(p, units[i].unit)) {
			continue;
		}
		if (nfrac > units[i].digits) {
			return false;
		}
		for (unsigned k = nfrac; k < units[i].digits; k++) {
			frac *= 10;
		}
		return !gp_mul_overflow_u64(whole, units[i].ns, out) &&
		       !gp_add_overflow_u64(*out, frac, out);
	}
	return false;
}

static uint64_t field_max(size_t size)
{
	return size >= 8 ? UINT64_MAX : (UINT64_C(1) << (size * 8)) - 1;
}

static void store_u(void *base, const struct cli_option *o, uint64_t v)
{
	char *p = (char *)base + o->off;

	switch (o->size) {
	case 1: {
		uint8_t x = (uint8_t)v;
		memcpy(p, &x, 1);
		break;
	}
	case 2: {
		uint16_t x = (uint16_t)v;
		memcpy(p, &x, 2);
		break;
	}
	case 4: {
		uint32_t x = (uint32_t)v;
		memcpy(p, &x, 4);
		break;
	}
	default:
		memcpy(p, &v, 8);
		break;
	}
}

static uint64_t load_u(const void *base, const struct cli_option *o)
{
	const char *p = (const char *)base + o->off;
	uint8_t b;
	uint16_t h;
	uint32_t w;
	uint64_t d;

	switch (o->size) {
	case 1:
		memcpy(&b, p, 1);
		return b;
	case 2:
		memcpy(&h, p, 2);
		return h;
	case 4:
		memcpy(&w, p, 4);
		return w;
	default:
		memcpy(&d, p, 8);
		return d;
	}
}

/* A bad value: the option's message, or "bad --NAME 'VALUE'". */
static int bad_value(const struct cli_ctx *ctx, const struct cli_option *o, const char *arg)
{
	if (o->err) {
		return say(ctx, o->err, arg);
	}
	return cli_opt_usage_error(ctx, "bad --%s '%s'", o->long_name, arg);
}

int cli_check_regex(const char *pattern, const char *what, unsigned flags)
{
	PCRE2_UCHAR msg[160];
	PCRE2_SIZE off;
	int code;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code,
				       &off, NULL);

	if (re) {
		pcre2_code_free(re);
		return 0;
	}
	if (code == PCRE2_ERROR_HEAP_FAILED) {
		cli_error("out of memory");
		return CMD_ERROR;
	}
	pcre2_get_error_message(code, msg, sizeof(msg));
	/* Said as the analyses say it, without the usage line. */
	if (flags & CLI_OPTF_REASON_FIRST) {
		cli_error("bad %s '%s': %s at offset %zu", what, pattern, (const char *)msg,
			  (size_t)off);
	} else {
		cli_error("bad %s '%s' at offset %zu: %s", what, pattern, (size_t)off,
			  (const char *)msg);
	}
	return CMD_USAGE;
}

static int take_number(struct cli_ctx *ctx, const struct cli_option *o, const char *arg, void *base)
{
	uint64_t u, max = field_max(o->size);
	double d;
	char *end;

	if (o->umax && o->umax < max) {
		max = o->umax;
	}

	switch (o->type) {
	case CLI_OPT_UINT:
		if ((o->flags & CLI_OPTF_ALL) && !strcmp(arg, "all")) {
			store_u(base, o, field_max(o->size));
			return 0;
		}
		if (!cli_parse_uint(arg, max, &u) || u < o->umin) {
			return bad_value(ctx, o, arg);
		}
		store_u(base, o, u);
		return 0;
	case CLI_OPT_DURATION:
		if (!cli_parse_duration(arg, &u) || u > max) {
			return bad_value(ctx, o, arg);
		}
		store_u(base, o, u);
		return 0;
	case CLI_OPT_DOUBLE:
		errno = 0;
		d = strtod(arg, &end);
		if (errno || end == arg || *end || !isfinite(d) || d < o->min || d > o->max ||
		    ((o->flags & CLI_OPTF_MIN_OPEN) && d <= o->min)) {
			return bad_value(ctx, o, arg);
		}
		memcpy((char *)base + o->off, &d, sizeof(d));
		return 0;
	default:
		GP_BUG("option '%s' of type %d is not a number", o->long_name ? o->long_name : "",
		       (int)o->type);
	}
}

/* take()'s status after --help: the command is done, and exits 0. */
#define HELP_SHOWN (-2)

/* Callbacks see the base of their own table (a subtable's). */
static int call(struct cli_ctx *ctx, const struct cli_option *o, const char *arg, void *base)
{
	void *top = ctx->base;
	int ret;

	ctx->base = base;
	ret = o->cb(ctx, o, arg);
	ctx->base = top;
	return ret;
}

/* Whether the comma-separated list names (long option name). */
static bool names(const char *list, const char *name)
{
	size_t n = name ? strlen(name) : 0;

	while (list && n && *list) {
		size_t len = strcspn(list, ",");
		if (len == n && !strncmp(list, name, n)) {
			return true;
		}
		list += len;
		list += strspn(list, ",");
	}
	return false;
}

static bool conflict(const struct cli_option *a, const void *abase, const struct cli_option *b,
		     const void *bbase)
{
	if (a == b) {
		return false;
	}
	if (a->type == CLI_OPT_SET && b->type == CLI_OPT_SET && abase == bbase &&
	    a->off == b->off && a->value != b->value) {
		return true; /* two choices of one setting */
	}
	return names(a->conflicts, b->long_name) || names(b->conflicts, a->long_name);
}

/* Says and returns CMD_USAGE when o conflicts with an option given before; records o. */
static int check_conflicts(struct cli_ctx *ctx, const struct cli_option *o, const void *base)
{
	for (unsigned i = 0; i < ctx->nseen; i++) {
		if (conflict(ctx->seen[i], ctx->seen_base[i], o, base)) {
			return cli_opt_usage_error(ctx,
						   "options '--%s' and '--%s' cannot be used "
						   "together",
						   ctx->seen[i]->long_name, o->long_name);
		}
	}
	if (ctx->nseen < GP_ARRAY_SIZE(ctx->seen)) {
		ctx->seen[ctx->nseen] = o;
		ctx->seen_base[ctx->nseen++] = base;
	}
	return 0;
}

/* Applies one option with its value (NULL when it has none). */
static int take(struct cli_ctx *ctx, const struct cli_option *o, const char *arg, void *base)
{
	int v = -1, ret;

	if (ctx->prescan) {
		/* Only callbacks run; the first that fails ends the scan. */
		if (o->type == CLI_OPT_CALLBACK) {
			ctx->status = call(ctx, o, arg, base);
		}
		return ctx->status;
	}
	if (o->long_name && o->type != CLI_OPT_HELP && (ret = check_conflicts(ctx, o, base))) {
		return ret;
	}
	switch (o->type) {
	case CLI_OPT_HELP:
		cli_print_help(ctx->cmd);
		return HELP_SHOWN;
	case CLI_OPT_SET:
		store_u(base, o, (uint64_t)o->value);
		return 0;
	case CLI_OPT_BIT:
		store_u(base, o, load_u(base, o) | (uint64_t)o->value);
		return 0;
	case CLI_OPT_REGEX:
		ret = cli_check_regex(arg, o->err, o->flags);
		if (ret) {
			return ret;
		}
		/* fall through */
	case CLI_OPT_STRING:
		if (o->cb) {
			return call(ctx, o, arg, base);
		}
		memcpy((char *)base + o->off, &arg, sizeof(arg));
		return 0;
	case CLI_OPT_UINT:
	case CLI_OPT_DOUBLE:
	case CLI_OPT_DURATION:
		return take_number(ctx, o, arg, base);
	case CLI_OPT_ENUM:
		if (o->parse) {
			v = o->parse(arg);
		}
		for (const struct cli_enum_value *e = o->values; e && e->name; e++) {
			if (!strcmp(e->name, arg)) {
				v = e->value;
				break;
			}
		}
		if (v < 0) {
			return bad_value(ctx, o, arg);
		}
		store_u(base, o, (uint64_t)v);
		return 0;
	case CLI_OPT_CALLBACK:
		return call(ctx, o, arg, base);
	default:
		/* find_long() and find_short() return only options that take part in parsing */
		GP_BUG("option '%s' of type %d reached take()", o->long_name ? o->long_name : "",
		       (int)o->type);
	}
}

static bool takes_value(const struct cli_option *o)
{
	return o->type != CLI_OPT_HELP && o->type != CLI_OPT_SET && o->type != CLI_OPT_BIT &&
	       !(o->type == CLI_OPT_CALLBACK && !o->argh);
}

bool cli_option_takes_value(const struct cli_option *o)
{
	return takes_value(o);
}

/* ------------------------------------------------------------ common options */

/* --quiet, --allow-unrelated, --threads N: into ctx->common (NULL: checked, kept nowhere). */
static int opt_common(struct cli_ctx *ctx, const struct cli_option *o, const char *arg)
{
	struct cli_common *c = ctx->common;
	unsigned n = 0;

	if (ctx->prescan) {
		return 0; /* said, if wrong, by the parse proper */
	}
	if (!strcmp(o->long_name, "threads")) {
		if (!cli_parse_threads(arg, &n)) {
			return cli_opt_usage_error(ctx, "--threads needs a number of threads from 1 "
						   "to %u", GPT_MAX_THREADS);
		}
		if (c) {
			c->threads_given = n;
		}
	} else if (c && !strcmp(o->long_name, "quiet")) {
		c->quiet = true;
	} else if (c) {
		c->allow_unrelated = true;
	}
	return 0;
}

/*
 * Taken by every command without being in its table, unless the table has
 * an option of the exact name; listed after every command's options.
 */
static const struct cli_option common_options[] = {
	CLI_OPT_GROUP("\ncommon options:\n", 0, 6),
	CLI_OPT_CB(0, "threads", "N", opt_common,
		   "threads that read traces and run analyses (default:\n"
		   "GPUPROF_THREADS, else one per core)"),
	CLI_OPT_CB(0, "quiet", NULL, opt_common, "no progress line on standard error"),
	CLI_OPT_CB(0, "allow-unrelated", NULL, opt_common,
		   "analyse traces that are not one run together"),
	CLI_OPT_END(),
};

/* ------------------------------------------------------------ lookup */

struct found {
	const struct cli_option *o;
	void *base;
	int n;       /* matches of an abbreviation */
	bool exact;
};

static bool is_option(const struct cli_option *o)
{
	return o->type != CLI_OPT_GROUP && o->type != CLI_OPT_TEXT && o->type != CLI_OPT_SUBTABLE;
}

static void find_short(const struct cli_option *t, void *base, int c, struct found *f)
{
	for (; t->type != CLI_OPT_END && !f->o; t++) {
		if (t->type == CLI_OPT_SUBTABLE) {
			find_short(t->sub, (char *)base + t->off, c, f);
		} else if (is_option(t) && t->short_name == c) {
			f->o = t;
			f->base = base;
		}
	}
}

/* Two entries that do the same (an alias) do not make an abbreviation ambiguous. */
static bool same_action(const struct cli_option *a, const struct cli_option *b)
{
	return a->type == b->type && a->off == b->off && a->cb == b->cb && a->value == b->value;
}

static void find_long(const struct cli_option *t, void *base, const char *name, size_t len,
		      struct found *f)
{
	for (; t->type != CLI_OPT_END && !f->exact; t++) {
		if (t->type == CLI_OPT_SUBTABLE) {
			find_long(t->sub, (char *)base + t->off, name, len, f);
			continue;
		}
		if (!is_option(t) || !t->long_name || strncmp(t->long_name, name, len)) {
			continue;
		}
		if (!t->long_name[len]) {
			f->o = t;
			f->base = base;
			f->exact = true;
			f->n = 1;
		} else if (!f->o) {
			f->o = t;
			f->base = base;
			f->n = 1;
		} else if (!same_action(f->o, t)) {
			f->n++;
		}
	}
}

/* ------------------------------------------------------------ parsing */

struct parser {
	struct cli_ctx ctx;
	int argc;
	char **argv;
	int i; /* the argument being looked at */
};

/* Appends "--a, --b" for the options whose long names start with name (aliases too). */
static void list_matches(struct gp_strbuf *sb, const struct cli_option *t, const char *name,
			 size_t len)
{
	for (; t->type != CLI_OPT_END; t++) {
		if (t->type == CLI_OPT_SUBTABLE) {
			list_matches(sb, t->sub, name, len);
		} else if (is_option(t) && t->long_name && !strncmp(t->long_name, name, len)) {
			gp_strbuf_addf(sb, "%s--%s", sb->len ? ", " : "", t->long_name);
		}
	}
}

/* Adds the long names of t's listed options to s. */
static void suggest_table(struct cli_suggest *s, const struct cli_option *t)
{
	for (; t->type != CLI_OPT_END; t++) {
		if (t->type == CLI_OPT_SUBTABLE) {
			suggest_table(s, t->sub);
		} else if (is_option(t) && !(t->flags & CLI_OPTF_HIDDEN)) {
			cli_suggest_add(s, t->long_name);
		}
	}
}

/* "unknown option '--fromat'; did you mean '--format'?" (name: without "--" or "=value"). */
static int unknown(struct parser *p, const char *name, size_t len)
{
	char word[80];
	struct cli_suggest s;
	const char *best;

	snprintf(word, sizeof(word), "%.*s", (int)(len < 79 ? len : 79), name);
	cli_suggest_init(&s, word);
	suggest_table(&s, p->ctx.cmd->options);
	if (!(p->ctx.cmd->flags & CLI_NO_COMMON)) {
		suggest_table(&s, common_options);
	}
	best = cli_suggest_best(&s);
	if (best) {
		return cli_opt_usage_error(&p->ctx, "unknown option '--%s'; did you mean '--%s'?",
					   word, best);
	}
	return cli_opt_usage_error(&p->ctx, "unknown option '--%s'", word);
}

/* An abbreviation of several options: say which. */
static int ambiguous(struct parser *p, const char *name, size_t len)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;
	int ret;

	list_matches(&sb, p->ctx.cmd->options, name, len);
	ret = cli_opt_usage_error(&p->ctx, "ambiguous option '--%.*s': %s", (int)len, name,
				  sb.failed ? "several options" : sb.buf);
	gp_strbuf_release(&sb);
	return ret;
}

static int unknown_short(struct parser *p, int c)
{
	return cli_opt_usage_error(&p->ctx, "unknown option '-%c'", c);
}

/* A value is missing: as_given is the option as written. */
static int missing(struct parser *p, const struct cli_option *o, const char *as_given)
{
	return cli_opt_usage_error(&p->ctx, "option '%s' needs a value (%s)", as_given,
				   o->argh ? o->argh : "VALUE");
}

/* "--name", "--name=value", "--name value"; returns 0 or a status. */
static int parse_long(struct parser *p, const char *arg)
{
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	struct found f = {0};

	find_long(p->ctx.cmd->options, p->ctx.base, name, len, &f);
	if (!f.exact && !(p->ctx.cmd->flags & CLI_NO_COMMON)) {
		/* The options every command takes, by their whole names only. */
		struct found c = {0};
		find_long(common_options, NULL, name, len, &c);
		if (c.exact) {
			f = c;
		}
	}
	p->i++;
	if (!f.o) {
		return unknown(p, name, len);
	}
	if (f.n > 1) {
		return ambiguous(p, name, len);
	}
	if (!takes_value(f.o)) {
		if (eq) {
			return cli_opt_usage_error(&p->ctx, "option '--%s' takes no value",
						   f.o->long_name);
		}
		return take(&p->ctx, f.o, NULL, f.base);
	}
	if (eq) {
		return take(&p->ctx, f.o, eq + 1, f.base);
	}
	if (f.o->flags & CLI_OPTF_OPTARG) {
		return take(&p->ctx, f.o, NULL, f.base);
	}
	if (p->i >= p->argc) {
		return missing(p, f.o, arg);
	}
	return take(&p->ctx, f.o, p->argv[p->i++], f.base);
}

/* "-x", "-xVALUE", "-x VALUE", "-xy"; returns 0 or a status. */
static int parse_short(struct parser *p, const char *arg)
{
	int ret;

	p->i++;
	for (const char *s = arg + 1; *s; s++) {
		struct found f = {0};
		find_short(p->ctx.cmd->options, p->ctx.base, (unsigned char)*s, &f);
		if (!f.o) {
			return unknown_short(p, (unsigned char)*s);
		}
		if (!takes_value(f.o) || (f.o->flags & CLI_OPTF_OPTARG)) {
			ret = take(&p->ctx, f.o, s[1] && takes_value(f.o) ? s + 1 : NULL, f.base);
			if (ret || takes_value(f.o)) {
				return ret;
			}
			continue;
		}
		if (s[1]) {
			return take(&p->ctx, f.o, s + 1, f.base);
		}
		if (p->i >= p->argc) {
			return missing(p, f.o, arg);
		}
		return take(&p->ctx, f.o, p->argv[p->i++], f.base);
	}
	return 0;
}

static bool is_unknown(const struct parser *p, const char *arg)
{
	struct found f = {0};

	if (arg[1] == '-') {
		const char *eq = strchr(arg + 2, '=');
		find_long(p->ctx.cmd->options, p->ctx.base, arg + 2,
			  eq ? (size_t)(eq - arg - 2) : strlen(arg + 2), &f);
		return !f.o || f.n > 1;
	}
	find_short(p->ctx.cmd->options, p->ctx.base, (unsigned char)arg[1], &f);
	return !f.o;
}

static int parse(struct parser *p, int *nargs)
{
	unsigned flags = p->ctx.cmd->flags;
	int kept = 0, ret;

	p->i = 1;
	while (p->i < p->argc) {
		char *arg = p->argv[p->i];
		if (!strcmp(arg, "--")) {
			if (flags & CLI_KEEP_DASHDASH) {
				p->argv[kept++] = arg;
			}
			p->i++;
			break;
		}
		if (arg[0] != '-' || !arg[1] ||
		    ((flags & CLI_KEEP_UNKNOWN) && is_unknown(p, arg))) {
			if (!(flags & CLI_PERMUTE)) {
				break;
			}
			p->argv[kept++] = arg;
			p->i++;
			continue;
		}
		ret = arg[1] == '-' ? parse_long(p, arg) : parse_short(p, arg);
		/* A prescan goes on past what it cannot parse, as getopt would. */
		if (ret && (!p->ctx.prescan || p->ctx.status)) {
			return ret;
		}
	}
	while (p->i < p->argc) {
		p->argv[kept++] = p->argv[p->i++];
	}
	*nargs = kept;
	return CLI_PARSE_CONTINUE;
}

static void (*parse_done)(struct cli_common *common);

void cli_set_parse_done(void (*done)(struct cli_common *common))
{
	parse_done = done;
}

int cli_parse_options(const struct cli_command *cmd, void *base, struct cli_common *common,
		      int argc, char **argv, int *nargs)
{
	struct parser p = {.ctx = {.cmd = cmd, .base = base, .common = common}, .argc = argc,
			   .argv = argv};
	int ret;

	*nargs = 0;
	ret = parse(&p, nargs);
	if (ret == CLI_PARSE_CONTINUE && parse_done) {
		parse_done(common);
	}
	return ret == HELP_SHOWN ? CMD_OK : ret;
}

int cli_prescan_options(const struct cli_command *cmd, void *base, int argc, char **argv)
{
	struct parser p = {.ctx = {.cmd = cmd, .base = base, .prescan = true}, .argc = argc};
	int nargs;

	/* A copy: parsing moves the arguments. */
	p.argv = malloc((size_t)(argc + 1) * sizeof(*p.argv));
	if (!p.argv) {
		cli_error("out of memory");
		return CMD_ERROR;
	}
	memcpy(p.argv, argv, (size_t)argc * sizeof(*argv));
	(void)parse(&p, &nargs);
	free(p.argv);
	return p.ctx.status;
}

/* ------------------------------------------------------------ help */

struct layout {
	int col, indent;
	int first; /* the column of the command's first group: the common options use it */
};

static void help_option(struct gp_strbuf *sb, const struct cli_option *o, const struct layout *l)
{
	size_t start = sb->len;
	int width;

	if (o->short_name) {
		gp_strbuf_addf(sb, "  -%c%s", o->short_name, o->long_name ? ", " : "");
	} else {
		gp_strbuf_addf(sb, "%*s", l->indent, "");
	}
	if (o->long_name) {
		gp_strbuf_addf(sb, "--%s", o->long_name);
	}
	if (o->argh) {
		gp_strbuf_addf(sb, (o->flags & CLI_OPTF_OPTARG) ? "[=%s]" : " %s", o->argh);
	}
	width = (int)(sb->len - start);
	gp_strbuf_addf(sb, "%*s", width < l->col ? l->col - width : 2, "");
	/* Lines after the first start at the column. */
	for (const char *h = o->help; *h;) {
		size_t n = strcspn(h, "\n");
		if (h != o->help) {
			gp_strbuf_addf(sb, "%*s", l->col, "");
		}
		gp_strbuf_add(sb, h, n);
		gp_strbuf_addch(sb, '\n');
		h += n + (h[n] == '\n');
	}
}

static void help_table(struct gp_strbuf *sb, const struct cli_option *t, struct layout *l)
{
	for (; t->type != CLI_OPT_END; t++) {
		if (t->flags & CLI_OPTF_HIDDEN) {
			continue;
		}
		switch (t->type) {
		case CLI_OPT_GROUP:
			gp_strbuf_adds(sb, t->help);
			l->col = t->col ? t->col : l->col;
			l->first = l->first ? l->first : t->col;
			l->indent = t->indent;
			break;
		case CLI_OPT_TEXT:
			gp_strbuf_adds(sb, t->help);
			break;
		case CLI_OPT_SUBTABLE:
			help_table(sb, t->sub, l);
			break;
		default:
			help_option(sb, t, l);
			break;
		}
	}
}

/* The least help column of the common options: "      --allow-unrelated" and two spaces. */
#define COMMON_COL 25

static void (*help_tail)(const struct cli_command *cmd, struct gp_strbuf *sb);

void cli_set_help_tail(void (*tail)(const struct cli_command *cmd, struct gp_strbuf *sb))
{
	help_tail = tail;
}

void cli_options_help(const struct cli_command *cmd, struct gp_strbuf *sb)
{
	struct layout l = {.col = 24, .indent = 6};

	gp_strbuf_adds(sb, cmd->usage);
	help_table(sb, cmd->options, &l);
	if (!(cmd->flags & CLI_NO_COMMON)) {
		/* Aligned with the first options, and wide enough for --allow-unrelated. */
		l.col = l.first > COMMON_COL ? l.first : COMMON_COL;
		help_table(sb, common_options, &l);
	}
	if (cmd->footer) {
		gp_strbuf_adds(sb, cmd->footer);
	}
	if (help_tail) {
		help_tail(cmd, sb);
	}
}

static void each_option(const struct cli_option *t,
			void (*fn)(const struct cli_option *o, void *data), void *data)
{
	for (; t->type != CLI_OPT_END; t++) {
		if (t->flags & CLI_OPTF_HIDDEN) {
			continue;
		}
		if (t->type == CLI_OPT_SUBTABLE) {
			each_option(t->sub, fn, data);
		} else if (is_option(t)) {
			fn(t, data);
		}
	}
}

void cli_options_each(const struct cli_command *cmd,
		      void (*fn)(const struct cli_option *o, void *data), void *data)
{
	each_option(cmd->options, fn, data);
	if (!(cmd->flags & CLI_NO_COMMON)) {
		each_option(common_options, fn, data);
	}
}

void cli_print_help(const struct cli_command *cmd)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;

	cli_options_help(cmd, &sb);
	if (sb.failed) {
		cli_error("out of memory");
	} else {
		fwrite(sb.buf, 1, sb.len, stdout);
	}
	gp_strbuf_release(&sb);
}
