/* SPDX-License-Identifier: MIT */
/*
 * exit-status.c - the one table of exit statuses: every command's help, the
 * command list and the manual's EXIT STATUS section are rendered from it.
 *
 * A row names the commands it is for ("*": all but those in except); a
 * command's own row for a status replaces the "*" row for it.
 */
#include "base/compat.h"
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

struct exit_row {
	const char *cmds;   /* space-separated command names, or "*" */
	const char *except; /* with "*": commands the row is not for */
	const char *status;
	const char *meaning;
};

static const struct exit_row rows[] = {
	{"*", "record", "0", "success"},
	{"diff", NULL, "0", "no gated metric regressed"},
	{"record", NULL, "N", "CMD's own exit status; 128 + the signal number if it died"},
	{"*", "help", "1", "a trace could not be read or an output could not be written"},
	{"info dump", NULL, "1", "a file could not be read or has corrupt chunks"},
	{"devices", NULL, "1", "the device file could not be read"},
	{"completion", NULL, "1", "the script could not be written"},
	{"mfu", NULL, "1", "a trace or the device file could not be read, or an output written"},
	{"record", NULL, "1", "gpuprof failed before running CMD"},
	{"trigger", NULL, "0", "the program took the request (or a save was on its way)"},
	{"trigger", NULL, "1", "refused, cooling down, or no program recording with --flight"},
	{"*", NULL, "2", "usage: an unknown command or option, a bad value, a missing argument"},
	{"diff", NULL, "3", "a gated metric regressed"},
	{"record", NULL, "126", "CMD could not be run"},
	{"record", NULL, "127", "CMD was not found"},
};

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		size_t k = strcspn(p, " ");

		if (k == n && !memcmp(p, name, n)) {
			return true;
		}
		p += k + (p[k] == ' ');
	}
	return false;
}

static bool row_applies(const struct exit_row *r, const char *name)
{
	if (strcmp(r->cmds, "*")) {
		return in_list(r->cmds, name);
	}
	if (in_list(r->except, name)) {
		return false;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(rows); i++) {
		if (strcmp(rows[i].cmds, "*") && !strcmp(rows[i].status, r->status) &&
		    in_list(rows[i].cmds, name)) {
			return false; /* the command's own row says it */
		}
	}
	return true;
}

void cli_exit_status_rows(const char *name, struct gp_strbuf *sb)
{
	for (size_t i = 0; i < GP_ARRAY_SIZE(rows); i++) {
		const struct exit_row *r = &rows[i];

		if (!name) {
			/* Every row; a command's own row names it. */
			gp_strbuf_addf(sb, "  %-4s %s%s%s%s\n", r->status, r->meaning,
				       strcmp(r->cmds, "*") ? " (" : "",
				       strcmp(r->cmds, "*") ? r->cmds : "",
				       strcmp(r->cmds, "*") ? ")" : "");
		} else if (row_applies(r, name)) {
			gp_strbuf_addf(sb, "  %-4s %s\n", r->status, r->meaning);
		}
	}
}

int cli_exit_status_checked(const char *name, int status)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", status);
	for (size_t i = 0; i < GP_ARRAY_SIZE(rows); i++) {
		if (!row_applies(&rows[i], name)) {
			continue;
		}
		if (!strcmp(rows[i].status, num) ||
		    (!strcmp(rows[i].status, "N") && status >= 0 && status <= 255)) {
			return status;
		}
	}
	/* A negative enum gp_err, or a status the table does not give: an error. */
	return status < 0 ? cli_exit_code(status, 0) : CMD_ERROR;
}

/* After a command's help (cli_set_help_tail): its exit statuses. */
static void help_tail(const struct cli_command *cmd, struct gp_strbuf *sb)
{
	for (size_t i = 0; i < cmd_count; i++) {
		if (cmd_table[i].opts == cmd) {
			if (sb->len && sb->buf[sb->len - 1] != '\n') {
				gp_strbuf_addch(sb, '\n');
			}
			if (sb->len > 1 && sb->buf[sb->len - 2] != '\n') {
				gp_strbuf_addch(sb, '\n');
			}
			gp_strbuf_adds(sb, "Exit status:\n");
			cli_exit_status_rows(cmd_table[i].name, sb);
			return;
		}
	}
}

void cli_exit_status_init(void)
{
	cli_set_help_tail(help_tail);
}
