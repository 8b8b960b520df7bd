/* SPDX-License-Identifier: MIT */
/*
 * parse-options.h - one table per subcommand drives option parsing, value
 * checks and the help text (git's parse-options is the model; see
 * docs/dev/cli.md).
 *
 * A table is a static array of struct cli_option ending with CLI_OPT_END().
 * Each entry names its destination as an offset into the command's options
 * struct (the "base" handed to cli_parse_options), so tables are constant
 * and 'gpuprof help CMD' can print the help without running the command.
 */
#ifndef GP_CLI_PARSE_OPTIONS_H
#define GP_CLI_PARSE_OPTIONS_H

#include "base/base.h"

#include <stddef.h>

enum cli_opt_type {
	CLI_OPT_END = 0,
	CLI_OPT_GROUP,    /* help: a heading (may be ""), the layout of the lines below */
	CLI_OPT_TEXT,     /* help: lines printed as they are */
	CLI_OPT_HELP,     /* -h, --help: print the help, the command exits 0 */
	CLI_OPT_SET,      /* no value: the field is set to 'value' */
	CLI_OPT_BIT,      /* no value: 'value' is or-ed into the field */
	CLI_OPT_STRING,   /* const char * (borrowed from argv) */
	CLI_OPT_UINT,     /* digits only, min..max; CLI_OPTF_ALL: "all" is the type's max */
	CLI_OPT_DOUBLE,   /* strtod, finite, in (min, max] or [min, max] */
	CLI_OPT_DURATION, /* cli_parse_duration ("10us", "1.5ms", "250"), at most max */
	CLI_OPT_ENUM,     /* one of 'values' (or 'parse'), stored as an int */
	CLI_OPT_REGEX,    /* a PCRE2 pattern, compiled once to check it; stored as a string */
	CLI_OPT_CALLBACK, /* cb gets the value */
	CLI_OPT_SUBTABLE, /* the options of 'sub', with base + off as their base */
};

enum cli_opt_flags {
	CLI_OPTF_HIDDEN = 1u << 0,    /* accepted, not listed in the help */
	CLI_OPTF_OPTARG = 1u << 1,    /* the value is optional: --name[=VALUE] */
	CLI_OPTF_ALL = 1u << 2,       /* UINT: "all" stores the largest value of the field */
	CLI_OPTF_MIN_OPEN = 1u << 3,  /* DOUBLE: greater than min, not equal */
	CLI_OPTF_REASON_FIRST = 1u << 4, /* REGEX: "bad W 'P': REASON at offset N" */
};

struct cli_enum_value {
	const char *name;
	int value;
};

struct cli_ctx;
struct cli_option;

/* Returns 0, or an exit status after saying why (cli_opt_usage_error for usage). */
typedef int (*cli_opt_cb)(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg);

struct cli_option {
	enum cli_opt_type type;
	int short_name;        /* 0: none */
	const char *long_name; /* NULL: none */
	const char *argh;      /* help: the value's name ("N", "REGEX"); NULL: no value */
	const char *help;      /* help text; lines after the first are indented to the column */
	size_t off, size;      /* destination in the base struct */
	unsigned flags;        /* enum cli_opt_flags */
	int64_t value;         /* SET, BIT: what is stored */
	uint64_t umin, umax;   /* UINT, DURATION bounds (umax 0: the field's largest) */
	double min, max;       /* DOUBLE bounds */
	/*
	 * The message for a bad value: a format with one %s, the value as given
	 * (UINT, DOUBLE, DURATION, ENUM), or the subject of "bad %s '%s' at
	 * offset %zu: %s" (REGEX: "step pattern").
	 */
	const char *err;
	const struct cli_enum_value *values; /* ENUM, ending with {NULL, 0} */
	int (*parse)(const char *s);         /* ENUM without values: -1 when unknown */
	cli_opt_cb cb;                       /* CALLBACK; REGEX, STRING: called, not stored */
	const struct cli_option *sub;        /* SUBTABLE */
	int col, indent;                     /* GROUP: help column, indent of long-only options */
	/*
	 * Long names of options this one cannot be given with, comma-separated
	 * ("recompute"); either side may name the other. Two SET options storing
	 * different values into one field (--api, --wall) conflict without it.
	 */
	const char *conflicts;
};

enum cli_parse_flags {
	CLI_PERMUTE = 1u << 0,       /* options may follow arguments (else the first ends them) */
	CLI_KEEP_DASHDASH = 1u << 1, /* the "--" that ends the options stays as an argument */
	CLI_KEEP_UNKNOWN = 1u << 2,  /* unknown options are arguments */
	CLI_NO_COMMON = 1u << 3,     /* takes no --threads, --quiet, --allow-unrelated */
};

/* A subcommand's options and help. */
struct cli_command {
	const char *usage;  /* the help before the option list: usage line(s) first */
	const struct cli_option *options;
	const char *footer; /* the help after the option list */
	unsigned flags;     /* enum cli_parse_flags */
};

struct cli_common;
struct cli_ctx {
	const struct cli_command *cmd;
	void *base;
	struct cli_common *common; /* where --threads and --quiet go; NULL: nowhere */
	bool prescan; /* cli_prescan_options: only callbacks run, nothing is said */
	int status;   /* prescan: the first failing callback's status */
	/* The options given so far (the first 32), for conflicts. */
	const struct cli_option *seen[32];
	const void *seen_base[32];
	unsigned nseen;
};

#define CLI_PARSE_CONTINUE (-1)

