/* SPDX-License-Identifier: MIT */
/*
 * session.c - one recording session per process: start, the writer thread,
 * the trace file, and the end (normal exit, exit() from any thread, SIGINT,
 * SIGTERM, fork, exec).
 *
 * Locks: start_mu serializes starting the session (InitializeInjection and
 * InitializeInjectionNvtx2 may race on two threads). It is never held while
 * calling CUPTI or while waiting for the writer. Everything else is atomics.
 *
 * The writer thread blocks every signal. It wakes on an eventfd (CUPTI
 * buffer completed, NVTX ring half full, capture window changed, stop) or
 * every few milliseconds, and every GPUPROF_FLUSH_MS it asks CUPTI for
 * completed buffers and writes whole chunks, so a SIGKILL loses at most one
 * flush period. At the end it forces CUPTI's last buffers out, closes open
 * ranges, writes the loss counts, the end clock anchor and the footer.
 *
 * Ending: atexit and the library destructor call gpi_session_finish; our
 * SIGINT/SIGTERM handlers (installed only where the program kept the
 * default action) do the same in a signal-safe way (a flag, an eventfd
 * write, poll on a pipe), then restore the default action and re-raise, so
 * the exit status is what it would have been. Every wait has a deadline
 * (GPUPROF_EXIT_TIMEOUT_MS); past it the file is left as a crash would leave
 * it: readable to its last whole chunk.
 */
#include "base/compat.h"
#include "inject/inject.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

struct gpi_session gpi_s = {.wake_fd = -1, .done_fd = {-1, -1}};

static pthread_mutex_t start_mu = PTHREAD_MUTEX_INITIALIZER;
static bool handlers_installed;
static int trace_fd = -1; /* owned by the gpt_writer; kept to close it in a fork child */
static struct gpt_writer *writer;
static struct gpi_conv conv;
static struct gpi_tickconv tconv;
static struct sigaction old_int, old_term;
/* A fork child's copies of the parent's writer state: never used, kept reachable. */
static struct gpt_writer *parent_writer;
static struct gpi_conv parent_conv;
static bool own_int, own_term;

static const char *env_get(const char *name)
{
	return getenv(name);
}

void gpi_status_add(const char *fmt, ...)
{
	va_list ap;
	size_t n;

	while (atomic_exchange(&gpi_s.status_lock, 1)) {
		sched_yield();
	}
	n = strlen(gpi_s.status);
	if (n + 3 < sizeof(gpi_s.status)) {
		if (n) {
			memcpy(gpi_s.status + n, "; ", 2);
			n += 2;
		}
		va_start(ap, fmt);
		gpi_vfmt(gpi_s.status + n, sizeof(gpi_s.status) - n, fmt, ap);
		va_end(ap);
	}
	atomic_store(&gpi_s.status_lock, 0);
}

void gpi_session_wake(void)
{
	uint64_t one = 1;
	int fd = gpi_s.wake_fd;
	int saved = errno;

	if (fd >= 0) {
		ssize_t r = write(fd, &one, sizeof(one));
		(void)r;
	}
	errno = saved;
}

const char *gpi_self_path(void)
{
	static char path[GPI_PATH_MAX];
	Dl_info info;

	if (!path[0] && dladdr((void *)gpi_self_path, &info) && info.dli_fname) {
		size_t n = strlen(info.dli_fname);
		if (n < sizeof(path)) {
			memcpy(path, info.dli_fname, n + 1);
		}
	}
	return path;
}

/* ------------------------------------------------------------ the file */

/*
 * The trace's folder, when missing, is created only if its parent exists:
 * one level at most, so a mistyped pattern never builds a tree of folders
 * (as root, up from /). Otherwise creating the file fails and says why.
 */
static void mkdir_last(const char *path)
{
	char dir[GPI_PATH_MAX];
	size_t n = strlen(path);
	char *slash;

	if (n >= sizeof(dir)) {
		return;
	}
	memcpy(dir, path, n + 1);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir) {
		return;
	}
	*slash = '\0';
	mkdir(dir, 0755); /* fails harmlessly when it exists or its parent does not */
}

/*
 * A line for `gpuprof record` in the manifest: "!TAG\tPATH\tTEXT". Paths
 * the library lists are absolute, so a line starting with '!' is a note.
 * true when written: `gpuprof record` then says it, and the library need not.
 */
