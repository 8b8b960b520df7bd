/* SPDX-License-Identifier: MIT */
/*
 * cli.h - shared by the gpuprof command and its subcommands (cli/ only).
 */
#ifndef GP_CLI_H
#define GP_CLI_H

#include "base/base.h"

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
	const char *help; /* the full --help text: usage line first */
};

/* The command table (gpuprof.c). */
extern const struct cmd cmd_table[];
extern const size_t cmd_count;

int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_gaps(int argc, char **argv);
extern const char cmd_info_help[];
extern const char cmd_dump_help[];
extern const char cmd_gaps_help[];

/* "gpuprof: error: ..." on stderr. */
GP_PRINTF(1, 2) void cli_error(const char *fmt, ...);
GP_PRINTF(1, 2) void cli_warn(const char *fmt, ...);
/* Prints the usage line of help to stderr with the error; returns CMD_USAGE. */
GP_PRINTF(2, 3) int cli_usage_error(const char *help, const char *fmt, ...);
/* Writes all of buf to stdout; false on error (reported). */
bool cli_write_stdout(const void *buf, size_t len);

#endif
