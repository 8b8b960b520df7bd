/* SPDX-License-Identifier: MIT */
/*
 * flight.c - the flight recorder (GPUPROF_FLIGHT, docs/flight-recorder.md).
 *
 * The writer thread records as always, but its chunks go into a bounded
 * in-memory ring (trace/ring.c) instead of the file. A trigger saves the
 * ring as a .gpz named with the trigger and the time, at most once per
 * cool-down. Triggers:
 *
 *   slow-step   a step range (NVTX, ProfilerStep#N by default) longer than
 *               k times the median of the last M steps; judged on the writer
 *               thread as it converts the ranges
 *   signal      SIGUSR2 by default, chained to the program's own handler;
 *               `gpuprof trigger PID` through an abstract Unix socket the
 *               writer polls, for the same user only (SO_PEERCRED)
 *   cuda-error  an API record whose return value is an error
 *   nccl-error  an interposed NCCL call returned an error, or
 *               ncclCommGetAsyncError reported one (a failed or timed-out
 *               peer); the profiler plugin API has no error state
 *   crash       a fatal signal (the save comes before any call into CUPTI)
 *   exit        the end of the program, with --flight-on-exit
 *   rank        a trigger file another process of the job left in the shared
 *               directory (GPUPROF_FLIGHT_DIR)
 *
 * Threads: the signal handler only counts and wakes the writer (no lock,
 * no allocation). Everything else here runs on the writer thread, except
 * gpi_flight_init (cold, at session start, under start_mu).
 */
#include "base/compat.h"
#include "inject/inject.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

bool gpi_flight_on;

#define MAX_STEPS_WINDOW 1024
#define DIR_POLL_NS 200000000ull
#define CUDA_NOT_READY 600 /* cudaErrorNotReady, CUDA_ERROR_NOT_READY: a query, not an error */

static struct gpt_ring *ring;
static regex_t step_re;
static bool step_re_ok;
static int listen_fd = -1;
static char sock_name[64];

/* the signal trigger: the program's action at two places, the handler reads the current one */
static struct sigaction sig_old[2];
static _Atomic int sig_old_idx;
static _Atomic uint64_t sig_count;
static uint64_t sig_seen;
static bool sig_installed;
static uint64_t sig_next_check;
#define SIG_CHECK_NS 100000000ull

static struct {
	bool pending;
	enum gpi_flight_trig kind;
	uint64_t ts, save_at;
	uint64_t step_start, step_end, median_ns; /* slow-step */
	char what[512];
} trig;

static uint64_t last_save_ts; /* 0: never */
static uint64_t suppressed;   /* triggers within a cool-down */
static uint64_t saves;

static struct {
	uint64_t dur[MAX_STEPS_WINDOW];
	uint32_t n, next;
	uint64_t seen;
	uint8_t *is_step; /* by message string id: 0 unknown, 1 a step, 2 not */
	size_t is_step_cap;
} steps;

static uint64_t dir_next_poll, dir_seen_rt, start_rt;

static const char *const trig_names[] = {
	[GPI_FLIGHT_SLOW_STEP] = "slow-step", [GPI_FLIGHT_SIGNAL] = "signal",
	[GPI_FLIGHT_CUDA_ERROR] = "cuda-error", [GPI_FLIGHT_CRASH] = "crash",
	[GPI_FLIGHT_EXIT] = "exit",	     [GPI_FLIGHT_RANK] = "rank",
	[GPI_FLIGHT_NCCL_ERROR] = "nccl-error",
};

/* the nccl-error trigger: counted on the program's threads, judged by the writer */
static _Atomic uint64_t nccl_err_count;
static _Atomic(const char *) nccl_err_fn;
static _Atomic int nccl_err_code;
static uint64_t nccl_err_seen;

const char *gpi_flight_trig_name(unsigned t)
{
	return t < GP_ARRAY_SIZE(trig_names) && trig_names[t] ? trig_names[t] : "unknown";
}

/* ----------------------------------------------------------- signal */

static bool is_fn(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) ||
	       (sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN);
}