static bool manifest_note(const char *tag, const char *path, const char *text)
{
	char line[GPI_PATH_MAX + 600];
	int fd;

	if (!gpi_s.cfg.manifest[0]) {
		return false;
	}
	fd = open(gpi_s.cfg.manifest, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0) {
		return false;
	}
	while (flock(fd, LOCK_EX) && errno == EINTR) {
	}
	size_t n = gpi_fmt(line, sizeof(line), "!%s\t%s\t%s\n", tag, path, text);
	gpi_write_all(fd, line, n);
	flock(fd, LOCK_UN);
	close(fd);
	return true;
}

static bool manifest_has(const char *text, const char *path)
{
	size_t len = strlen(path);

	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		if (l == len && !memcmp(p, path, len)) {
			return true;
		}
		p = nl ? nl + 1 : NULL;
	}
	return false;
}

/* Reads a whole small file; caller frees. */
static char *slurp_fd(int fd)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);

	if (!buf) {
		return NULL;
	}
	lseek(fd, 0, SEEK_SET);
	for (;;) {
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				break;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			break;
		}
		len += (size_t)n;
	}
	buf[len] = '\0';
	return buf;
}

/* The trace's path from the pattern, made absolute and unique. */
static int choose_path(char *path, size_t size)
{
	struct gpi_rank rank;
	char name[GPI_PATH_MAX];
	const char *v;

	gpi_detect_rank(env_get, &rank);
	if (gpi_expand_pattern(gpi_s.cfg.output, gpi_s.pid, gpi_hostname(), rank.rank, env_get,
			       name, sizeof(name))) {
		gpi_status_add("bad output pattern \"%s\"; default used", gpi_s.cfg.output);
		gpi_expand_pattern(GPI_DEFAULT_PATTERN, gpi_s.pid, gpi_hostname(), rank.rank,
				   env_get, name, sizeof(name));
	}
	if (name[0] == '/') {
		gpi_fmt(path, size, "%s", name);
	} else {
		char cwd[GPI_PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd))) {
			cwd[0] = '\0';
		}
		gpi_fmt(path, size, "%s/%s", cwd, name);
	}
	/* exec of a traced program: the new image gets its own file */
	v = getenv("GPUPROF_EXEC_CHAIN");
	unsigned chain_pid = 0, gen = 0;
	if (v) {
		char *end;
		chain_pid = (unsigned)strtoul(v, &end, 10);
		gen = *end == ':' ? (unsigned)strtoul(end + 1, NULL, 10) : 0;
	}
	if (chain_pid == gpi_s.pid) {
		char suf[32];
		gen++;
		gpi_fmt(suf, sizeof(suf), "exec%u", gen);
		gpi_path_add_suffix(path, size, suf);
	} else {
		gen = 0;
	}
	if (!gpi_s.is_fork_child) {
		char val[48];
		gpi_fmt(val, sizeof(val), "%u:%u", gpi_s.pid, gen);
		setenv("GPUPROF_EXEC_CHAIN", val, 1);
	}
	return 0;
}

/* The path with ".PID" (then ".PID-K") added, for a name another process has. */
static void add_pid(char *path, size_t size, const char *base, unsigned k)
{
	char suf[32];

	memcpy(path, base, size);
	if (k < 2) {
		gpi_fmt(suf, sizeof(suf), "%u", gpi_s.pid);
	} else {
		gpi_fmt(suf, sizeof(suf), "%u-%u", gpi_s.pid, k);
	}
	gpi_path_add_suffix(path, size, suf);
}

/*
 * Creates the file, never over an existing one: a name that exists (another
 * program writing the same name, a trace of an earlier run) gets the pid
 * added, and the program says so once. listed: names taken in this run.
 */
static int create_exclusive(char *path, size_t size, const char *listed)
{
	char base[GPI_PATH_MAX];
	int fd = -1;

	errno = EEXIST; /* every name tried was another process's of this run */
	memcpy(base, path, sizeof(base));
	/* Another process of this run (a fork child, an exec) has it: add the pid, quietly. */
	bool quiet = listed && manifest_has(listed, path);
	for (unsigned k = quiet ? 1 : 0; k < 1000; k++) {
		if (k) {
			add_pid(path, size, base, k);
			if (listed && manifest_has(listed, path)) {
				continue;
			}
		}
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST) {
			break;
		}
	}
	if (fd >= 0 && !quiet && strcmp(path, base)) {
		gpi_warn("%s exists; this trace is %s", base, path);
	}
	return fd;
}

