/* SPDX-License-Identifier: MIT */
/*
 * gpuprof record - runs a program with libgpuprof-inject.so and says which
 * trace files it wrote.
 *
 * The library is handed to the program through the CUDA driver's and
 * NVTX's injection variables (and LD_PRELOAD with --preload); settings
 * travel as GPUPROF_* variables, and a manifest file (GPUPROF_MANIFEST)
 * collects the path of every trace the program and its children write.
 * The program's exit status is passed through (128 + the signal if it
 * died); signal handlers here only set flags. docs/recording.md has the
 * details.
 */
#include "base/compat.h"
#include "cli/cli.h"
#include "trace/trace.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct record_opts {
	const char *output;
	const char *kinds;
	const char *capture;
	const char *flush_ms;
	const char *buffer_mb;
	const char *fork_mode;
	const char *backtrace;
	const char *backtrace_method;
	bool preload;
	const char *flight, *flight_mb, *flight_dir; /* docs/flight-recorder.md */
	bool flight_on_exit;
};

/* --flight alone keeps the last 60 seconds. */
static int opt_flight(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	(void)opt;
	((struct record_opts *)ctx->base)->flight = arg ? arg : "60";
	return 0;
}

/* --backtrace alone is 16 frames. */
static int opt_backtrace(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	(void)opt;
	((struct record_opts *)ctx->base)->backtrace = arg ? arg : "16";
	return 0;
}

#define RO struct record_opts
static const struct cli_option record_options[] = {
	CLI_OPT_GROUP("options:\n", 24, 2),
	CLI_OPT_STR('o', "output", "FILE", RO, output,
		    "trace file names; %p pid, %h host, %r rank,\n"
		    "%q{VAR} an environment variable, %% a percent sign.\n"
		    "A name without '%' that does not end in .gpz is a\n"
		    "directory for gpuprof-%h-%p.gpz files\n"
		    "(default: gpuprof-%h-%p.gpz)"),
	CLI_OPT_STR(0, "kinds", "LIST", RO, kinds,
		    "what to record: all (default), or a list of kernel,\n"
		    "memcpy, memset, runtime, driver, api, sync, overhead,\n"
		    "extcorr, nvtx; '-kind' removes one (all,-driver)"),
	CLI_OPT_STR(0, "capture", "SPEC", RO, capture,
		    "all (default), cudaProfilerApi (between\n"
		    "cudaProfilerStart and Stop), nvtx:NAME[@DOMAIN]\n"
		    "(the first NVTX range named NAME), delay:SECONDS,\n"
		    "duration:SECONDS; comma-separated"),
	CLI_OPT_STR(0, "flush-ms", "N", RO, flush_ms,
		    "write to disk at least every N ms (default 200): a\n"
		    "killed program loses at most that much"),
	CLI_OPT_STR(0, "buffer-mb", "N", RO, buffer_mb,
		    "memory for event buffers per process (default 64);\n"
		    "when full, events are dropped and counted"),
	CLI_OPT_STR(0, "fork", "child|off", RO, fork_mode,
		    "a forked child writes its own trace (default) or none"),
	{.type = CLI_OPT_CALLBACK, 0, "backtrace", "N",
	 "also capture the CPU call stack, N frames (default 16,\n"
	 "at most 64), at each kernel launch, memcpy and memset\n"
	 "call (docs/backtrace.md)",
	 .flags = CLI_OPTF_OPTARG, .cb = opt_backtrace},
	CLI_OPT_STR(0, "backtrace-method", "M", RO, backtrace_method,
		    "auto (libunwind if it loads, else fp; default), fp\n"
		    "(frame pointers), unwind (libunwind)"),
	CLI_OPT_BOOL(0, "preload", RO, preload,
		     "also set LD_PRELOAD: cuBLAS/cuBLASLt GEMMs are then\n"
		     "recorded with their shapes (kind gemm), and NCCL calls\n"
		     "interposed when NCCL does not load the profiler\n"
		     "plugin (NCCL older than 2.27)"),
	{.type = CLI_OPT_CALLBACK, 0, "flight", "SECONDS",
	 "flight recorder: keep the last SECONDS (default 60) in\n"
	 "memory and save them only when a trigger fires: a slow\n"
	 "step, SIGUSR2 or `gpuprof trigger PID`, a CUDA error, a\n"
	 "crash (docs/flight-recorder.md)",
	 .flags = CLI_OPTF_OPTARG, .cb = opt_flight},
	CLI_OPT_STR(0, "flight-mb", "N", RO, flight_mb,
		    "the flight ring's bound in MiB (default 256)"),
	CLI_OPT_BOOL(0, "flight-on-exit", RO, flight_on_exit,
		     "also save the flight recording when the program ends"),
	CLI_OPT_STR(0, "flight-dir", "DIR", RO, flight_dir,
		    "a directory every rank shares: a rank that saves makes\n"
		    "the others save the same window"),
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};
#undef RO

