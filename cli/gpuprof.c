/* SPDX-License-Identifier: MIT */
/*
 * gpuprof - the command: a table of subcommands, help, version, and the
 * checks every command ends with (stdout flushed and closed).
 */
#include "base/compat.h"
#include "cli/cli.h"
#include "trace/trace.h"

#include <malloc.h>
#include <stdio.h>

#ifndef GP_VERSION
#define GP_VERSION "unknown"
#endif

static int cmd_help(int argc, char **argv);

struct help_opts {
	bool man;
};

static const struct cli_option help_options[] = {
	{.type = CLI_OPT_SET, 0, "man", NULL, NULL, CLI_FIELD_(struct help_opts, man), .value = 1,
	 .flags = CLI_OPTF_HIDDEN},
	CLI_OPT_HELP(CLI_OPTF_HIDDEN),
	CLI_OPT_END(),
};

/* The help lists no options; an argument that is not one is a command's name. */
static const struct cli_command cmd_help_opts = {
	.usage = "usage: gpuprof help [COMMAND | --man]\n"
		 "\n"
		 "Lists the commands, shows one command's help, or prints the manual page\n"
		 "(troff, for man(1)) with --man.\n",
	.options = help_options,
	.flags = CLI_KEEP_DASHDASH | CLI_KEEP_UNKNOWN | CLI_NO_COMMON,
};

const struct cmd cmd_table[] = {
	{"record", cmd_record, "run a program and record its GPU activity", &cmd_record_opts},
	{"trigger", cmd_trigger, "ask a program recording with --flight to save its recording now",
	 &cmd_trigger_opts},
	{"report", cmd_report,
	 "the one-stop answer: steps, GPU busy and idle by cause, top kernels, gaps",
	 &cmd_report_opts},
	{"convert", cmd_convert, "write a Kineto JSON or nsys SQLite trace as a .gpz",
	 &cmd_convert_opts},
	{"info", cmd_info, "what a trace file holds: process, devices, counts, span, losses",
	 &cmd_info_opts},
	{"dump", cmd_dump, "every record of a trace as text or JSON Lines", &cmd_dump_opts},
	{"stats", cmd_stats, "nsys-style summaries and the GPU trace: kernels, memory, API, NVTX",
	 &cmd_stats_opts},
	{"gaps", cmd_gaps, "when each GPU was idle and why: busy %, idle by cause, longest gaps",
	 &cmd_gaps_opts},
	{"launches", cmd_launches,
	 "launch calls and delays, queue length per stream, copy bandwidth, idle intervals",
	 &cmd_launches_opts},
	{"ops", cmd_ops, "GPU work by the PyTorch operator that launched it: FLOPs, bytes, roofline",
	 &cmd_ops_opts},
	{"memory", cmd_memory,
	 "GPU memory over time: peaks and what held them, growth per step, fragmentation",
	 &cmd_memory_opts},
	{"breakdown", cmd_breakdown, "HTA's time breakdowns: idle/compute, idle causes, overlap",
	 &cmd_breakdown_opts},
	{"diff", cmd_diff, "did the candidate runs regress against the baseline, beyond noise",
	 &cmd_diff_opts},
	{"flame", cmd_flame, "GPU-time flame graphs: folded, SVG, speedscope; differential",
	 &cmd_flame_opts},
	{"export", cmd_export, "write traces as an nsys-compatible SQLite export",
	 &cmd_export_opts},
	{"occupancy", cmd_occupancy,
	 "theoretical occupancy per kernel launch: limiter, what-if, waves, per step",
	 &cmd_occupancy_opts},
	{"mfu", cmd_mfu, "step MFU/HFU/MBU against the device peak; copy bandwidth vs the link",
	 &cmd_mfu_opts},
	{"devices", cmd_devices, "the GPU peak table: dense TFLOP/s per datatype, bandwidths",
	 &cmd_devices_opts},
	{"critical-path", cmd_critical_path,
	 "the chain of work that sets each step's time; what-if speedups", &cmd_critical_path_opts},
	{"comm", cmd_comm, "communication: NCCL bandwidth, exposed communication, stragglers",
	 &cmd_comm_opts},
	{"completion", cmd_completion, "bash and zsh completion scripts made from the options",
	 &cmd_completion_opts},
	{"help", cmd_help, "this list, a command's help, or the manual page", &cmd_help_opts},
};
const size_t cmd_count = GP_ARRAY_SIZE(cmd_table);

static const char intro[] =
	"gpuprof records what the GPU and the CUDA runtime did in a program and\n"
	"analyzes the traces.\n";

static void list_commands(FILE *f)
{
	fprintf(f, "usage: gpuprof [--version] [--help] COMMAND [ARGS]\n\n%s\ncommands:\n", intro);
	for (size_t i = 0; i < cmd_count; i++) {
		fprintf(f, "  %-8s  %s\n", cmd_table[i].name, cmd_table[i].summary);
	}
	struct gp_strbuf sb = GP_STRBUF_INIT;

	cli_exit_status_rows(NULL, &sb);
	fprintf(f, "\n'gpuprof COMMAND --help' shows a command's options and exit statuses.\n"
		   "Exit status:\n%s", sb.failed ? "" : sb.buf);
	gp_strbuf_release(&sb);
}