/*
 * Creates the file at path (made unique), listed in the manifest; its
 * descriptor, or -1 with the reason said once (or noted for `record`).
 */
int gpi_session_create(char *path, size_t size)
{
	int fd = -1, mfd = -1;
	char *listed = NULL;

	mkdir_last(path);
	/*
	 * A device, FIFO or directory at the name (GPUPROF_OUTPUT=/dev/null): not
	 * a file to write a trace into, nor a name to add the pid to (as root,
	 * /dev/null.PID would be created in /dev). Not traced, said once.
	 */
	struct stat sb;
	if (!stat(path, &sb) && !S_ISREG(sb.st_mode)) {
		static const char why[] = "not a regular file (a device, FIFO or directory)";
		if (!manifest_note("create", path, why)) {
			gpi_warn_once("cannot create trace file %s: %s; not tracing", path, why);
		}
		return -1;
	}
	if (gpi_s.cfg.manifest[0]) {
		mfd = open(gpi_s.cfg.manifest, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (mfd >= 0) {
			while (flock(mfd, LOCK_EX) && errno == EINTR) {
			}
			listed = slurp_fd(mfd);
		}
	}
	fd = create_exclusive(path, size, listed);
	if (fd < 0) {
		int e = errno;
		if (mfd >= 0) {
			flock(mfd, LOCK_UN);
			close(mfd);
		}
		free(listed);
		if (!manifest_note("create", path, strerror(e))) {
			gpi_warn_once("cannot create trace file %s: %s; not tracing", path,
				      strerror(e));
		}
		return -1;
	}
	if (mfd >= 0) {
		char line[GPI_PATH_MAX + 2];
		size_t n = gpi_fmt(line, sizeof(line), "%s\n", path);
		gpi_write_all(mfd, line, n);
		flock(mfd, LOCK_UN);
		close(mfd);
	}
	free(listed);
	return fd;
}

static int open_trace(void)
{
	char path[GPI_PATH_MAX];
	int fd = -1;
	struct gpt_writer *w = NULL;
	struct gpt_writer_opts wo = {.level = -1, .keep_going = true};
	int ret;

	choose_path(path, sizeof(path));
	if (gpi_flight_on) {
		/* nothing reaches a file until a trigger: the writer fills the ring */
		ret = gpi_flight_writer_opts(&wo);
		if (!ret) {
			ret = gpt_writer_open_fd(-1, path, &wo, &w);
		}
		if (ret) {
			gpi_warn_once("cannot start the flight recorder: %s; not tracing",
				      gp_err_str(ret));
			return -1;
		}
		goto opened;
	}
	fd = gpi_session_create(path, sizeof(path));
	if (fd < 0) {
		return -1;
	}
	trace_fd = fd;
	ret = gpt_writer_open_fd(fd, path, &wo, &w);
	if (ret) {
		const char *why = w ? gpt_writer_last_error(w) : gp_err_str(ret);
		size_t pl = strlen(path);
		if (!strncmp(why, path, pl) && !strncmp(why + pl, ": ", 2)) {
			why += pl + 2;
		}
		if (!manifest_note("create", path, why)) {
			gpi_warn_once("cannot write trace file %s: %s; not tracing", path, why);
		}
		if (w) {
			gpt_writer_abandon(w);
		}
		unlink(path); /* ours (created just now), and holds no trace */
		trace_fd = -1;
		return -1;
	}
opened:
	writer = w;
	memcpy(gpi_s.path, path, sizeof(gpi_s.path));
	gpi_conv_init(&conv, writer);
	gpi_dbg("trace file %s", path);
	return 0;
}

/* ------------------------------------------------------- the writer */

static uint64_t deadline_losses;

/* Records given to the writer that are not in the file (after a flush: none pending). */
static uint64_t writer_lost(struct gpt_writer_stats *st)
{
	uint64_t written = 0;

	gpt_writer_get_stats(writer, st);
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		written += st->records[k];
	}
	return conv.records + conv.refused > written ? conv.records + conv.refused - written : 0;
}

/*
 * Before the closing records: what writes lost so far goes into the trace
 * as one LOSS record (cause writer), in case the file takes writes again.
 */
static void note_writer_losses(void)
{
	struct gpt_writer_stats st;
	uint64_t lost;

	if (!writer || conv.err) {
		return;
	}
	gpt_writer_flush(writer);
	lost = writer_lost(&st);
	if (lost) {
		struct gpt_loss l = {
			.ts = gpi_now(), .cause = GPT_LOSS_WRITER, .count = lost,
			.bytes = st.lost_bytes};
		gpi_conv_add(&conv, GPT_KIND_LOSS, &l);
	}
}