const struct cli_command cmd_record_opts = {
	.usage =
	"usage: gpuprof record [-o PATTERN] [--kinds LIST] [--capture SPEC] [--flush-ms N]\n"
	"                      [--buffer-mb N] [--fork child|off] [--backtrace[=N]]\n"
	"                      [--backtrace-method auto|fp|unwind] [--preload] -- CMD [ARGS...]\n"
	"\n"
	"Runs CMD with gpuprof's recording library injected and writes one trace file\n"
	"per traced process: kernels, memory copies and sets, CUDA runtime and driver\n"
	"calls, synchronizations, NVTX ranges, and what was lost, if anything.\n"
	"Without a CUDA driver CMD runs untraced after one warning.\n"
	"\n",
	.options = record_options,
	.flags = CLI_NO_COMMON, /* no trace is read: --threads, --quiet would do nothing */
	.footer =
	"\n"
	"Environment: GPUPROF_INJECT_LIB names the library when it is not next to\n"
	"the gpuprof executable; GPUPROF_DEBUG=1 makes the library log to stderr.\n"
	"NCCL_PROFILER_PLUGIN is set to the library (NCCL operations, docs/comm.md)\n"
	"unless it is already set; NCCL_PROFILER_PLUGIN=none turns that capture off.\n",
};

static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t signal_from_process;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got_signal = sig;
	/* sent with kill() to us alone, rather than by the terminal to the group */
	signal_from_process = si && (si->si_code == SI_USER || si->si_code == SI_QUEUE);
}

static bool valid_words(const char *list, const char *const *words)
{
	char buf[256];
	size_t n = strlen(list);

	if (n >= sizeof(buf)) {
		return false;
	}
	memcpy(buf, list, n + 1);
	for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (*w == '-' || *w == '+') {
			w++;
		}
		bool ok = false;
		for (const char *const *k = words; *k; k++) {
			ok |= !strcmp(w, *k);
		}
		if (!ok) {
			return false;
		}
	}
	return true;
}

static bool valid_capture(const char *spec)
{
	char buf[512];
	size_t n = strlen(spec);

	if (n >= sizeof(buf)) {
		return false;
	}
	memcpy(buf, spec, n + 1);
	for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcmp(w, "all") || !strcmp(w, "whole") || !strcmp(w, "cudaProfilerApi") ||
		    !strcmp(w, "profiler-api") || !strcmp(w, "cuda-profiler-api")) {
			continue;
		}
		if (!strncmp(w, "nvtx:", 5) && w[5] && w[5] != '@') {
			continue;
		}
		const char *num = !strncmp(w, "delay:", 6)	? w + 6
				  : !strncmp(w, "duration:", 9) ? w + 9
								: NULL;
		if (num) {
			char *end;
			double v = strtod(num, &end);
			if (end != num && v >= 0 &&
			    (!*end || !strcmp(end, "s") || !strcmp(end, "ms"))) {
				continue;
			}
		}
		return false;
	}
	return true;
}