/* Signal-safe: counts, wakes the writer, then runs the program's handler if it has one. */
static void on_flight_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	const struct sigaction *old = &sig_old[atomic_load(&sig_old_idx) & 1];

	atomic_fetch_add(&sig_count, 1);
	gpi_session_wake();
	errno = saved;
	if (old->sa_flags & SA_SIGINFO) {
		old->sa_sigaction(sig, si, uc);
	} else if (is_fn(old)) {
		old->sa_handler(sig);
	}
	errno = saved;
}

static bool is_ours(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == on_flight_signal;
}

/*
 * Installs the handler over the program's action (kept and chained). Also
 * called by the writer when the program installed its own later: ours goes
 * back on top of it, chaining to it.
 */
static void install_signal(void)
{
	struct sigaction cur, sa;
	int sig = gpi_s.cfg.flight_signal;

	if (!sig || sigaction(sig, NULL, &cur) || is_ours(&cur)) {
		return;
	}
	int idx = (atomic_load(&sig_old_idx) + 1) & 1;
	sig_old[idx] = cur;
	atomic_store(&sig_old_idx, idx);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_flight_signal;
	sa.sa_mask = cur.sa_mask;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | (cur.sa_flags & SA_ONSTACK);
	if (!sigaction(sig, &sa, NULL)) {
		if (sig_installed) {
			gpi_dbg("flight: signal %d handler replaced by the program; chained again", sig);
		}
		sig_installed = true;
	}
}

/* ----------------------------------------------------------- socket */

/* The abstract socket `gpuprof trigger PID` connects to: "\0gpuprof-flight-PID". */
static void open_socket(void)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	size_t n = gpi_fmt(sock_name, sizeof(sock_name), "gpuprof-flight-%u", gpi_s.pid);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		return;
	}
	memcpy(a.sun_path + 1, sock_name, n);
	if (bind(fd, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) ||
	    listen(fd, 4)) {
		gpi_status_add("flight: no trigger socket (%s)", strerror(errno));
		close(fd);
		return;
	}
	listen_fd = fd;
}

int gpi_flight_poll_fd(void)
{
	return listen_fd;
}

static void reply(int fd, const char *msg)
{
	ssize_t r = send(fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)r;
}

static void request(enum gpi_flight_trig kind, const char *fmt, ...) GP_PRINTF(2, 3);

/* One connection: same user only; "trigger[ TEXT]\n" asks for a save. */
static void serve_one(int fd)
{
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	char line[256];
	size_t got = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) || cred.uid != geteuid()) {
		reply(fd, "refused: another user\n");
		return;
	}
	uint64_t until = gp_clock_monotonic_ns() + 200000000ull;
	while (got < sizeof(line) - 1 && gp_clock_monotonic_ns() < until) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, 20) <= 0) {
			continue;
		}
		ssize_t r = recv(fd, line + got, sizeof(line) - 1 - got, MSG_DONTWAIT);
		if (r <= 0) {
			break;
		}
		got += (size_t)r;
		if (memchr(line, '\n', got)) {
			break;
		}
	}
	line[got] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (strncmp(line, "trigger", 7)) {
		reply(fd, "refused: unknown request\n");
		return;
	}
	const char *text = line[7] == ' ' ? line + 8 : "";
	bool cooling = last_save_ts && gpi_now() < last_save_ts + gpi_s.cfg.flight_cooldown_ns;
	if (trig.pending) {
		reply(fd, "pending: a save is already on its way\n");
	} else if (cooling) {
		reply(fd, "cooling down: the last save was too recent\n");
	} else {
		reply(fd, "accepted\n");
	}
	request(GPI_FLIGHT_SIGNAL, "gpuprof trigger from pid %d%s%s", (int)cred.pid,
		*text ? ": " : "", text);
}

static void serve_socket(void)
{
	for (int i = 0; i < 8 && listen_fd >= 0; i++) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			return;
		}
		serve_one(fd);
		close(fd);
	}
}

/* ------------------------------------------------------------- init */

int gpi_flight_writer_opts(struct gpt_writer_opts *wo)
{
	int ret = ring ? 0 : gpt_ring_new(gpi_s.cfg.flight_bytes, gpi_s.cfg.flight_window_ns, &ring);

	if (ret) {
		return ret;
	}
	wo->keep_going = false;
	wo->sink = gpt_ring_sink;
	wo->sink_ctx = ring;
	wo->number_names = true; /* a step's name is its pattern and its number */
	return 0;
}