/* The records lost by cause (all but writes, deadline buffers, open ranges), into buf. */
static uint64_t record_losses(char *buf, size_t size)
{
	static const char *const cause[GPT_LOSS__MAX] = {
		"",	"CUPTI",  "buffer pool",       "NVTX buffers",
		"NCCL", "write errors", "unfinished ranges", "flush deadline",
		"call-stack queue", "call-stack table", "GEMM queue"};
	uint64_t n = 0;
	size_t len = 0;

	buf[0] = 0;
	for (unsigned k = 1; k < GPT_LOSS__MAX; k++) {
		if (!conv.lost[k] || k == GPT_LOSS_WRITER || k == GPT_LOSS_UNFINISHED ||
		    k == GPT_LOSS_DEADLINE) {
			continue;
		}
		len += gpi_fmt(buf + len, size - len, "%s%s %llu", n ? ", " : "", cause[k],
			       (unsigned long long)conv.lost[k]);
		n += conv.lost[k];
	}
	return n;
}

/*
 * The losses other than to failed writes, as `gpuprof record`'s summary
 * names their causes, into buf: "120 records lost (CUPTI 120, NVTX buffers
 * 3)", and the CUPTI buffers not handed back by the exit deadline (a count
 * of buffers, not records). Ranges still open at the end are not lost
 * records. Returns whether there was any.
 */
static bool other_losses(char *buf, size_t size)
{
	char causes[256];
	uint64_t n = record_losses(causes, sizeof(causes));
	uint64_t bufs = conv.lost[GPT_LOSS_DEADLINE];
	size_t len = 0;

	buf[0] = 0;
	if (n) {
		len = gpi_fmt(buf, size, "%llu records lost (%s)", (unsigned long long)n, causes);
	}
	if (bufs) {
		gpi_fmt(buf + len, size - len, "%s%llu CUPTI buffer%s of records not handed back "
			"by the exit deadline", n ? ", and " : "", (unsigned long long)bufs,
			bufs == 1 ? "" : "s");
	}
	return n || bufs;
}

/*
 * At the end: says in one line on stderr what was lost, whatever started
 * the program; under `gpuprof record` (a manifest) failed writes go to the
 * manifest and the other losses are in the summary record prints from the
 * trace. GPUPROF_QUIET=1: nothing. The program's exit status is its own.
 */
static void report_losses(const struct gpt_writer_stats *st, uint64_t lost, int close_ret,
			  const char *why)
{
	char text[512], other[400], more[440] = "";
	bool any = other_losses(other, sizeof(other));

	if (lost || close_ret) {
		gpi_fmt(text, sizeof(text), "%llu\t%llu\t%s", (unsigned long long)lost,
			(unsigned long long)st->lost_bytes, why);
		if (manifest_note(close_ret ? "cut" : "lost", gpi_s.path, text)) {
			return;
		}
	}
	/* record's summary says the other losses, from the trace */
	if (gpi_s.cfg.quiet || (gpi_s.cfg.manifest[0] && !lost && !close_ret)) {
		return;
	}
	if (any) {
		gpi_fmt(more, sizeof(more), "; also %s, counted in the trace", other);
	}
	if (lost) {
		gpi_warn("%s: %llu records lost: writing the trace failed (%s)%s%s", gpi_s.path,
			 (unsigned long long)lost, why,
			 close_ret ? "; the file ends at its last whole chunk" : "", more);
	} else if (close_ret) {
		gpi_warn("%s: the end of the trace could not be written (%s); the file ends at "
			 "its last whole chunk%s",
			 gpi_s.path, why, more);
	} else if (any) {
		gpi_warn("%s: %s; the trace counts them", gpi_s.path, other);
	}
}

/* Why the writer failed, without the file name its messages start with. */
static void writer_why(int ret, int e, char *buf, size_t size)
{
	const char *why = gpt_writer_last_error(writer);
	size_t pl = strlen(gpi_s.path);

	if (e) {
		why = strerror(e);
	} else if (!ret) {
		why = "no error";
	} else if (!strncmp(why, gpi_s.path, pl) && !strncmp(why + pl, ": ", 2)) {
		why += pl + 2;
	}
	gpi_fmt(buf, size, "%s", why);
}