/* Seconds as the library takes them: "60", "1.5", "2s", "500ms"; more than 0. */
static bool valid_duration(const char *s)
{
	char *end;
	double v;

	if (*s < '0' || *s > '9') {
		return false;
	}
	errno = 0;
	v = strtod(s, &end);
	return !errno && v > 0 && v < 1e9 && (!*end || !strcmp(end, "s") || !strcmp(end, "ms"));
}

static bool valid_number(const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	return !errno && end != s && !*end && v >= min && v <= max;
}

/* The directory gpuprof itself lives in, with a trailing slash. */
static bool self_dir(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	char *slash;

	if (n <= 0) {
		return false;
	}
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash) {
		return false;
	}
	slash[1] = '\0';
	return true;
}

static bool find_library(char *out, size_t size)
{
	static const char *const rel[] = {
		"libgpuprof-inject.so",
		"../lib/gpuprof/libgpuprof-inject.so",
		"../lib/libgpuprof-inject.so",
		"../lib64/gpuprof/libgpuprof-inject.so",
	};
	const char *env = getenv("GPUPROF_INJECT_LIB");
	char dir[PATH_MAX], cand[PATH_MAX];

	if (env && *env) {
		if (!realpath(env, out) || access(out, R_OK)) {
			return false;
		}
		return true;
	}
	if (!self_dir(dir, sizeof(dir))) {
		return false;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(rel); i++) {
		snprintf(cand, sizeof(cand), "%s%s", dir, rel[i]);
		if (!access(cand, R_OK) && realpath(cand, out)) {
			return strlen(out) < size;
		}
	}
	return false;
}

/*
 * The folder -o names, created if missing, but only below a folder that
 * exists: a mistyped path never builds a tree (as root, up from /).
 */
