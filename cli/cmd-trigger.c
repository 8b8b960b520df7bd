/* SPDX-License-Identifier: MIT */
/*
 * cmd-trigger.c - `gpuprof trigger PID`: asks a program recorded with
 * --flight to save its flight recording (docs/flight-recorder.md), through
 * the abstract Unix socket "gpuprof-flight-PID" its recording library
 * listens on. The library accepts only its own user (SO_PEERCRED); this
 * command also refuses a PID of another user before connecting.
 *
 * Also cli_flight_compare() for `gpuprof report`: what a flight recording
 * was saved for, and its slow step against the median step.
 */
#include "base/compat.h"
#include "cli/cli.h"
#include "cli/parse-options.h"
#include "analyze/flight.h"
#include "analyze/steps.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

struct trigger_opts {
	const char *text;
};

static const struct cli_option trigger_options[] = {
	CLI_OPT_GROUP("options:\n", 24, 6),
	CLI_OPT_STR(0, "why", "TEXT", struct trigger_opts, text,
		       "a reason, stored with the trigger in the saved file"),
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};

const struct cli_command cmd_trigger_opts = {
	.usage = "usage: gpuprof trigger [--why TEXT] PID\n"
		 "\n"
		 "Asks the program PID, recorded with `gpuprof record --flight`, to save its\n"
		 "flight recording now (the same as its flight signal, SIGUSR2 by default).\n"
		 "Only a program of the same user is asked. The answer is one line: accepted,\n"
		 "cooling down (the last save was too recent) or pending (a save is on its way).\n\n",
	.options = trigger_options,
	.flags = CLI_NO_COMMON,
};

static int ask(unsigned pid, const char *text, char *ans, size_t size)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	char name[64], req[300];
	int n = snprintf(name, sizeof(name), "gpuprof-flight-%u", pid);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ans[0] = '\0';
	if (fd < 0) {
		return -1;
	}
	memcpy(a.sun_path + 1, name, (size_t)n);
	if (connect(fd, (struct sockaddr *)&a,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n))) {
		close(fd);
		return -1;
	}
	int rl = snprintf(req, sizeof(req), "trigger%s%s\n", text ? " " : "", text ? text : "");
	if (write(fd, req, (size_t)rl) != rl) {
		close(fd);
		return -1;
	}
	size_t got = 0;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	while (got < size - 1 && poll(&p, 1, 5000) > 0) {
		ssize_t r = read(fd, ans + got, size - 1 - got);
		if (r <= 0) {
			break;
		}
		got += (size_t)r;
	}
	ans[got] = '\0';
	ans[strcspn(ans, "\n")] = '\0';
	close(fd);
	return 0;
}

int cmd_trigger(int argc, char **argv)
{
	struct trigger_opts o = {0};
	int nargs, status;
	char ans[200], proc[64], *end;
	struct stat sb;

	status = cli_parse_options(&cmd_trigger_opts, &o, NULL, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (nargs != 1) {
		return cli_cmd_usage_error(&cmd_trigger_opts, "one PID expected");
	}
	unsigned long pid = strtoul(argv[0], &end, 10);
	if (*end || !pid || pid > 4194304 || argv[0][0] == '-') {
		return cli_cmd_usage_error(&cmd_trigger_opts, "bad PID '%s'", argv[0]);
	}
	if (o.text && strchr(o.text, '\n')) {
		return cli_cmd_usage_error(&cmd_trigger_opts, "--why takes one line");
	}
	snprintf(proc, sizeof(proc), "/proc/%lu", pid);
	if (stat(proc, &sb)) {
		cli_error("no process %lu", pid);
		return CMD_ERROR;
	}
	if (sb.st_uid != geteuid()) {
		cli_error("process %lu belongs to another user", pid);
		return CMD_ERROR;
	}
	if (ask((unsigned)pid, o.text, ans, sizeof(ans))) {
		cli_error("process %lu is not recording with --flight (no trigger socket)", pid);
		return CMD_ERROR;
	}
	printf("%lu: %s\n", pid, ans[0] ? ans : "no answer");
	return !strcmp(ans, "accepted") || !strncmp(ans, "pending", 7) ? CMD_OK : CMD_ERROR;
}

int cli_flight_compare(const struct gpa_model *m, const struct gpa_steps *steps,
		       const struct gpa_commclass *cc, struct gpa_flight_info *fi,
		       struct gpa_flight_cmp *cmp)
{
	char err[512];
	int ret = gpa_flight_of_model(m, fi);

	memset(cmp, 0, sizeof(*cmp));
	if (ret || !fi->is_flight) {
		return ret;
	}
	ret = gpa_flight_compare(m, steps, cc, fi, cmp, err, sizeof(err));
	if (ret && ret != -GP_ERR_NOMEM) {
		cli_warn("%s: cannot compare the slow step: %s", m->procs.v[fi->proc].path, err);
		gpa_flight_cmp_release(cmp);
		ret = 0;
	}
	return ret;
}
