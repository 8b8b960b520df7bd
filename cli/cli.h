/* SPDX-License-Identifier: MIT */
/*
 * cli.h - shared by the gpuprof command and its subcommands (cli/ only).
 */
#ifndef GP_CLI_H
#define GP_CLI_H

#include "base/base.h"
#include "analyze/mfu.h" /* struct gpa_mfu_opts */
#include "cli/parse-options.h"

#include <stdio.h>

enum cmd_exit {
	CMD_OK = 0,
	CMD_ERROR = 1,
	CMD_USAGE = 2,
	CMD_REGRESSION = 3,
};

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const struct cli_command *opts; /* its options and help text */
};

/* The command table (gpuprof.c). */
extern const struct cmd cmd_table[];
extern const size_t cmd_count;

int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_gaps(int argc, char **argv);
int cmd_comm(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_breakdown(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_occupancy(int argc, char **argv);
int cmd_mfu(int argc, char **argv);
int cmd_devices(int argc, char **argv);
extern const struct cli_command cmd_info_opts;
extern const struct cli_command cmd_dump_opts;
extern const struct cli_command cmd_gaps_opts;
extern const struct cli_command cmd_comm_opts;
extern const struct cli_command cmd_convert_opts;
extern const struct cli_command cmd_record_opts;
extern const struct cli_command cmd_report_opts;
extern const struct cli_command cmd_stats_opts;
extern const struct cli_command cmd_breakdown_opts;
extern const struct cli_command cmd_export_opts;
extern const struct cli_command cmd_diff_opts;
extern const struct cli_command cmd_flame_opts;
extern const struct cli_command cmd_occupancy_opts;
extern const struct cli_command cmd_mfu_opts;
extern const struct cli_command cmd_devices_opts;

/* "gpuprof: error: ..." on stderr. */
GP_PRINTF(1, 2) void cli_error(const char *fmt, ...);
GP_PRINTF(1, 2) void cli_warn(const char *fmt, ...);
/* Prints the usage line of help to stderr with the error; returns CMD_USAGE. */
GP_PRINTF(2, 3) int cli_usage_error(const char *help, const char *fmt, ...);
/* The usage error of a command (its usage line after the error); returns CMD_USAGE. */
#define cli_cmd_usage_error(cmd, ...) cli_usage_error((cmd)->usage, __VA_ARGS__)

enum cli_exit_flags {
	CLI_NOTFOUND_IS_USAGE = 1u << 0, /* -GP_ERR_NOTFOUND: a name the user gave (a device) */
};
/*
 * The exit status for 0 or a negative enum gp_err: CMD_OK; CMD_USAGE for
 * -GP_ERR_API (a pattern or value the user gave), and for -GP_ERR_NOTFOUND
 * with CLI_NOTFOUND_IS_USAGE; CMD_ERROR otherwise.
 */
int cli_exit_code(int err, unsigned flags);
/* "10us", "1.5ms", "250" (ns), "2s" -> ns; false when malformed or too large. */
bool cli_parse_duration(const char *s, uint64_t *out);
struct gpa_model;
struct gpa_steps;
/*
 * Loads trace files and directories of them into m, with progress on a
 * terminal when it takes more than a second; errors are reported (exit 1),
 * truncated and corrupt files warned about. Returns 0 or a negative error.
 */
int cli_load_model(struct gpa_model *m, char **args, size_t nargs);
/*
 * cli_load_model, then the steps (step_regex as --step; NULL the default).
 * Returns CMD_OK, or CMD_ERROR / CMD_USAGE (a bad regex) said, with the
 * model released.
 */
int cli_load_steps(struct gpa_model *m, char **args, size_t nargs, const char *step_regex,
		   struct gpa_steps *steps);
/* Writes all of buf to stdout; false on error (reported). */
bool cli_write_stdout(const void *buf, size_t len);
/* Writes buf to path through a temporary file renamed over it; false (said) on error. */
bool cli_write_file(const char *path, const void *buf, size_t len);

/* ---- how text reads (cli/display.c, docs/units.md) */

/* The width text fits: COLUMNS, else the terminal's, else 120. */
void cli_display_init(void);
/* --timeunit auto|ns and --wide: a subtable (CLI_OPT_DISPLAY) any command adds. */
extern const struct cli_option cli_display_options[];
/* --wide alone, for a command with a --timeunit of its own (stats). */
extern const struct cli_option cli_wide_options[];
#define CLI_OPT_DISPLAY() {.type = CLI_OPT_SUBTABLE, .sub = cli_display_options}

/* ---- MFU options shared by gpuprof mfu and gpuprof report (cli/cmd-mfu.c) */

struct cli_mfu {
	struct gpa_mfu_opts a;
	const char *device_file;
	struct gpa_devrow *rows; /* from device_file */
	size_t nrows;
	const char *roofline_file;
	struct gpa_roof_rules *roof; /* from roofline_file */
};
/* The MFU options, a subtable (CLI_OPT_SUB) over a struct cli_mfu. */
extern const struct cli_option cli_mfu_options[];
void cli_mfu_init(struct cli_mfu *o);
void cli_mfu_release(struct cli_mfu *o);
/* Reads --device-file (at most 1 MiB, untrusted); -1 after saying why. */
int cli_mfu_load_file(struct cli_mfu *o);

#endif