void gpi_flight_init(void)
{
	const struct gpi_config *c = &gpi_s.cfg;

	gpi_flight_on = c->flight_window_ns != 0;
	if (!gpi_flight_on) {
		return;
	}
	const char *re = c->flight_step[0] ? c->flight_step : GPI_FLIGHT_DEFAULT_STEP;
	step_re_ok = !regcomp(&step_re, re, REG_EXTENDED | REG_NOSUB);
	if (!step_re_ok) {
		gpi_status_add("flight: bad step pattern \"%s\"; no slow-step trigger", re);
	}
	start_rt = gp_clock_realtime_ns();
	dir_seen_rt = start_rt;
	if (c->flight_triggers & (1u << GPI_FLIGHT_SIGNAL)) {
		install_signal();
		open_socket();
	}
	gpi_dbg("flight: window %llu ms, %llu MiB, cool-down %llu ms",
		(unsigned long long)(c->flight_window_ns / 1000000),
		(unsigned long long)(c->flight_bytes >> 20),
		(unsigned long long)(c->flight_cooldown_ns / 1000000));
}

void gpi_flight_atfork_child(void)
{
	/* the parent's socket and ring are the parent's; a flight child records nothing */
	if (listen_fd >= 0) {
		close(listen_fd);
		listen_fd = -1;
	}
	ring = NULL;
}

/* ---------------------------------------------------------- triggers */

static bool wanted(enum gpi_flight_trig kind)
{
	return (gpi_s.cfg.flight_triggers >> kind) & 1u;
}

static void request(enum gpi_flight_trig kind, const char *fmt, ...)
{
	va_list ap;
	uint64_t now = gpi_now();

	if (!wanted(kind)) {
		return;
	}
	if (trig.pending) {
		suppressed++; /* merged into the save on its way */
		return;
	}
	if (last_save_ts && now < last_save_ts + gpi_s.cfg.flight_cooldown_ns) {
		suppressed++;
		gpi_dbg("flight: %s trigger within the cool-down, not saved", trig_names[kind]);
		return;
	}
	trig.pending = true;
	trig.kind = kind;
	trig.ts = now;
	/* what the program did up to the trigger must reach the ring first: two flushes */
	uint64_t settle = 2ull * gpi_s.cfg.flush_ms * 1000000 + 50000000;
	trig.save_at = now + (gpi_s.cfg.flight_after_ns > settle ? gpi_s.cfg.flight_after_ns : settle);
	/* the window before the trigger (before the slow step's start) stays until the save */
	uint64_t anchor = kind == GPI_FLIGHT_SLOW_STEP && trig.step_start ? trig.step_start : now;
	uint64_t win = gpi_s.cfg.flight_window_ns;
	if (ring) {
		gpt_ring_hold(ring, anchor > win ? anchor - win : 1);
	}
	va_start(ap, fmt);
	gpi_vfmt(trig.what, sizeof(trig.what), fmt, ap);
	va_end(ap);
	if (kind != GPI_FLIGHT_SLOW_STEP) {
		trig.step_start = trig.step_end = trig.median_ns = 0;
	}
	gpi_dbg("flight: trigger %s: %s", trig_names[kind], trig.what);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

uint64_t gpi_flight_median(const uint64_t *v, uint32_t n)
{
	uint64_t tmp[MAX_STEPS_WINDOW];

	if (!n || n > MAX_STEPS_WINDOW) {
		return 0;
	}
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), cmp_u64);
	return n & 1 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* The range's name: its message, or the pattern and number the ring keeps (trace/names.c). */
static const char *range_name(struct gpi_conv *cv, const struct gpt_nvtx *r, char *buf,
			      size_t size)
{
	const char *s = gpt_writer_string(cv->w, r->message);

	if (!s || !r->message_num) {
		return s;
	}
	gpt_name_expand(s, r->message_num, buf, size);
	return buf;
}

/*
 * Whether the range's message names a step; decided once per string, and
 * for a numbered name (a pattern) on the name itself each time.
 */