/* The end of the file: pending records, the footer; what failed is said. */
static void close_trace(void)
{
	struct gpt_writer_stats st;
	char why[256];
	int ret = conv.err ? conv.err : gpt_writer_flush(writer);
	uint64_t lost = writer_lost(&st);

	writer_why(ret, st.lost_errno, why, sizeof(why));
	if (!ret) {
		errno = 0;
		ret = gpt_writer_close(writer);
		if (ret && !st.lost_errno) {
			int e = errno;
			gpi_fmt(why, sizeof(why), "%s",
				ret == -GP_ERR_IO && e ? strerror(e) : gp_err_str(ret));
		}
	} else {
		gpt_writer_abandon(writer);
	}
	writer = NULL;
	trace_fd = -1;
	report_losses(&st, lost, ret, why);
	if (ret) {
		gpi_dbg("close: %s", why);
	}
}

static void process_cupti(void)
{
	struct gpi_slot *slots[64];
	uint32_t n;

	while ((n = gpi_pool_collect(slots, GP_ARRAY_SIZE(slots))) > 0) {
		for (uint32_t i = 0; i < n; i++) {
			if (writer) {
				gpi_conv_cupti_buffer(&conv, slots[i]->mem, slots[i]->valid);
			}
			gpi_pool_release(slots[i]);
		}
	}
}

static bool has_data(void)
{
	for (uint32_t i = 0; i < gpi_pool.nslots; i++) {
		if (atomic_load(&gpi_pool.slots[i].state) == GPI_SLOT_FULL) {
			return true;
		}
	}
	return gpi_nvtx_has_data() || gpi_nccl_has_data() || gpi_gemm_has_data();
}

static void header_records(void)
{
	gpi_meta_process(&conv, 1, -1);
	gpi_meta_clock(&conv, 1);
}

static void periodic(void)
{
	gpi_meta_losses(&conv, gpi_cupti_take_dropped());
	gpi_meta_threads(&conv);
	if (writer && !conv.err) {
		int ret = gpt_writer_flush(writer);
		if (ret) {
			conv.err = ret;
			gpi_dbg("flush: %s", gpt_writer_last_error(writer));
		}
	}
}

static void drain_eventfd(void)
{
	uint64_t v;
	ssize_t r = read(gpi_s.wake_fd, &v, sizeof(v));
	(void)r;
}