/* The command called name, or NULL after saying so with the nearest name (exit 2). */
static const struct cmd *find_cmd(const char *name)
{
	struct cli_suggest s;
	const char *best;

	cli_suggest_init(&s, name);
	for (size_t i = 0; i < cmd_count; i++) {
		if (!strcmp(cmd_table[i].name, name)) {
			return &cmd_table[i];
		}
		cli_suggest_add(&s, cmd_table[i].name);
	}
	best = cli_suggest_best(&s);
	if (best) {
		cli_error("no such command: '%s'; did you mean '%s'?", name, best);
	} else {
		cli_error("no such command: '%s'; see 'gpuprof help'", name);
	}
	return NULL;
}

/*
 * The manual's ENVIRONMENT section: every GPUPROF_* variable, one line each
 * (docs/recording.md has the recording library's in full).
 */
static const char *const env_vars[][2] = {
	{"GPUPROF_OUTPUT", "recording: the trace file pattern (%p pid, %h host); record -o"},
	{"GPUPROF_KINDS", "recording: the record kinds to capture, comma-separated (all)"},
	{"GPUPROF_CAPTURE", "recording: what part of the run to capture; record --capture"},
	{"GPUPROF_BUFFER_MB", "recording: the bounded buffer pool in MiB (default 64)"},
	{"GPUPROF_FLUSH_MS", "recording: the writer flushes at least this often, ms (200)"},
	{"GPUPROF_FORK", "recording: a forked child writes its own trace (child) or none (off)"},
	{"GPUPROF_BACKTRACE", "recording: CPU stack frames captured per launch (0 or unset: off)"},
	{"GPUPROF_BACKTRACE_METHOD", "recording: how stacks are walked: auto, fp or unwind"},
	{"GPUPROF_NVTX_CLOCK", "recording: the clock of NVTX stamps: auto, tsc or monotonic"},
	{"GPUPROF_FLIGHT", "flight recorder: keep the last SECONDS in memory (record --flight)"},
	{"GPUPROF_FLIGHT_MB", "flight recorder: the ring's bound in MiB (256)"},
	{"GPUPROF_FLIGHT_ON", "flight recorder: the triggers (slow-step,signal,cuda-error,crash,rank,nccl-error)"},
	{"GPUPROF_FLIGHT_AFTER", "flight recorder: seconds recorded after a trigger before the save"},
	{"GPUPROF_FLIGHT_COOLDOWN", "flight recorder: at most one save per this many seconds (60)"},
	{"GPUPROF_FLIGHT_SLOW", "flight recorder: a step over K x the median is slow (3)"},
	{"GPUPROF_FLIGHT_STEPS", "flight recorder: the median is of the last M steps (50)"},
	{"GPUPROF_FLIGHT_STEP", "flight recorder: POSIX regex of step range names"},
	{"GPUPROF_FLIGHT_SIGNAL", "flight recorder: the trigger signal: USR2 (default), USR1, none"},
	{"GPUPROF_FLIGHT_DIR", "flight recorder: a directory the ranks share for triggers"},
	{"GPUPROF_CUPTI_PATH", "recording: the libcupti to load instead of the default search"},
	{"GPUPROF_EXIT_TIMEOUT_MS", "recording: how long exit and signals wait for the writer, ms"},
	{"GPUPROF_MANIFEST", "recording: a file each traced process adds its trace's path to"},
	{"GPUPROF_DEBUG", "recording: 1 writes a signal-safe debug log on stderr"},
	{"GPUPROF_QUIET", "recording: 1 leaves out the line on stderr that says records were lost"},
	{"GPUPROF_EXEC_CHAIN", "internal: kept by the recording library across exec"},
	{"GPUPROF_INJECT_LIB",
	 "record: the recording library, when not beside gpuprof or in ../lib/gpuprof/"},
	{"GPUPROF_MPI_PLUGIN",
	 "--mpi: the MPI plugin, when not beside gpuprof or in ../lib/gpuprof/"},
	{"GPUPROF_LOG", "what the libraries say on stderr: debug or trace for more"},
	{"GPUPROF_PROGRESS_AFTER", "ms of work before progress shows on a terminal"},
	{"GPUPROF_THREADS", "threads that read traces when --threads is not given (default: one per core the process may run on)"},
	{"GPUPROF_ANCHORS", "the test suite only: where the real traces it checks lie"},
	{"GPUPROF_STRESS", "the test suite only: 1 runs the full sizes under the sanitizers (make stress)"},
};