static bool is_step_name(struct gpi_conv *cv, const struct gpt_nvtx *r)
{
	uint32_t msg = r->message;

	if (!msg || !step_re_ok) {
		return false;
	}
	if (r->message_num) {
		char buf[GPT_NAME_PATTERN_MAX + 24];
		const char *s = range_name(cv, r, buf, sizeof(buf));
		return s && !regexec(&step_re, s, 0, NULL, 0);
	}
	if (msg >= steps.is_step_cap) {
		size_t nc = steps.is_step_cap ? steps.is_step_cap : 256;
		while (nc <= msg) {
			nc *= 2;
		}
		uint8_t *n = realloc(steps.is_step, nc);
		if (!n) {
			return false;
		}
		memset(n + steps.is_step_cap, 0, nc - steps.is_step_cap);
		steps.is_step = n;
		steps.is_step_cap = nc;
	}
	if (!steps.is_step[msg]) {
		const char *s = gpt_writer_string(cv->w, msg);
		steps.is_step[msg] = s && !regexec(&step_re, s, 0, NULL, 0) ? 1 : 2;
	}
	return steps.is_step[msg] == 1;
}

void gpi_flight_note_range(struct gpi_conv *cv, const struct gpt_nvtx *r)
{
	const struct gpi_config *c = &gpi_s.cfg;

	if (r->type == GPT_NVTX_MARK || r->end <= r->start || !is_step_name(cv, r)) {
		return;
	}
	uint64_t dur = r->end - r->start;
	uint32_t m = c->flight_steps;
	uint32_t need = m / 2 > 3 ? m / 2 : 3;
	steps.seen++;
	if (steps.n >= need) {
		uint64_t med = gpi_flight_median(steps.dur, steps.n);
		if (med && (double)dur > c->flight_slow_k * (double)med && !trig.pending) {
			char buf[GPT_NAME_PATTERN_MAX + 24];
			const char *name = range_name(cv, r, buf, sizeof(buf));
			trig.step_start = r->start;
			trig.step_end = r->end;
			trig.median_ns = med;
			request(GPI_FLIGHT_SLOW_STEP,
				"step '%s' took %llu us, more than %u.%02u x the median %llu us of "
				"the last %u steps",
				name ? name : "?", (unsigned long long)(dur / 1000),
				(unsigned)c->flight_slow_k,
				(unsigned)((c->flight_slow_k - (unsigned)c->flight_slow_k) * 100 + 0.5),
				(unsigned long long)(med / 1000), steps.n);
		}
	}
	steps.dur[steps.next] = dur;
	steps.next = (steps.next + 1) % m;
	if (steps.n < m) {
		steps.n++;
	}
}

void gpi_flight_note_api(struct gpi_conv *cv, const struct gpt_api *r)
{
	if (!r->return_value || r->return_value == CUDA_NOT_READY || trig.pending) {
		return;
	}
	const char *name = gpt_writer_string(cv->w, r->name);
	request(GPI_FLIGHT_CUDA_ERROR, "%s returned error %d", name ? name : "a CUDA call",
		r->return_value);
}

/* ------------------------------------------------------- shared directory */

static const char *env_get(const char *name)
{
	return getenv(name);
}

/* Leaves "gpuprof-flight.REALTIME.PID" in the shared directory for the other ranks. */
static void tell_ranks(void)
{
	char path[GPI_PATH_MAX], text[700];
	struct gpi_rank rk;

	if (!gpi_s.cfg.flight_dir[0] || trig.kind == GPI_FLIGHT_RANK) {
		return;
	}
	gpi_detect_rank(env_get, &rk);
	gpi_fmt(path, sizeof(path), "%s/gpuprof-flight.%llu.%u", gpi_s.cfg.flight_dir,
		(unsigned long long)gp_clock_realtime_ns(), gpi_s.pid);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		gpi_dbg("flight: cannot leave %s: %s", path, strerror(errno));
		return;
	}
	size_t n = gpi_fmt(text, sizeof(text), "rank %d (host %s, pid %u): %s: %s\n", rk.rank,
			   gpi_hostname(), gpi_s.pid, trig_names[trig.kind], trig.what);
	gpi_write_all(fd, text, n);
	close(fd);
}