static void *writer_main(void *arg)
{
	const uint32_t flush_ms = gpi_s.cfg.flush_ms;
	uint64_t next_flush, next_clock;
	uint64_t last_gen = 0;

	(void)arg;
	prctl(PR_SET_NAME, "gpuprof-writer", 0, 0, 0);
	atomic_store(&gpi_s.writer_tid, (int)gettid());
	gpi_tickconv_init(&tconv);
	if (!gpi_s.lazy_open) {
		header_records();
	}
	next_flush = gpi_now() + (uint64_t)flush_ms * 1000000;
	next_clock = gpi_now() + 10ULL * 1000000000;
	for (;;) {
		uint64_t now = gpi_now();
		int timeout = 20;
		if (next_flush > now && (next_flush - now) / 1000000 < (uint64_t)timeout) {
			timeout = (int)((next_flush - now) / 1000000);
		} else if (next_flush <= now) {
			timeout = 0;
		}
		struct pollfd pfd[2] = {{.fd = gpi_s.wake_fd, .events = POLLIN},
					{.fd = gpi_flight_poll_fd(), .events = POLLIN}};
		if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, timeout) > 0 && (pfd[0].revents & POLLIN)) {
			drain_eventfd();
		}
		if (atomic_load(&gpi_s.stop_requested)) {
			break;
		}
		if (gpi_s.lazy_open && !writer) {
			if (!has_data()) {
				continue;
			}
			if (open_trace()) {
				gpi_nvtx_disable();
				atomic_store(&gpi_s.state, GPI_DISABLED);
				return NULL;
			}
			header_records();
		}
		now = gpi_now();
		bool flush = now >= next_flush;
		uint64_t gen = atomic_load(&gpi_windows.n);
		if (gen != last_gen) {
			flush = true; /* a capture window changed: get its records out */
			last_gen = gen;
		}
		if (flush) {
			gpi_cupti_flush(false);
		}
		gpi_tickconv_anchor(&tconv);
		process_cupti();
		gpi_nvtx_drain(&conv, &tconv);
		gpi_bt_drain(&conv);
		gpi_nccl_drain(&conv);
		gpi_gemm_drain(&conv);
		if (flush) {
			periodic();
			next_flush = now + (uint64_t)flush_ms * 1000000;
		}
		if (now >= next_clock) {
			gpi_meta_clock(&conv, 3);
			next_clock = now + 10ULL * 1000000000;
		}
		gpi_flight_poll(&conv, writer);
	}

	/* The end: CUPTI's last buffers, open ranges, losses, anchors, footer. */
	if (gpi_s.lazy_open && !writer) {
		if (!has_data() || open_trace()) {
			goto done;
		}
		header_records();
	}
	if (atomic_load(&gpi_s.crashing) && writer) {
		/* A crash: first what is in hand, before any call into CUPTI, which may hang */
		process_cupti();
		gpi_nvtx_drain(&conv, &tconv);
		if (!conv.err) {
			gpt_writer_flush(writer);
		}
		/* a flight recording is saved now: CUPTI may never answer again */
		gpi_flight_end(&conv, writer, atomic_load(&gpi_s.exit_signal), true);
	}
	gpi_cupti_flush(true);
	/* Buffers CUPTI still holds after a forced flush will never come. */
	uint64_t until = gpi_now() + 200000000ULL;
	while (gpi_pool_outstanding() && gpi_now() < until) {
		process_cupti();
		struct timespec ts = {0, 5000000};
		nanosleep(&ts, NULL);
	}
	deadline_losses = gpi_pool_outstanding();
	gpi_tickconv_anchor(&tconv);
	process_cupti();
	gpi_nvtx_drain(&conv, &tconv);
	gpi_bt_drain(&conv);
	gpi_nccl_drain(&conv);
	gpi_gemm_drain(&conv);
	uint64_t unfinished = gpi_nvtx_finish(&conv, gpi_now());
	gpi_meta_losses(&conv, gpi_cupti_take_dropped());
	if (unfinished || deadline_losses) {
		uint64_t ts = gpi_now();
		if (unfinished) {
			struct gpt_loss l = {
				.ts = ts, .cause = GPT_LOSS_UNFINISHED, .count = unfinished};
			gpi_conv_add(&conv, GPT_KIND_LOSS, &l);
		}
		if (deadline_losses) {
			struct gpt_loss l = {
				.ts = ts, .cause = GPT_LOSS_DEADLINE, .count = deadline_losses};
			gpi_conv_add(&conv, GPT_KIND_LOSS, &l);
		}
	}
	gpi_meta_threads(&conv);
	note_writer_losses();
	gpi_meta_clock(&conv, 2);
	gpi_meta_process(&conv, 2, gpi_s.exit_signal ? 128 + gpi_s.exit_signal : -1);
	if (writer && gpi_flight_on) {
		gpi_flight_end(&conv, writer, gpi_s.exit_signal, false);
		gpt_writer_close(writer); /* into the ring: no file */
		writer = NULL;
		gpi_flight_release();
	} else if (writer) {
		close_trace();
	}
	gpi_dbg("trace done: %llu records, %llu events, %llu outside the capture window, "
		"%llu event records without a time",
		(unsigned long long)conv.records, (unsigned long long)conv.events,
		(unsigned long long)conv.filtered, (unsigned long long)conv.untimed);
done:
	atomic_store(&gpi_s.state, GPI_DONE);
	{
		char c = 1;
		gpi_write_all(gpi_s.done_fd[1], &c, 1);
	}
	return NULL;
}