static int make_output_dir(const char *dir)
{
	char parent[PATH_MAX];
	struct stat sb;
	char *slash;

	if (!stat(dir, &sb)) {
		if (S_ISDIR(sb.st_mode)) {
			return 0;
		}
		cli_error("%s: not a directory", dir);
		return -1;
	}
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		if (stat(parent, &sb)) {
			cli_error("cannot create directory %s: %s does not exist", dir, parent);
			return -1;
		}
		if (!S_ISDIR(sb.st_mode)) {
			cli_error("cannot create directory %s: %s is not a directory", dir, parent);
			return -1;
		}
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		cli_error("cannot create directory %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The absolute pattern the library gets; a plain name without .gpz is a
 * directory. -1 when too long, -2 when the directory cannot be made (said).
 */
static int output_pattern(const char *o, char *out, size_t size)
{
	char cwd[PATH_MAX];
	char tmp[PATH_MAX];
	size_t n = strlen(o);
	bool is_file = strchr(o, '%') || (n >= 4 && !strcmp(o + n - 4, ".gpz"));

	if (!getcwd(cwd, sizeof(cwd))) {
		return -1;
	}
	if (is_file) {
		snprintf(tmp, sizeof(tmp), "%s", o);
	} else {
		snprintf(tmp, sizeof(tmp), "%s%sgpuprof-%%h-%%p.gpz", o,
			 o[n - 1] == '/' ? "" : "/");
	}
	if (tmp[0] == '/') {
		if (strlen(tmp) >= size) {
			return -1;
		}
		memcpy(out, tmp, strlen(tmp) + 1);
	} else if ((size_t)snprintf(out, size, "%s/%s", cwd, tmp) >= size) {
		return -1;
	}
	if (!is_file) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s", out);
		char *slash = strrchr(dir, '/');
		if (slash) {
			*slash = '\0';
			while (slash > dir + 1 && slash[-1] == '/') {
				*--slash = '\0';
			}
			if (make_output_dir(dir)) {
				return -2;
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------ summary */

static void human_count(char *buf, size_t size, uint64_t v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%" PRIu64, v), o = 0;

	for (int i = 0; i < n && (size_t)o + 2 < size; i++) {
		if (i && (n - i) % 3 == 0) {
			buf[o++] = ',';
		}
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
}

/* What the library said of one trace through the manifest ("!TAG\tPATH\t..."). */
struct trace_note {
	bool write_failed;    /* "lost" or "cut": writes failed */
	bool cut;	      /* the end (footer) could not be written */
	uint64_t lost;	      /* records lost to failed writes */
	char why[256];	      /* the error */
};

static void summarize(const char *path, const struct trace_note *note)
{
	static const char *const cause[GPT_LOSS__MAX] = {
		"",	"CUPTI",  "buffer pool",       "NVTX buffers",
		"NCCL", "write errors", "unfinished ranges", "flush deadline",
		"call-stack queue", "call-stack table", "GEMM queue"};
	struct gpt_reader *r = NULL;
	struct gpt_chunk c;
	struct gpt_reader_status st;
	uint64_t events = 0, first = UINT64_MAX, last = 0, loss[GPT_LOSS__MAX] = {0}, lost = 0;
	char status[256] = "";
	int ret = gpt_reader_open(path, &r);

	if (ret) {
		cli_warn("%s: %s", path, r ? gpt_reader_last_error(r) : gp_err_str(ret));
		gpt_reader_free(r);
		return;
	}
	while ((ret = gpt_reader_next(r, &c)) > 0) {
		if (c.kind == GPT_KIND_LOSS) {
			for (uint32_t i = 0; i < c.count; i++) {
				const struct gpt_loss *l = (const struct gpt_loss *)c.records + i;
				if (l->cause < GPT_LOSS__MAX && l->cause != GPT_LOSS_UNFINISHED) {
					loss[l->cause] += l->count;
					lost += l->count;
				}
			}
		} else if (c.kind == GPT_KIND_PROCESS) {
			for (uint32_t i = 0; i < c.count; i++) {
				const struct gpt_process *p =
					(const struct gpt_process *)c.records + i;
				const char *t = gpt_reader_string_or(r, p->status, "");
				const char *what = p->phase == 3 ? strstr(t, "; what=") : NULL;
				/* a flight save's record (phase 3): its trigger, in words */
				if (what) {
					snprintf(status, sizeof(status), "flight recording: %s",
						 what + 7);
				} else if (p->phase != 3) {
					snprintf(status, sizeof(status), "%s", t);
				}
			}
		}
		if (c.kind < GPT_KIND_KERNEL || c.kind == GPT_KIND_NAME ||
		    c.kind == GPT_KIND_STACK_NODE || c.kind == GPT_KIND_STACK ||
		    c.kind == GPT_KIND_MODULE) {
			continue;
		}
		events += c.count;
		if (c.first_ts && c.first_ts < first) {
			first = c.first_ts;
		}
		if (c.last_ts > last) {
			last = c.last_ts;
		}
	}
	gpt_reader_get_status(r, &st);
	if (note->write_failed) {
		/* the library's own count: the file may not hold it */
		lost = lost - loss[GPT_LOSS_WRITER] + note->lost;
		loss[GPT_LOSS_WRITER] = note->lost;
	}

	char ev[40], drops[256] = "no drops";
	human_count(ev, sizeof(ev), events);
	if (!st.has_footer) {
		/* what followed the last whole chunk is not known */
		snprintf(drops, sizeof(drops), "losses unknown");
	}
	if (lost) {
		size_t n = (size_t)snprintf(drops, sizeof(drops), "%" PRIu64 " dropped (", lost);
		bool any = false;
		for (unsigned k = 1; k < GPT_LOSS__MAX && n < sizeof(drops); k++) {
			if (loss[k]) {
				n += (size_t)snprintf(drops + n, sizeof(drops) - n, "%s%s %" PRIu64,
						      any ? ", " : "", cause[k], loss[k]);
				any = true;
			}
		}
		if (n < sizeof(drops)) {
			snprintf(drops + n, sizeof(drops) - n, ")");
		}
	}
	double span = last > first ? (double)(last - first) / 1e9 : 0;
	char failed[320] = "";
	if (note->write_failed) {
		snprintf(failed, sizeof(failed), "; writing the trace failed: %s", note->why);
	}
	fprintf(stderr, "gpuprof: %s: %s events over %.3f s, %s%s%s%s%s\n", path, ev, span, drops,
		st.has_footer ? ""
		: lost	      ? ", cut short (no footer): more may be lost"
			      : ", cut short (no footer)",
		failed, status[0] ? "; " : "", status);
	gpt_reader_free(r);
}

/* --------------------------------------------------------------- run */

static int run_child(char **cmd)
{
	pid_t pid;
	int st = 0;
	struct sigaction sa, old[4];
	static const int sigs[4] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		cli_error("cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		execvp(cmd[0], cmd);
		fprintf(stderr, "gpuprof: error: cannot run '%s': %s\n", cmd[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 4; i++) {
		sigaction(sigs[i], &sa, &old[i]);
	}
	for (;;) {
		pid_t w = waitpid(pid, &st, 0);
		if (w == pid) {
			break;
		}
		if (w < 0 && errno != EINTR) {
			cli_error("waitpid: %s", strerror(errno));
			st = -1;
			break;
		}
		if (got_signal) {
			/* a terminal signals the whole group; a kill() aimed at us is passed on */
			if (signal_from_process) {
				kill(pid, got_signal);
			}
			got_signal = 0;
		}
	}
	for (int i = 0; i < 4; i++) {
		sigaction(sigs[i], &old[i], NULL);
	}
	if (st == -1) {
		return -1;
	}
	if (WIFEXITED(st)) {
		return WEXITSTATUS(st);
	}
	if (WIFSIGNALED(st)) {
		return 128 + WTERMSIG(st);
	}
	return 1;
}

static bool have_driver(char *errbuf, size_t errlen)
{
	void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);

	if (!h) {
		const char *e = dlerror();
		snprintf(errbuf, errlen, "%s", e ? e : "libcuda.so.1 not found");
		return false;
	}
	dlclose(h);
	return true;
}

static void set_env(const char *name, const char *value)
{
	if (value) {
		setenv(name, value, 1);
	}
}

/* The values the library would refuse, refused here: CMD_OK or CMD_USAGE (said). */
static int check_opts(const struct record_opts *o)
{
	static const char *const kind_words[] = {
		"all",	"kernel",   "memcpy",  "memset", "runtime", "driver", "api",
		"sync", "overhead", "extcorr", "nvtx",	 "cuda",    "none",   NULL};
	const struct cli_command *cmd = &cmd_record_opts;

	if (!*o->output) {
		return cli_cmd_usage_error(cmd, "empty output pattern");
	}
	if (o->kinds && !valid_words(o->kinds, kind_words)) {
		return cli_cmd_usage_error(cmd, "bad --kinds '%s'", o->kinds);
	}
	if (o->capture && !valid_capture(o->capture)) {
		return cli_cmd_usage_error(cmd, "bad --capture '%s'", o->capture);
	}
	if (o->flush_ms && !valid_number(o->flush_ms, 1, 3600000)) {
		return cli_cmd_usage_error(cmd, "bad --flush-ms '%s' (1 to 3600000)", o->flush_ms);
	}
	if (o->buffer_mb && !valid_number(o->buffer_mb, 0.0625, 1048576)) {
		return cli_cmd_usage_error(cmd, "bad --buffer-mb '%s'", o->buffer_mb);
	}
	if (o->fork_mode && strcmp(o->fork_mode, "child") && strcmp(o->fork_mode, "off")) {
		return cli_cmd_usage_error(cmd, "bad --fork '%s' (child or off)", o->fork_mode);
	}
	if (o->backtrace && (strspn(o->backtrace, "0123456789") != strlen(o->backtrace) ||
			     !valid_number(o->backtrace, 1, 64))) {
		return cli_cmd_usage_error(cmd, "bad --backtrace '%s' (1 to 64 frames)",
					   o->backtrace);
	}
	if (o->backtrace_method && strcmp(o->backtrace_method, "auto") &&
	    strcmp(o->backtrace_method, "fp") && strcmp(o->backtrace_method, "unwind")) {
		return cli_cmd_usage_error(cmd, "bad --backtrace-method '%s' (auto, fp or unwind)",
					   o->backtrace_method);
	}
	if (o->flight && !valid_duration(o->flight)) {
		return cli_cmd_usage_error(cmd, "bad --flight '%s' (seconds, such as 60, 1.5 or 500ms)",
					   o->flight);
	}
	if (o->flight_mb && !valid_number(o->flight_mb, 0.0625, 1048576)) {
		return cli_cmd_usage_error(cmd, "bad --flight-mb '%s'", o->flight_mb);
	}
	if (!o->flight && (o->flight_mb || o->flight_on_exit || o->flight_dir)) {
		return cli_cmd_usage_error(cmd, "--flight-mb, --flight-on-exit and --flight-dir need "
						"--flight");
	}
	return CMD_OK;
}

/* The variables that inject lib into the program and carry the settings to it. */
static void set_environment(const struct record_opts *o, const char *lib, const char *pattern,
			    const char *manifest)
{
	setenv("CUDA_INJECTION64_PATH", lib, 1);
	if (!o->kinds || strstr(o->kinds, "nvtx") || strstr(o->kinds, "all")) {
		setenv("NVTX_INJECTION64_PATH", lib, 1);
	}
	/* NCCL loads the library as its profiler plugin; a user's choice stands */
	setenv("NCCL_PROFILER_PLUGIN", lib, 0);
	setenv("GPUPROF_OUTPUT", pattern, 1);
	setenv("GPUPROF_MANIFEST", manifest, 1);
	set_env("GPUPROF_KINDS", o->kinds);
	set_env("GPUPROF_CAPTURE", o->capture);
	set_env("GPUPROF_FLUSH_MS", o->flush_ms);
	set_env("GPUPROF_BUFFER_MB", o->buffer_mb);
	set_env("GPUPROF_FORK", o->fork_mode);
	set_env("GPUPROF_BACKTRACE", o->backtrace);
	set_env("GPUPROF_BACKTRACE_METHOD", o->backtrace_method);
	set_env("GPUPROF_FLIGHT", o->flight);
	set_env("GPUPROF_FLIGHT_MB", o->flight_mb);
	set_env("GPUPROF_FLIGHT_DIR", o->flight_dir);
	if (o->flight_on_exit) {
		const char *on = getenv("GPUPROF_FLIGHT_ON");
		char buf[256];
		snprintf(buf, sizeof(buf), "%s%s+exit", on && *on ? on : "", on && *on ? "," : "");
		setenv("GPUPROF_FLIGHT_ON", buf, 1);
	}
	/* a fresh chain for exec naming: the program is not an exec of gpuprof */
	unsetenv("GPUPROF_EXEC_CHAIN");
	if (o->preload) {
		const char *pre = getenv("LD_PRELOAD");
		char buf[2 * PATH_MAX];
		snprintf(buf, sizeof(buf), "%s%s%s", lib, pre && *pre ? ":" : "", pre ? pre : "");
		setenv("LD_PRELOAD", buf, 1);
	}
}

/* The note on path among the manifest's lines, if any. */
static void find_note(char **lines, size_t n, const char *path, struct trace_note *note)
{
	size_t pl = strlen(path);

	memset(note, 0, sizeof(*note));
	for (size_t i = 0; i < n; i++) {
		const char *l = lines[i];
		bool lost = !strncmp(l, "!lost\t", 6), cut = !strncmp(l, "!cut\t", 5);
		if (!lost && !cut) {
			continue;
		}
		l += lost ? 6 : 5;
		if (strncmp(l, path, pl) || l[pl] != '\t') {
			continue;
		}
		char *end;
		note->write_failed = true;
		note->cut = cut;
		note->lost = strtoull(l + pl + 1, &end, 10);
		const char *why = strchr(end + 1, '\t');
		snprintf(note->why, sizeof(note->why), "%s", why ? why + 1 : "");
	}
}

/* Says what each trace in the manifest holds, then removes the manifest. */
static void summarize_manifest(const char *manifest, const char *cmd)
{
	FILE *f = fopen(manifest, "r");
	char line[PATH_MAX + 600];
	char **lines = NULL;
	size_t n = 0;
	int traces = 0, failed = 0;

	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char **nl = line[0] ? realloc(lines, (n + 1) * sizeof(*lines)) : NULL;
		if (nl) {
			lines = nl;
			lines[n] = strdup(line);
			n += lines[n] != NULL;
		}
	}
	if (f) {
		fclose(f);
	}
	unlink(manifest);
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(lines[i], "!create\t", 8)) {
			/* "!create\tPATH\tWHY": the file could not be made */
			char *path = lines[i] + 8, *why = strrchr(path, '\t');
			if (why) {
				*why++ = '\0';
			}
			cli_error("cannot create trace file %s: %s", path, why ? why : "unknown error");
			failed++;
		} else if (lines[i][0] != '!') {
			struct trace_note note;
			find_note(lines, n, lines[i], &note);
			summarize(lines[i], &note);
			traces++;
		}
	}
	for (size_t i = 0; i < n; i++) {
		free(lines[i]);
	}
	free(lines);
	if (!traces && !failed && getenv("GPUPROF_FLIGHT")) {
		cli_warn("no flight recording saved: no trigger fired while '%s' ran", cmd);
	} else if (!traces && !failed) {
		cli_warn("no trace written: '%s' never initialized CUDA or used NVTX", cmd);
	}
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {.output = "gpuprof-%h-%p.gpz"};
	char lib[PATH_MAX], pattern[PATH_MAX], why[512];
	char manifest[PATH_MAX];
	int nargs, mfd, status;
	bool traced;

	status = cli_parse_options(&cmd_record_opts, &o, NULL, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (!nargs) {
		return cli_cmd_usage_error(&cmd_record_opts, "no command to run");
	}
	status = check_opts(&o);
	if (status != CMD_OK) {
		return status;
	}
	if (!find_library(lib, sizeof(lib))) {
		cli_error("cannot find libgpuprof-inject.so next to gpuprof or in ../lib; "
			  "set GPUPROF_INJECT_LIB");
		return CMD_ERROR;
	}
	status = output_pattern(o.output, pattern, sizeof(pattern));
	if (status) {
		if (status == -1) {
			cli_error("output pattern too long: %s", o.output);
		}
		return CMD_ERROR;
	}
	traced = have_driver(why, sizeof(why));
	if (!traced) {
		cli_warn("no usable CUDA driver (%s): running '%s' untraced", why, argv[0]);
	} else {
		const char *other = getenv("CUDA_INJECTION64_PATH");
		if (other && *other && strcmp(other, lib)) {
			cli_warn("CUDA_INJECTION64_PATH named %s; gpuprof replaces it", other);
		}
		snprintf(manifest, sizeof(manifest), "%s/gpuprof-manifest-XXXXXX", gp_tmpdir());
		mfd = mkstemp(manifest);
		if (mfd < 0) {
			cli_error("cannot create %s: %s", manifest, strerror(errno));
			return CMD_ERROR;
		}
		close(mfd);
		set_environment(&o, lib, pattern, manifest);
	}
	argv[nargs] = NULL; /* execvp's end */
	status = run_child(argv);
	if (status < 0) {
		status = CMD_ERROR;
	}
	if (traced) {
		summarize_manifest(manifest, argv[0]);
	}
	fflush(stderr);
	return status;
}