/* A trigger file of another process, newer than the last one seen: a "rank" trigger. */
static void poll_dir(uint64_t now)
{
	if (!gpi_s.cfg.flight_dir[0] || now < dir_next_poll) {
		return;
	}
	dir_next_poll = now + DIR_POLL_NS;
	DIR *d = opendir(gpi_s.cfg.flight_dir);
	if (!d) {
		return;
	}
	struct dirent *e;
	uint64_t best = 0;
	char best_name[300] = "";
	while ((e = readdir(d))) {
		unsigned long long rt;
		unsigned pid;
		if (sscanf(e->d_name, "gpuprof-flight.%llu.%u", &rt, &pid) != 2 ||
		    pid == gpi_s.pid || rt <= dir_seen_rt) {
			continue;
		}
		if (rt > best) {
			best = rt;
			gpi_fmt(best_name, sizeof(best_name), "%s", e->d_name);
		}
	}
	closedir(d);
	if (!best) {
		return;
	}
	dir_seen_rt = best;
	char path[GPI_PATH_MAX], text[600] = "";
	struct stat sb;
	gpi_fmt(path, sizeof(path), "%s/%s", gpi_s.cfg.flight_dir, best_name);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != geteuid()) {
		if (fd >= 0) {
			close(fd);
		}
		return; /* another user's file (or not a file) triggers nothing */
	}
	ssize_t n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	text[strcspn(text, "\n")] = '\0';
	request(GPI_FLIGHT_RANK, "%s", text[0] ? text : best_name);
}

/* ------------------------------------------------------------- saving */