static int start_writer(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = pthread_create(&gpi_s.writer, &attr, writer_main, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	gpi_s.writer_started = ret == 0;
	return ret;
}

/* ------------------------------------------------------------- ending */

static bool wait_done(void)
{
	uint64_t until = gp_clock_monotonic_ns() + (uint64_t)gpi_s.cfg.exit_timeout_ms * 1000000;

	for (;;) {
		struct pollfd pfd = {.fd = gpi_s.done_fd[0], .events = POLLIN};
		uint64_t now = gp_clock_monotonic_ns();
		if (now >= until) {
			return false;
		}
		int r = poll(&pfd, 1, (int)((until - now) / 1000000) + 1);
		if (r > 0) {
			return true; /* the byte stays in the pipe: every waiter sees it */
		}
		if (r < 0 && errno != EINTR) {
			return false;
		}
	}
}

void gpi_session_finish(void)
{
	int saved = errno;
	int st = atomic_load(&gpi_s.state);

	if (st == GPI_RUNNING) {
		int expect = GPI_RUNNING;
		atomic_compare_exchange_strong(&gpi_s.state, &expect, GPI_STOPPING);
		st = GPI_STOPPING;
	}
	if (st == GPI_STOPPING && gpi_s.writer_started) {
		atomic_store(&gpi_s.stop_requested, 1);
		gpi_session_wake();
		if (!wait_done()) {
			gpi_dbg("the writer did not finish within %u ms",
				gpi_s.cfg.exit_timeout_ms);
		}
	}
	errno = saved;
}

static void on_exit_handler(void)
{
	gpi_session_finish();
}

__attribute__((destructor)) static void on_unload(void)
{
	if (atomic_load(&gpi_s.state) == GPI_RUNNING && gpi_s.pid == (unsigned)getpid()) {
		gpi_session_finish();
	}
}

static void on_signal(int sig)
{
	int saved = errno;
	int expect = 0;

	if (atomic_compare_exchange_strong(&gpi_s.exit_signal, &expect, sig)) {
		gpi_dbg("signal %d: finishing the trace", sig);
		gpi_session_finish();
	}
	/* the program's own action for this signal was the default: die by it */
	signal(sig, SIG_DFL);
	raise(sig); /* pending until this handler returns, then fatal */
	errno = saved;
}

static void install_signal(int sig, struct sigaction *old, bool *own)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, old) || old->sa_handler != SIG_DFL ||
	    (old->sa_flags & SA_SIGINFO)) {
		return; /* the program handles or ignores it: leave it alone */
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	*own = sigaction(sig, &sa, NULL) == 0;
}

/* ------------------------------------------------------------ crashes */

static const int crash_sigs[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static struct sigaction old_crash[GP_ARRAY_SIZE(crash_sigs)];

/* Whether the action is a function of the program's (not the default, not ignored). */
static bool is_handler(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) ||
	       (sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN);
}

/* The crash is fatal: the writer writes what it holds; the wait has its deadline. */
static void crash_finish(int sig)
{
	int expect = 0;

	if (atomic_load(&gpi_s.writer_tid) == (int)gettid()) {
		return; /* the writer itself: nobody to wait for */
	}
	atomic_compare_exchange_strong(&gpi_s.exit_signal, &expect, sig);
	atomic_store(&gpi_s.crashing, 1);
	gpi_session_finish();
}

/*
 * SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL. Signal-safe: atomics, an
 * eventfd write, poll, sigaction, raise. The writer thread (all signals
 * blocked, so never the faulting one) does the writing.
 */
static void on_crash(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	size_t i = 0;

	while (i < GP_ARRAY_SIZE(crash_sigs) && crash_sigs[i] != sig) {
		i++;
	}
	if (i == GP_ARRAY_SIZE(crash_sigs)) {
		return;
	}
	struct sigaction *old = &old_crash[i];
	if (is_handler(old)) {
		/* The program's own handler decides: it may recover (a runtime's SIGSEGV). */
		if (old->sa_flags & SA_SIGINFO) {
			old->sa_sigaction(sig, si, uc);
		} else {
			old->sa_handler(sig);
		}
		/* It gave up (the default restored, the signal pending or the fault to repeat). */
		struct sigaction cur;
		sigset_t pend;
		if (!sigaction(sig, NULL, &cur) && !is_handler(&cur) && cur.sa_handler == SIG_DFL &&
		    ((!sigpending(&pend) && sigismember(&pend, sig)) || (si && si->si_code > 0))) {
			crash_finish(sig);
		}
		errno = saved;
		return;
	}
	if (old->sa_handler == SIG_DFL) {
		crash_finish(sig);
	}
	/* As the program had it; a default action kills when this handler returns. */
	sigaction(sig, old, NULL);
	if (old->sa_handler == SIG_DFL) {
		raise(sig);
	}
	errno = saved;
}

/*
 * Installed once, when the session starts, over whatever the program had
 * (kept and called first). A handler the program installs later replaces
 * this one and stands.
 */
static void install_crash_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_crash;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	for (size_t i = 0; i < GP_ARRAY_SIZE(crash_sigs); i++) {
		if (sigaction(crash_sigs[i], NULL, &old_crash[i])) {
			continue;
		}
		sigaction(crash_sigs[i], &sa, NULL);
	}
}

/* -------------------------------------------------------------- fork */