/*
 * Parses argv[1..argc) (argv[0] is the command's name) against cmd's table,
 * storing into base, and --threads and --quiet, which every command takes,
 * into common (struct cli_common, cli/cli.h; NULL: checked, kept nowhere). Returns CLI_PARSE_CONTINUE with the arguments left in
 * argv[0..*nargs); otherwise the command is done and the return value is its
 * exit status: CMD_OK after --help (printed), CMD_USAGE after saying why
 * (the usage line follows the error), or a callback's status.
 */
int cli_parse_options(const struct cli_command *cmd, void *base, struct cli_common *common,
		      int argc, char **argv, int *nargs);
/*
 * A first pass over argv that runs only the callbacks (with ctx->prescan
 * set) and says nothing: for options that must act before the others
 * (a configuration file the other options override). argv is not changed.
 * Returns 0 or a callback's status.
 */
int cli_prescan_options(const struct cli_command *cmd, void *base, int argc, char **argv);

/*
 * Calls fn on every option the command takes and lists in its help, in the
 * help's order: its table (subtables included) then, unless CLI_NO_COMMON,
 * --threads, --quiet and --allow-unrelated.
 */
void cli_options_each(const struct cli_command *cmd,
		      void (*fn)(const struct cli_option *o, void *data), void *data);
/* Whether o takes a value (--name VALUE), possibly optional (CLI_OPTF_OPTARG). */
bool cli_option_takes_value(const struct cli_option *o);

/* Appends the command's help text to sb. */
void cli_options_help(const struct cli_command *cmd, struct gp_strbuf *sb);
/* Prints it to stdout. */
void cli_print_help(const struct cli_command *cmd);
/*
 * Called with the command's struct cli_common (NULL when it has none) each
 * time cli_parse_options has read a command's options without error: the
 * settings resolved once per command (cli_display_apply).
 */
void cli_set_parse_done(void (*done)(struct cli_common *common));
/* Text cli_options_help appends after every command's help (the exit statuses). */
void cli_set_help_tail(void (*tail)(const struct cli_command *cmd, struct gp_strbuf *sb));

/* "gpuprof: error: ..." and the command's usage line; returns CMD_USAGE. */
GP_PRINTF(2, 3) int cli_opt_usage_error(const struct cli_ctx *ctx, const char *fmt, ...);

/*
 * Compiles pattern (PCRE2, UTF) to check it: 0, or CMD_USAGE after saying
 * "bad WHAT 'PATTERN' at offset N: REASON" (CLI_OPTF_REASON_FIRST in flags:
 * "bad WHAT 'PATTERN': REASON at offset N").
 */
int cli_check_regex(const char *pattern, const char *what, unsigned flags);
/* "123" (digits only) at most max; false when malformed or larger. */
bool cli_parse_uint(const char *s, uint64_t max, uint64_t *out);

/* ---- table entries */

#define CLI_FIELD_(st, f) .off = offsetof(st, f), .size = sizeof(((st *)0)->f)

#define CLI_OPT_END() {.type = CLI_OPT_END}
#define CLI_OPT_GROUP(heading, column, long_indent)                                                \
	{.type = CLI_OPT_GROUP, .help = (heading), .col = (column), .indent = (long_indent)}
#define CLI_OPT_TEXT(text) {.type = CLI_OPT_TEXT, .help = (text)}
#define CLI_OPT_HELP(fl) {.type = CLI_OPT_HELP, 'h', "help", NULL, "this text", .flags = (fl)}
#define CLI_OPT_BOOL(s, l, st, f, h)                                                               \
	{.type = CLI_OPT_SET, (s), (l), NULL, (h), CLI_FIELD_(st, f), .value = 1}
#define CLI_OPT_SETV(s, l, st, f, v, h)                                                            \
	{.type = CLI_OPT_SET, (s), (l), NULL, (h), CLI_FIELD_(st, f), .value = (v)}
#define CLI_OPT_BITV(s, l, st, f, v, h)                                                            \
	{.type = CLI_OPT_BIT, (s), (l), NULL, (h), CLI_FIELD_(st, f), .value = (v)}
#define CLI_OPT_STR(s, l, a, st, f, h)                                                             \
	{.type = CLI_OPT_STRING, (s), (l), (a), (h), CLI_FIELD_(st, f)}
#define CLI_OPT_UINTV(s, l, a, st, f, lo, hi, e, h)                                                \
	{.type = CLI_OPT_UINT, (s), (l), (a), (h), CLI_FIELD_(st, f), .umin = (lo), .umax = (hi),  \
	 .err = (e)}
#define CLI_OPT_DUR(s, l, a, st, f, hi, h)                                                         \
	{.type = CLI_OPT_DURATION, (s), (l), (a), (h), CLI_FIELD_(st, f), .umax = (hi),            \
	 .err = "bad duration '%s' (a number of ns, or with a unit: ns, us, ms, s)"}
#define CLI_OPT_ENUMV(s, l, a, st, f, vals, e, h)                                                  \
	{.type = CLI_OPT_ENUM, (s), (l), (a), (h), CLI_FIELD_(st, f), .values = (vals), .err = (e)}
#define CLI_OPT_ENUMP(s, l, a, st, f, fn, e, h)                                                    \
	{.type = CLI_OPT_ENUM, (s), (l), (a), (h), CLI_FIELD_(st, f), .parse = (fn), .err = (e)}
#define CLI_OPT_RE(s, l, a, st, f, what, h)                                                        \
	{.type = CLI_OPT_REGEX, (s), (l), (a), (h), CLI_FIELD_(st, f), .err = (what)}
#define CLI_OPT_CB(s, l, a, fn, h) {.type = CLI_OPT_CALLBACK, (s), (l), (a), (h), .cb = (fn)}
#define CLI_OPT_SUB(tbl, st, f, fl)                                                                \
	{.type = CLI_OPT_SUBTABLE, .off = offsetof(st, f), .sub = (tbl), .flags = (fl)}

#endif
