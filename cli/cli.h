/* SPDX-License-Identifier: MIT */
/*
 * cli.h - shared by the gpuprof command and its subcommands (cli/ only).
 */
#ifndef GP_CLI_H
#define GP_CLI_H

#include "base/base.h"
#include "analyze/mfu.h" /* struct gpa_mfu_opts */
#include "cli/parse-options.h"
#include "report/report.h" /* struct gpr_display */

#include <pthread.h>
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

/*
 * The exit status table (exit-status.c): init makes every command's help end with its
 * rows; rows appends them for the command name, or all of them (naming their commands)
 * for NULL.
 */
void cli_exit_status_init(void);
void cli_exit_status_rows(const char *name, struct gp_strbuf *sb);
/*
 * The exit status command name exits with: status when the table gives it
 * for the command; else 1 (a negative enum gp_err: as cli_exit_code says).
 */
int cli_exit_status_checked(const char *name, int status);

/* The command table (gpuprof.c). */
extern const struct cmd cmd_table[];
extern const size_t cmd_count;

int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_gaps(int argc, char **argv);
int cmd_launches(int argc, char **argv);
int cmd_ops(int argc, char **argv);
int cmd_memory(int argc, char **argv);
int cmd_comm(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_trigger(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_breakdown(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_occupancy(int argc, char **argv);
int cmd_mfu(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_critical_path(int argc, char **argv);
int cmd_completion(int argc, char **argv);
extern const struct cli_command cmd_info_opts;
extern const struct cli_command cmd_dump_opts;
extern const struct cli_command cmd_gaps_opts;
extern const struct cli_command cmd_launches_opts;
extern const struct cli_command cmd_ops_opts;
extern const struct cli_command cmd_memory_opts;
extern const struct cli_command cmd_comm_opts;
extern const struct cli_command cmd_convert_opts;
extern const struct cli_command cmd_record_opts;
extern const struct cli_command cmd_trigger_opts;
extern const struct cli_command cmd_report_opts;
extern const struct cli_command cmd_stats_opts;
extern const struct cli_command cmd_breakdown_opts;
extern const struct cli_command cmd_export_opts;
extern const struct cli_command cmd_diff_opts;
extern const struct cli_command cmd_flame_opts;
extern const struct cli_command cmd_occupancy_opts;
extern const struct cli_command cmd_mfu_opts;
extern const struct cli_command cmd_devices_opts;
extern const struct cli_command cmd_critical_path_opts;
extern const struct cli_command cmd_completion_opts;

/* "gpuprof: error: ..." on stderr. */
GP_PRINTF(1, 2) void cli_error(const char *fmt, ...);
GP_PRINTF(1, 2) void cli_warn(const char *fmt, ...);
/*
 * The error of a library call that returned ret (< 0) with its detail in err:
 * err, or what ret means where the callee left err empty; out of memory,
 * err only when it says "out of memory" (callees often leave it unwritten).
 */
void cli_error_ret(int ret, const char *err);
/*
 * While sb is set, this thread's cli_error and cli_warn lines go to sb, not
 * stderr (NULL: written again): work on a worker thread keeps its messages
 * for the main thread to write in input order. No progress is shown meanwhile.
 */
void cli_capture_messages(struct gp_strbuf *sb);
bool cli_capturing(void);

/*
 * SIGINT, SIGTERM and SIGHUP (unless ignored) remove the named temporaries
 * (gp_cleanup_run) and end the process by the signal; streams given as
 * inputs say on stderr when they wait for a writer or are left out of a
 * directory (cli/signals.c). Not for record, which passes signals on.
 */
void cli_signals_init(void);
/*
 * fopen(path, "rb") of a file the user names (rules, a device file): a FIFO
 * with no writer is said ("PATH: waiting for a writer") before the open
 * waits. NULL with errno on failure.
 */
FILE *cli_fopen_input(const char *path);
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
struct cli_common;
int cli_load_model(struct cli_common *c, struct gpa_model *m, char **args, size_t nargs);
/*
 * As cli_load_model, reading on threads threads (0: the command's,
 * cli_common_threads) and leaving out the columns drop names (enum gpa_drop).
 */
int cli_load_model_ex(struct cli_common *c, struct gpa_model *m, char **args, size_t nargs,
		      unsigned threads, unsigned drop);
/*
 * The model's implausible data (analyze/sanity.h), one warning each on
 * standard error, after "path: " unless path is NULL; cli_load_model_ex
 * says them for every command.
 */
void cli_sanity_warn(const struct gpa_model *m, const char *path);
/*
 * Unless --allow-unrelated: whether the model's traces are one run
 * (analyze/related.h); when they are not, says why (exit 1) and returns
 * -GP_ERR_FORMAT. cli_load_model_ex checks it for every command.
 */
int cli_check_related(const struct cli_common *c, const struct gpa_model *m);
/* ret of gpa_related_*: 1 said with why and -GP_ERR_FORMAT returned; else ret. */
int cli_refuse_unrelated(int ret, const char *why);
/*
 * cli_load_model, then the steps (step_regex as --step; NULL the default).
 * Returns CMD_OK, or CMD_ERROR / CMD_USAGE (a bad regex) said, with the
 * model released.
 */
int cli_load_steps(struct cli_common *c, struct gpa_model *m, char **args, size_t nargs,
		   const char *step_regex, struct gpa_steps *steps);
/* ---- options every command takes, resolved once per command (cli/threads.c) */

/*
 * --threads N and --quiet, which every command takes without naming them in
 * its table (cli/parse-options.c): the command owns one, zeroed, hands it to
 * cli_parse_options and passes it down to what loads traces and shows
 * progress. Nothing of it is process-wide.
 */
struct cli_common {
	unsigned threads_given; /* --threads N; 0: not given */
	bool quiet;             /* --quiet: no progress line */
	bool allow_unrelated;   /* --allow-unrelated: traces that are not one run taken together */
	unsigned threads;       /* what cli_common_threads resolved; 0: not yet */
	int timeunit;           /* --timeunit: enum gpr_time_unit + 1; 0: not given (auto) */
	bool wide;              /* --wide: names whole in text tables */
	/*
	 * How the command's text reads: --timeunit, --wide and the width,
	 * resolved once its options are read (cli_display_apply); the command
	 * passes it to every renderer.
	 */
	struct gpr_display display;
};
/* "N" from 1 to GPT_MAX_THREADS. */
bool cli_parse_threads(const char *s, unsigned *out);
/*
 * The threads to read traces and run analyses with: --threads, else
 * GPUPROF_THREADS, else one per core; resolved at the first call and kept in
 * c. Returns 0, or -GP_ERR_RANGE with a bad GPUPROF_THREADS said.
 */
int cli_common_threads(struct cli_common *c, unsigned *out);

/* ---- "did you mean" (cli/suggest.c) */

/* The name nearest to word among those added; ties suggest nothing. */
struct cli_suggest {
	const char *word;
	const char *best; /* borrowed from cli_suggest_add */
	unsigned dist;
	bool tie;
};
void cli_suggest_init(struct cli_suggest *s, const char *word);
/* Considers name (borrowed until cli_suggest_best's answer is used). */
void cli_suggest_add(struct cli_suggest *s, const char *name);
/* The nearest name within one or two edits (by length), or NULL. */
const char *cli_suggest_best(const struct cli_suggest *s);

/* ---- progress on stderr (cli/progress.c) */

struct cli_progress {
	uint64_t t0, last, delay_ns;
	bool on;    /* stderr is a terminal and not --quiet */
	bool shown; /* a line is on the screen */
};
/* Starts timing a job; the line shows only once it has run past the delay, never when quiet. */
void cli_progress_start(struct cli_progress *pr, bool quiet);
/* A gp_progress_cb function; data is the struct cli_progress. */
void cli_progress_fn(const struct gp_progress *p, void *data);
/* Erases the line, if one was drawn. */
void cli_progress_end(struct cli_progress *pr);
/* The text of the line (no \r), for p after elapsed_ns: what, percent, amounts, rate, time left. */
void cli_progress_line(struct gp_strbuf *sb, const struct gp_progress *p, uint64_t elapsed_ns);

/* Writes all of buf to stdout; false on error (reported). */
bool cli_write_stdout(const void *buf, size_t len);
/*
 * Writes buf to path as base/outfile.h says ("-" standard output; a device or
 * FIFO in place; else a temporary renamed over it); false (said) on error.
 */
bool cli_write_file(const char *path, const void *buf, size_t len);
/*
 * Refuses two outputs naming the same file (through links, "-" and
 * /dev/stdout alike), an output that is one of the inputs or one of the
 * traces an input directory holds (through symbolic links and hard links),
 * and, unless force, an output with a trace's name written into an input
 * directory, which the next run over it would read: a usage error said,
 * CMD_USAGE; else CMD_OK. NULL outputs are skipped.
 */
int cli_check_outputs(const struct cli_command *cmd, const char *const *outs, size_t nouts,
		      char *const *ins, size_t nins, bool force);

/* An output file extension a command writes, and the format (the command's own numbering). */
struct cli_out_ext {
	const char *ext;  /* without the dot: "svg" */
	int format;
	const char *name; /* the format's name for --format */
};
/*
 * Checks path's extension against the format (*format, -1 when not given,
 * then set from a listed extension): a listed extension of another format,
 * or one of a file other programs read as something else (.png, .pdf, .html,
 * ...) that the list lacks, is a usage error naming the formats written
 * (CMD_USAGE); "-", no extension or another one (.txt, .out) is CMD_OK.
 * exts ends with {NULL}.
 */
int cli_output_format(const struct cli_command *cmd, const char *path,
		      const struct cli_out_ext *exts, int *format);

/* --format text|json of the commands with no other format (info, dump): json is 1. */
extern const struct cli_enum_value cli_text_json[];

/* ---- how text reads (cli/display.c, docs/units.md) */

/*
 * How a command's text reads: --timeunit and --wide from c (NULL: the
 * defaults) with the width text fits (COLUMNS, else the terminal's, else
 * 120), into out.
 */
void cli_display_resolve(const struct cli_common *c, struct gpr_display *out);
/*
 * cli_display_resolve into c->display (nothing when c is NULL).
 * cli_parse_options calls it (its hook, cli_set_parse_done) when a command's
 * options are read.
 */
void cli_display_apply(struct cli_common *c);
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

/* ---- --comm-kernel, shared by the commands that tell communication apart (comm-rules.c) */

struct gpa_commclass;
struct gpa_model;

struct gpa_flight_info;
struct gpa_flight_cmp;
/*
 * `gpuprof report` on a flight recording: *fi from the model (is_flight
 * false for any other input) and, for one, *cmp, the slow step against the
 * median step (cmp->have false when it cannot be compared: the reason is a
 * warning). The report renders both. Release both after, whatever the
 * return: 0, or -GP_ERR_NOMEM.
 */
int cli_flight_compare(const struct gpa_model *m, const struct gpa_steps *steps,
		       const struct gpa_commclass *cc, struct gpa_flight_info *fi,
		       struct gpa_flight_cmp *cmp);

#define CLI_COMM_RULES_MAX 32
struct cli_comm_rules {
	const char *rules[CLI_COMM_RULES_MAX]; /* borrowed from argv */
	size_t n;
};
/* The --comm-kernel option, a subtable (CLI_OPT_SUB) over a struct cli_comm_rules. */
extern const struct cli_option cli_comm_options[];
/*
 * The communication classification of m with the user's rules into *out
 * (release with gpa_commclass_release, also after an error). Returns
 * CMD_OK, or an exit status after saying why.
 */
int cli_commclass(const struct gpa_model *m, const struct cli_comm_rules *r,
		  struct gpa_commclass *out);

/*
 * cli_commclass on a thread of its own while the caller goes on (the
 * calling thread when reading is on one thread); cli_commclass_finish waits
 * for it and says its error as cli_commclass does, so a caller says its own
 * errors first and the output is the same on any number of threads.
 */
struct cli_commclass_job {
	const struct gpa_model *m;
	const struct cli_comm_rules *r;
	struct gpa_commclass *out;
	pthread_t th;
	bool threaded;
	int ret;
	char err[512];
};
void cli_commclass_start(struct cli_commclass_job *j, struct cli_common *c,
			 const struct gpa_model *m, const struct cli_comm_rules *r,
			 struct gpa_commclass *out);
/* CMD_OK, or the exit status after saying the error (say false: silent, as after another error). */
int cli_commclass_finish(struct cli_commclass_job *j, bool say);

/* ---- the job report of many ranks, alone or under MPI (cli/job.c, cli/mpi.c) */

struct gpa_gaps_opts;
struct cli_job {
	struct cli_common *common;	   /* --threads */
	bool mpi;			   /* share the traces among MPI processes */
	int format;			   /* enum gpr_format: text, json or markdown */
	unsigned parts;			   /* GPR_JOB_* */
	const char *output;		   /* NULL: standard output */
	const char *step_regex;
	const struct cli_comm_rules *comm;
	const struct gpa_gaps_opts *gaps;
};
/* Analyses each trace alone and writes the job report; returns the exit status. */
int cli_job_run(const struct cli_job *j, char **args, size_t nargs);
/*
 * Which of size processes takes each of n inputs (a trace, or a directory
 * of traces): owner[i], balanced by bytes, the same on every process.
 * Returns 0 or -GP_ERR_NOMEM.
 */
int cli_share_inputs(char **paths, size_t n, int size, int *owner);
/*
 * diff --mpi (cli/diff-mpi.c): the MPI processes share the runs (runs[0,
 * nbase) the baseline, the rest the candidate), each adds its runs to a
 * comparison of their own and sends their samples; rank 0 (*root) adds them
 * all to d in run order. MPI is initialized here; the caller ends it with
 * cli_mpi_status and cli_mpi_finalize. Returns the exit status, said.
 */
struct gpa_diff;
struct gpa_diff_opts;
int cli_diff_mpi_runs(struct cli_common *c, struct gpa_diff *d, const struct gpa_diff_opts *o,
		      char **runs, size_t n, size_t nbase, bool *root);
/* critical-path --mpi (cli/critpath-mpi.c): the options as the command parsed them. */
struct gpa_critpath_opts;
struct cli_critpath_mpi {
	struct cli_common *common;	      /* --threads, --quiet */
	const struct gpa_critpath_opts *opts; /* comm and the window are not used */
	const char *step_regex;
	const struct cli_comm_rules *comm;
	int format; /* enum gpr_format */
};
/* Initializes and ends MPI; rank 0 writes the output. Returns the exit status. */
int cli_critpath_mpi_run(const struct cli_critpath_mpi *c, char **args, size_t nargs);
/* MPI (cli/mpi-load.c): called only with --mpi. Each returns CMD_OK or says why not. */
/* Loads the MPI plugin without starting MPI (cli_mpi_init does both). */
int cli_mpi_open(void);
int cli_mpi_init(int *rank, int *size);
/*
 * This process's rank and the job's size as the launcher (mpirun, Hydra,
 * srun) put them in the environment, known before MPI starts; false when
 * none did. A guess to check against cli_mpi_init's answer.
 */
bool cli_mpi_launcher_rank(int *rank, int *size);
/* Rank 0 receives every process's bytes, one after another, and their lengths (caller frees). */
int cli_mpi_gather(const void *buf, size_t len, int rank, int size, char **all, size_t **lens);
/* Every process receives every process's bytes, one after another (caller frees). */
int cli_mpi_allgather(const void *buf, size_t len, int size, char **all, size_t **lens);
/* Rank 0's status, on every process. */
int cli_mpi_status(int status);
void cli_mpi_finalize(void);

#endif