static void atfork_child(void)
{
	int st = atomic_load(&gpi_s.state);

	if (st != GPI_RUNNING && st != GPI_STOPPING) {
		return;
	}
	/* Only this thread survives. The parent's writer state is not ours: leave it. */
	gpi_cupti_forget();
	gpi_pool_atfork_child();
	if (trace_fd >= 0) {
		close(trace_fd);
	}
	trace_fd = -1;
	parent_writer = writer;
	parent_conv = conv;
	writer = NULL;
	gpi_conv_init(&conv, NULL);
	gpi_nvtx_atfork_child();
	gpi_bt_atfork_child();
	gpi_gemm_atfork_child();
	pthread_mutex_init(&start_mu, NULL);
	gpi_s.pid = (unsigned)getpid();
	gpi_s.path[0] = '\0';
	gpi_s.status_lock = 0;
	atomic_store(&gpi_s.stop_requested, 0);
	atomic_store(&gpi_s.exit_signal, 0);
	if (gpi_s.wake_fd >= 0) {
		close(gpi_s.wake_fd);
	}
	close(gpi_s.done_fd[0]);
	close(gpi_s.done_fd[1]);
	gpi_s.wake_fd = -1;
	if (gpi_flight_on) {
		gpi_flight_atfork_child();
	}
	if (gpi_s.cfg.fork_mode == GPI_FORK_OFF || gpi_flight_on) {
		gpi_nvtx_disable();
		atomic_store(&gpi_s.state, GPI_DISABLED);
		return;
	}
	gpi_s.is_fork_child = true;
	gpi_s.lazy_open = true;
	gpi_s.status[0] = '\0';
	gpi_status_add("forked child: CUDA activity is not traced after fork without exec");
	gpi_s.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (gpi_s.wake_fd < 0 || pipe2(gpi_s.done_fd, O_CLOEXEC) || start_writer()) {
		gpi_nvtx_disable();
		atomic_store(&gpi_s.state, GPI_DISABLED);
		return;
	}
	atomic_store(&gpi_s.state, GPI_RUNNING);
}

/* -------------------------------------------------------------- start */

static void disable(const char *why)
{
	gpi_warn_once("%s; not tracing", why);
	atomic_store(&gpi_s.state, GPI_DISABLED);
}

bool gpi_session_start(void)
{
	int st = atomic_load(&gpi_s.state);
	bool ok = false;

	if (st != GPI_OFF) {
		return st == GPI_RUNNING;
	}
	pthread_mutex_lock(&start_mu);
	st = atomic_load(&gpi_s.state);
	if (st != GPI_OFF) {
		pthread_mutex_unlock(&start_mu);
		return st == GPI_RUNNING;
	}
	gpi_config_load(&gpi_s.cfg, env_get, gpi_s.cfg_err, sizeof(gpi_s.cfg_err));
	gpi_debug_on = gpi_s.cfg.debug;
	if (gpi_s.cfg_err[0]) {
		gpi_status_add("%s", gpi_s.cfg_err);
		gpi_dbg("config: %s", gpi_s.cfg_err);
	}
	gpi_tick_init(gpi_s.cfg.clock);
	gpi_s.pid = (unsigned)getpid();
	gpi_s.start_ts = gpi_now();
	gpi_flight_init();
	gpi_dbg("session start: pid %u, library %s, tick %s", gpi_s.pid, gpi_self_path(),
		gpi_tick_is_tsc ? "tsc" : "clock_gettime");
	if (gpi_pool_init(gpi_s.cfg.buffer_bytes)) {
		disable("cannot map the buffer pool");
		goto out;
	}
	gpi_s.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (gpi_s.wake_fd < 0 || pipe2(gpi_s.done_fd, O_CLOEXEC)) {
		disable("cannot create the writer's wake-up descriptors");
		goto out;
	}
	if (open_trace()) {
		atomic_store(&gpi_s.state, GPI_DISABLED);
		goto out;
	}
	if (start_writer()) {
		gpt_writer_abandon(writer);
		writer = NULL;
		disable("cannot start the writer thread");
		goto out;
	}
	if (!handlers_installed) {
		handlers_installed = true;
		atexit(on_exit_handler);
		pthread_atfork(NULL, NULL, atfork_child);
		install_signal(SIGINT, &old_int, &own_int);
		install_signal(SIGTERM, &old_term, &own_term);
		install_crash_handlers();
	}
	atomic_store(&gpi_s.state, GPI_RUNNING);
	ok = true;
out:
	pthread_mutex_unlock(&start_mu);
	return ok;
}