/* "<trace>.flight-TRIGGER-YYYYmmddTHHMMSSZ.gpz", created exclusively. */
static int open_save(char *path, size_t size)
{
	char suf[80];
	struct tm tm;
	time_t t = (time_t)(gp_clock_realtime_ns() / 1000000000ull);

	gmtime_r(&t, &tm);
	gpi_fmt(suf, sizeof(suf), "flight-%s-%04d%02d%02dT%02d%02d%02dZ", trig_names[trig.kind],
		tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	gpi_fmt(path, size, "%s", gpi_s.path);
	if (gpi_path_add_suffix(path, size, suf)) {
		return -1;
	}
	return gpi_session_create(path, size);
}

/* The PROCESS record (phase 3) that says why this file was saved (trace/FORMAT.md). */
static void trigger_record(struct gpi_conv *cv)
{
	char st[1024];
	struct gpt_ring_stats rs;

	gpt_ring_get_stats(ring, &rs);
	gpi_fmt(st, sizeof(st),
		"trigger=%s; trigger_ts=%llu; step_start=%llu; step_end=%llu; median_ns=%llu; "
		"window_start=%llu; dropped_chunks=%llu; dropped_records=%llu; suppressed=%llu; "
		"saves=%llu; ring_bytes=%llu; pinned_bytes=%llu; peak_bytes=%llu; what=%s",
		trig_names[trig.kind], (unsigned long long)trig.ts,
		(unsigned long long)trig.step_start, (unsigned long long)trig.step_end,
		(unsigned long long)trig.median_ns, (unsigned long long)rs.oldest_ts,
		(unsigned long long)rs.dropped_chunks, (unsigned long long)rs.dropped_records,
		(unsigned long long)suppressed, (unsigned long long)saves,
		(unsigned long long)rs.ring_bytes, (unsigned long long)rs.pinned_bytes,
		(unsigned long long)rs.peak_bytes, trig.what);
	gpi_meta_process_status(cv, GPI_PROCESS_FLIGHT, -1, st);
}

static void save(struct gpi_conv *cv, struct gpt_writer *w)
{
	char path[GPI_PATH_MAX], err[300] = "";

	trigger_record(cv);
	if (!cv->err && gpt_writer_flush(w)) {
		cv->err = -GP_ERR_NOMEM;
	}
	int fd = open_save(path, sizeof(path));
	if (fd >= 0) {
		int ret = gpt_ring_save_fd(ring, w, fd, path, err, sizeof(err));
		gpi_dbg("flight: saved %s (%s)", path, ret ? err : "ok");
		if (ret) {
			gpi_warn("cannot save the flight recording: %s", err);
		}
	}
	saves++;
	last_save_ts = gpi_now();
	tell_ranks();
	trig.pending = false;
	gpt_ring_hold(ring, 0);
}

void gpi_flight_nccl_error(const char *fn, int code)
{
	if (!gpi_flight_on) {
		return;
	}
	int saved = errno;
	atomic_store_explicit(&nccl_err_fn, fn, memory_order_relaxed);
	atomic_store_explicit(&nccl_err_code, code, memory_order_relaxed);
	atomic_fetch_add_explicit(&nccl_err_count, 1, memory_order_release);
	gpi_session_wake();
	errno = saved;
}

/* ncclResult_t in words (nccl.h's values; the library is not called from the writer). */
static const char *nccl_result_name(int code)
{
	static const char *const names[] = {
		"ncclSuccess",	     "ncclUnhandledCudaError", "ncclSystemError",
		"ncclInternalError", "ncclInvalidArgument",    "ncclInvalidUsage",
		"ncclRemoteError",   "ncclInProgress",
	};
	return code >= 0 && (size_t)code < GP_ARRAY_SIZE(names) ? names[code] : "an NCCL error";
}

/* Writer: NCCL errors since the last look make one trigger (the others are held back). */
static void note_nccl_errors(void)
{
	uint64_t n = atomic_load_explicit(&nccl_err_count, memory_order_acquire);

	if (n == nccl_err_seen) {
		return;
	}
	uint64_t more = n - nccl_err_seen - 1;
	nccl_err_seen = n;
	const char *fn = atomic_load_explicit(&nccl_err_fn, memory_order_relaxed);
	int code = atomic_load_explicit(&nccl_err_code, memory_order_relaxed);
	request(GPI_FLIGHT_NCCL_ERROR, "%s %s %s (%d)", fn ? fn : "an NCCL call",
		fn && !strcmp(fn, "ncclCommGetAsyncError") ? "reported" : "returned",
		nccl_result_name(code), code);
	suppressed += more;
}

void gpi_flight_poll(struct gpi_conv *cv, struct gpt_writer *w)
{
	uint64_t now = gpi_now();
	uint64_t n = atomic_load(&sig_count);

	if (!gpi_flight_on || !w) {
		return;
	}
	if (n != sig_seen) {
		uint64_t more = n - sig_seen - 1; /* signals since the last look: one trigger */
		sig_seen = n;
		request(GPI_FLIGHT_SIGNAL, "signal %d", gpi_s.cfg.flight_signal);
		suppressed += more;
	}
	note_nccl_errors();
	serve_socket();
	poll_dir(now);
	if (sig_installed && now >= sig_next_check) {
		sig_next_check = now + SIG_CHECK_NS;
		install_signal(); /* the program may have installed its own since */
	}
	if (trig.pending && now >= trig.save_at) {
		save(cv, w);
	}
	/*
	 * No trim by the wall clock: the window is the last SECONDS of recorded
	 * activity, so a stall longer than the window keeps the steps before it.
	 */
}

void gpi_flight_end(struct gpi_conv *cv, struct gpt_writer *w, int exit_signal, bool crashing)
{
	static bool saved_at_crash;

	if (!gpi_flight_on || !w || saved_at_crash) {
		return;
	}
	if (!crashing) {
		note_nccl_errors(); /* an NCCL error just before the end is still its trigger */
	}
	/* a pending trigger is saved now whatever else happens: the program is ending */
	if (crashing) {
		char prev[300] = "";
		if (trig.pending) {
			gpi_fmt(prev, sizeof(prev), "; a %s trigger was pending: %s",
				trig_names[trig.kind], trig.what);
		}
		trig.pending = false;
		last_save_ts = 0; /* a crash is saved whatever the cool-down */
		request(GPI_FLIGHT_CRASH, "the program received signal %d%s", exit_signal, prev);
		saved_at_crash = true;
	} else if (!trig.pending) {
		last_save_ts = 0;
		if (exit_signal) {
			request(GPI_FLIGHT_EXIT, "the program ended by signal %d", exit_signal);
		} else {
			request(GPI_FLIGHT_EXIT, "the program exited");
		}
	}
	if (trig.pending) {
		save(cv, w);
	}
}

void gpi_flight_release(void)
{
	gpt_ring_free(ring);
	ring = NULL;
	free(steps.is_step);
	steps.is_step = NULL;
	steps.is_step_cap = 0;
	if (step_re_ok) {
		regfree(&step_re);
		step_re_ok = false;
	}
}