/* Text for troff: escape backslashes and leading dots/quotes. */
static void man_text(const char *s)
{
	bool bol = true;

	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\'')) {
			fputs("\\&", stdout);
		}
		if (*s == '\\') {
			fputs("\\e", stdout);
		} else if (*s == '-') {
			fputs("\\-", stdout);
		} else {
			putchar(*s);
		}
		bol = *s == '\n';
	}
}

static void print_man(void)
{
	printf(".TH GPUPROF 1 \"\" \"gpuprof %s\" \"User Commands\"\n", GP_VERSION);
	puts(".SH NAME\ngpuprof \\- GPU profiling and trace analysis");
	puts(".SH SYNOPSIS\n.B gpuprof\n[\\-\\-version] [\\-\\-help]\n.I COMMAND\n[ARGS]");
	puts(".SH DESCRIPTION");
	man_text(intro);
	puts(".SH COMMANDS");
	for (size_t i = 0; i < cmd_count; i++) {
		struct gp_strbuf help = GP_STRBUF_INIT;
		cli_options_help(cmd_table[i].opts, &help);
		printf(".SS %s\n.nf\n", cmd_table[i].name);
		man_text(help.failed ? "" : help.buf);
		puts(".fi");
		gp_strbuf_release(&help);
	}
	{
		struct gp_strbuf ex = GP_STRBUF_INIT;

		cli_exit_status_rows(NULL, &ex);
		puts(".SH EXIT STATUS\n.nf");
		man_text(ex.failed ? "" : ex.buf);
		puts(".fi");
		gp_strbuf_release(&ex);
	}
	puts(".SH ENVIRONMENT");
	for (size_t i = 0; i < GP_ARRAY_SIZE(env_vars); i++) {
		printf(".TP\n.B %s\n", env_vars[i][0]);
		man_text(env_vars[i][1]);
		putchar('\n');
	}
	puts(".SH FILES\nTraces are .gpz files; their format is described in FORMAT.md.");
}

static int cmd_help(int argc, char **argv)
{
	struct help_opts o = {0};
	int nargs, status;

	if (argc > 2) {
		return cli_cmd_usage_error(&cmd_help_opts, "help takes at most one argument");
	}
	status = cli_parse_options(&cmd_help_opts, &o, NULL, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (o.man) {
		print_man();
		return CMD_OK;
	}
	if (nargs) {
		const struct cmd *c = find_cmd(argv[0]);
		if (!c) {
			return CMD_USAGE;
		}
		cli_print_help(c->opts);
		return CMD_OK;
	}
	list_commands(stdout);
	return CMD_OK;
}

static int finish(int status)
{
	/* Output that did not reach its destination is an error [git]. */
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE) {
			fprintf(stderr, "gpuprof: error: cannot write to standard output: %s\n",
				strerror(errno));
		}
		return CMD_ERROR;
	}
	if (fclose(stdout)) {
		if (errno != EPIPE) {
			fprintf(stderr, "gpuprof: error: cannot close standard output: %s\n",
				strerror(errno));
		}
		return CMD_ERROR;
	}
	return status;
}

/*
 * How much the libraries log on stderr: GPUPROF_LOG=error|warn|info|debug|
 * trace, warn by default. Library code logs only at debug and trace, so the
 * default output is what the commands print themselves.
 */
static enum gp_log_level log_level(void)
{
	const char *v = getenv("GPUPROF_LOG");
	enum gp_log_level level = GP_LOG_WARN;

	if (v && *v && !gp_log_level_parse(v, &level)) {
		cli_warn("GPUPROF_LOG=%s is not one of error, warn, info, debug, trace; using warn",
			 v);
	}
	return level;
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	/*
	 * Memory freed stays in the heap for the next array: an analysis frees
	 * its scratch (sort permutations, per-row lists of millions of rows) and
	 * the next one reuses those pages instead of faulting in fresh ones,
	 * which the kernel must zero first (a quarter of `report`'s CPU time on
	 * ten million events, docs/performance.md). Arrays of 32 MiB and more
	 * stay mmapped, so growing one with realloc is mremap, not a copy; the
	 * threshold is fixed (glibc's dynamic one would move them to the heap
	 * after the first free). Runs of diff and ranks of a job load one after
	 * another and reuse each other's pages the same way.
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	gp_log_set_sink(gp_log_stderr_sink, NULL, log_level());
	cli_set_parse_done(cli_display_apply);
	cli_exit_status_init();
	if (argc < 2) {
		list_commands(stderr);
		return CMD_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("gpuprof %s (trace format %d.%d)\n", GP_VERSION, GPT_FORMAT_MAJOR,
		       GPT_FORMAT_MINOR);
		return finish(CMD_OK);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		list_commands(stdout);
		return finish(CMD_OK);
	}
	c = find_cmd(argv[1]);
	if (!c) {
		return CMD_USAGE;
	}
	if (c->fn != cmd_record) {
		cli_signals_init();
	}
	return finish(cli_exit_status_checked(c->name, c->fn(argc - 1, argv + 1)));
}
