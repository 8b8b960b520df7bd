/* SPDX-License-Identifier: MIT */
/*
 * bench-trace - size and speed of the .gpz writer and reader (make bench).
 *
 *   bench-trace [--steps N] [--reps N] [--no-levels] [--only OP]
 *
 * Input: the seeded generator's realistic training-step mix (gen_opts_default
 * with --steps steps, 1000 by default); "events" is gen_stats.events, every
 * activity record (kernels, their API records, copies, syncs, NVTX ranges)
 * but not the few metadata records.
 *
 *  - Size: bytes of the finished file per event, as the generator writes it,
 *    at the default deflate level and at each level 0-9.
 *  - Writer: the records are first captured in memory (written once, read
 *    back), then only interning the strings and gpt_writer_add/close of those
 *    records is timed, to a file in a temporary folder and to /dev/null.
 *  - Reader: gpt_reader_open/next/free over the whole file, from a memory
 *    buffer and from the (page-cached) file.
 *
 * Everything runs in this thread, pinned to one CPU where the system allows;
 * times come from CLOCK_MONOTONIC and each figure is the median of --reps
 * repetitions. The thread's CPU time (CLOCK_THREAD_CPUTIME_ID) is shown
 * next to it: on a busy machine wall time also counts waiting for a CPU.
 * The output is a table with each target and PASS or MISS for both.
 */
#include "base/compat.h"
#include "tests/tools/gen.h"

#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TARGET_BYTES_PER_EVENT 6.0
#define TARGET_WRITE_EPS 5e6
#define TARGET_READ_EPS 20e6

struct cap_chunk {
	enum gpt_kind kind;
	uint32_t count;
	void *recs;
};

/* The records of one trace, chunk by chunk in file order, and its strings. */
struct capture {
	struct cap_chunk *chunks;
	size_t nchunks;
	char **strings; /* strings[i] has id i + 1 */
	uint32_t nstrings;
	uint64_t records;
};

static char tmpdir[4096];

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* CPU time of this thread: what the code costs, without time spent waiting for the CPU. */
static double cpu_s(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench-trace: %s: %s\n", what, err ? gp_err_str(err) : strerror(errno));
	exit(1);
}

static void pin_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu < 0) {
		printf("cpu:      not pinned (sched_getcpu: %s)\n", strerror(errno));
		return;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		printf("cpu:      not pinned (sched_setaffinity: %s)\n", strerror(errno));
		return;
	}
	printf("cpu:      pinned to CPU %d of %ld online\n", cpu, sysconf(_SC_NPROCESSORS_ONLN));
}

static void tmp_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
}

/* Writes the generator's trace to path; returns the file size, fills *gs. */
static uint64_t gen_file(const char *path, const struct gen_opts *go, int level,
			 struct gen_stats *gs)
{
	struct gpt_writer_opts wo = {.level = level};
	struct gpt_writer *w;
	struct stat sb;
	int ret;

	ret = gpt_writer_open(path, &wo, &w);
	if (ret) {
		die(path, ret);
	}
	ret = gen_write(w, go, gs);
	if (ret) {
		die(gpt_writer_last_error(w), ret);
	}
	ret = gpt_writer_close(w);
	if (ret) {
		die(path, ret);
	}
	if (stat(path, &sb)) {
		die(path, 0);
	}
	return (uint64_t)sb.st_size;
}

static void capture_file(const char *path, struct capture *cap)
{
	struct gpt_reader *r;
	struct gpt_reader_status st;
	struct gpt_chunk c;
	size_t alloc = 0;
	int ret;

	memset(cap, 0, sizeof(*cap));
	ret = gpt_reader_open(path, &r);
	if (ret) {
		die(r ? gpt_reader_last_error(r) : path, ret);
	}
	while ((ret = gpt_reader_next(r, &c)) == 1) {
		if (cap->nchunks == alloc) {
			alloc = alloc ? 2 * alloc : 256;
			cap->chunks = realloc(cap->chunks, alloc * sizeof(*cap->chunks));
			if (!cap->chunks) {
				die("capture", -GP_ERR_NOMEM);
			}
		}
		struct cap_chunk *cc = &cap->chunks[cap->nchunks++];
		cc->kind = c.kind;
		cc->count = c.count;
		cc->recs = malloc((size_t)c.count * c.info->size);
		if (!cc->recs) {
			die("capture", -GP_ERR_NOMEM);
		}
		memcpy(cc->recs, c.records, (size_t)c.count * c.info->size);
		cap->records += c.count;
	}
	if (ret < 0) {
		die(gpt_reader_last_error(r), ret);
	}
	gpt_reader_get_status(r, &st);
	if (st.problems || st.truncated) {
		die("capture: the generated trace does not read back cleanly", -GP_ERR_FORMAT);
	}
	cap->nstrings = (uint32_t)st.strings;
	cap->strings = calloc(cap->nstrings + 1u, sizeof(*cap->strings));
	if (!cap->strings) {
		die("capture", -GP_ERR_NOMEM);
	}
	for (uint32_t id = 1; id <= cap->nstrings; id++) {
		const char *s = gpt_reader_string(r, id);
		cap->strings[id - 1] = strdup(s ? s : "");
		if (!cap->strings[id - 1]) {
			die("capture", -GP_ERR_NOMEM);
		}
	}
	gpt_reader_free(r);
}

static void capture_release(struct capture *cap)
{
	for (size_t i = 0; i < cap->nchunks; i++) {
		free(cap->chunks[i].recs);
	}
	for (uint32_t i = 0; i < cap->nstrings; i++) {
		free(cap->strings[i]);
	}
	free(cap->chunks);
	free(cap->strings);
}

/*
 * Writes the captured records to path (NULL: /dev/null) at level; returns
 * the seconds taken. Interning every string again in id order gives each
 * the id its records refer to.
 */
static double replay(const struct capture *cap, const char *path, int level)
{
	struct gpt_writer_opts wo = {.level = level};
	struct gpt_writer *w;
	double t0, t1;
	int ret, fd;

	t0 = now_s();
	fd = open(path ? path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		die(path ? path : "/dev/null", 0);
	}
	ret = gpt_writer_open_fd(fd, path ? path : "/dev/null", &wo, &w);
	if (ret) {
		die("open writer", ret);
	}
	for (uint32_t i = 0; i < cap->nstrings && !ret; i++) {
		uint32_t id;
		ret = gpt_writer_intern_cstr(w, cap->strings[i], &id);
		if (!ret && id != i + 1) {
			die("replay: string ids differ", -GP_ERR_API);
		}
	}
	for (size_t i = 0; i < cap->nchunks && !ret; i++) {
		const struct cap_chunk *cc = &cap->chunks[i];
		size_t size = gpt_kind_info(cc->kind)->size;
		const uint8_t *p = cc->recs;
		for (uint32_t j = 0; j < cc->count && !ret; j++, p += size) {
			ret = gpt_writer_add(w, cc->kind, p);
		}
	}
	if (ret) {
		die(gpt_writer_last_error(w), ret);
	}
	ret = gpt_writer_close(w);
	t1 = now_s();
	if (ret) {
		die("close writer", ret);
	}
	return t1 - t0;
}

/* Reads the whole trace; returns the seconds taken, the records decoded in *nrec. */
static double read_pass(const char *path, const void *mem, size_t len, uint64_t *nrec)
{
	struct gpt_reader *r;
	struct gpt_chunk c;
	uint64_t n = 0;
	double t0, t1;
	int ret;

	t0 = now_s();
	ret = mem ? gpt_reader_open_mem(mem, len, "bench", &r) : gpt_reader_open(path, &r);
	if (ret) {
		die(r ? gpt_reader_last_error(r) : "open reader", ret);
	}
	while ((ret = gpt_reader_next(r, &c)) == 1) {
		n += c.count;
	}
	if (ret < 0) {
		die(gpt_reader_last_error(r), ret);
	}
	gpt_reader_free(r);
	t1 = now_s();
	*nrec = n;
	return t1 - t0;
}

static void *slurp(const char *path, size_t *len)
{
	struct stat sb;
	uint8_t *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &sb)) {
		die(path, 0);
	}
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf) {
		die("slurp", -GP_ERR_NOMEM);
	}
	for (size_t got = 0; got < (size_t)sb.st_size;) {
		ssize_t n = read(fd, buf + got, (size_t)sb.st_size - got);
		if (n <= 0) {
			die(path, 0);
		}
		got += (size_t)n;
	}
	close(fd);
	*len = (size_t)sb.st_size;
	return buf;
}

static const char *mark(bool pass)
{
	return pass ? "PASS" : "MISS";
}

enum op {
	OP_WRITE_FILE,
	OP_WRITE_NULL,
	OP_READ_MEM,
	OP_READ_FILE,
};

/* What the timed operations work on. */
struct bench {
	struct capture cap;
	char path[4200];  /* the generator's file, read by OP_READ_FILE */
	char rpath[4200]; /* written by OP_WRITE_FILE */
	void *mem;        /* the generator's file in memory */
	size_t len;
};

struct timing {
	double med, min, max; /* events per second, from wall-clock time */
	double cpu;           /* events per second, from the median CPU time */
};

/* Runs op reps times after one untimed warm-up; events per second from ev events. */
static void time_op(struct bench *b, enum op op, int level, unsigned reps, double ev,
		    struct timing *out)
{
	double t[64], c[64];
	uint64_t nrec = 0;

	if (reps > GP_ARRAY_SIZE(t)) {
		reps = GP_ARRAY_SIZE(t);
	}
	for (unsigned i = 0; i <= reps; i++) {
		double c0 = cpu_s(), s = 0;
		switch (op) {
		case OP_WRITE_FILE:
			s = replay(&b->cap, b->rpath, level);
			break;
		case OP_WRITE_NULL:
			s = replay(&b->cap, NULL, level);
			break;
		case OP_READ_MEM:
			s = read_pass(NULL, b->mem, b->len, &nrec);
			break;
		case OP_READ_FILE:
			s = read_pass(b->path, NULL, 0, &nrec);
			break;
		}
		if (i > 0) {
			t[i - 1] = s;
			c[i - 1] = cpu_s() - c0;
		}
	}
	if ((op == OP_READ_MEM || op == OP_READ_FILE) && nrec != b->cap.records) {
		die("reader: record count differs from the capture", -GP_ERR_FORMAT);
	}
	out->med = ev / median(t, reps);
	out->min = ev / t[reps - 1];
	out->max = ev / t[0];
	out->cpu = ev / median(c, reps);
}

static void row(const char *what, const struct timing *tm, double target)
{
	char range[64];

	snprintf(range, sizeof(range), "%.2f-%.2f", tm->min / 1e6, tm->max / 1e6);
	printf("%-30s %8.2f %12s %8.2f %6s%.2f  %-4s  %s\n", what, tm->med / 1e6, range,
	       tm->cpu / 1e6, ">= ", target / 1e6, mark(tm->med >= target),
	       mark(tm->cpu >= target));
}

static void usage(FILE *f)
{
	fputs("usage: bench-trace [--steps N] [--reps N] [--no-levels] [--only OP]\n"
	      "  --steps N     generator training steps (1000)\n"
	      "  --reps N      repetitions per timing, at most 64; the median is shown (9)\n"
	      "  --no-levels   skip the per-level size and speed table\n"
	      "  --only OP     time only OP (write-file, write-null, read-mem, read-file),\n"
	      "                for profilers\n",
	      f);
}

static const char *const op_names[] = {"write-file", "write-null", "read-mem", "read-file"};

struct args {
	unsigned steps, reps;
	bool levels;
	int only; /* an enum op, or -1 for all */
};

/* Parses the command line: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{"steps", 1, 0, 's'},
		{"reps", 1, 0, 'r'},
		{"no-levels", 0, 0, 'L'},
		{"only", 1, 0, 'o'},
		{"help", 0, 0, 'h'},
		{0, 0, 0, 0},
	};
	int c;

	*a = (struct args){.steps = 1000, .reps = 9, .levels = true, .only = -1};
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 's') {
			a->steps = (unsigned)strtoul(optarg, NULL, 10);
		} else if (c == 'r') {
			a->reps = (unsigned)strtoul(optarg, NULL, 10);
		} else if (c == 'L') {
			a->levels = false;
		} else if (c == 'o') {
			for (size_t i = 0; i < GP_ARRAY_SIZE(op_names); i++) {
				if (!strcmp(optarg, op_names[i])) {
					a->only = (int)i;
				}
			}
			if (a->only < 0) {
				usage(stderr);
				return 2;
			}
		} else if (c == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !a->steps || !a->reps || a->reps > 64) {
		usage(stderr);
		return 2;
	}
	return -1;
}

/* The default level's table: size, write and read rates against their targets. */
static void default_level(struct bench *b, unsigned reps, double ev, uint64_t bytes,
			  const struct gen_stats *gs)
{
	struct timing wf, wn, rm, rf;

	/* Writer: captured records, so the generator's own cost is not timed. */
	time_op(b, OP_WRITE_FILE, -1, reps, ev, &wf);
	time_op(b, OP_WRITE_NULL, -1, reps, ev, &wn);
	/* Reader: the generator's file, from memory and from the (cached) file. */
	time_op(b, OP_READ_MEM, -1, reps, ev, &rm);
	time_op(b, OP_READ_FILE, -1, reps, ev, &rf);

	double bpe = (double)bytes / ev;
	printf("%-30s %8s %12s %8s %11s  %-4s  %s\n", "default level (1)", "wall", "wall",
	       "cpu", "target", "wall", "cpu");
	printf("%-30s %8s %12s %8s %11s\n", "", "median", "min-max", "median", "");
	printf("%-30s %8.2f %12s %8s %6s%.2f  %s\n", "size, bytes/event", bpe, "", "", "<= ",
	       TARGET_BYTES_PER_EVENT, mark(bpe <= TARGET_BYTES_PER_EVENT));
	row("write to file, Mevents/s", &wf, TARGET_WRITE_EPS);
	row("write to /dev/null, Mevents/s", &wn, TARGET_WRITE_EPS);
	row("read from memory, Mevents/s", &rm, TARGET_READ_EPS);
	row("read from file, Mevents/s", &rf, TARGET_READ_EPS);
	printf("\n(file: %" PRIu64 " bytes for %" PRIu64 " events; %" PRIu64
	       " records with metadata; %u strings)\n",
	       bytes, gs->events, b->cap.records, b->cap.nstrings);
	if (wf.med < 0.85 * wf.cpu || rm.med < 0.85 * rm.cpu) {
		printf("note: wall-clock rates are well below CPU-time rates: the machine was\n"
		       "      busy and this thread waited for a CPU; the cpu column is the\n"
		       "      code's own speed.\n");
	}

	printf("\n%-40s %12s\n", "size comparison", "bytes/event");
	printf("%-40s %12.2f\n", "this format, default level (measured)", bpe);
	printf("%-40s %12s\n", "gzipped PyTorch profiler JSON (quoted)", "14-18");
	printf("%-40s %12s\n", "Nsight Systems SQLite export (quoted)", "~83");
}

/* Size and CPU-time rates at every deflate level. */
static void all_levels(const struct bench *b, const struct gen_opts *go, unsigned reps, double ev)
{
	unsigned lreps = reps < 3 ? reps : 3;

	printf("\n%-6s %10s %12s %13s %13s   (CPU-time medians of %u)\n", "level", "bytes",
	       "bytes/event", "write Mev/s", "read Mev/s", lreps);
	for (int level = 0; level <= 9; level++) {
		struct bench lb = *b;
		struct gen_stats ls;
		struct timing lw, lr;
		uint64_t lbytes;

		tmp_path(lb.path, sizeof(lb.path), "level.gpz");
		lbytes = gen_file(lb.path, go, level, &ls);
		lb.mem = slurp(lb.path, &lb.len);
		time_op(&lb, OP_WRITE_NULL, level, lreps, ev, &lw);
		time_op(&lb, OP_READ_MEM, level, lreps, ev, &lr);
		free(lb.mem);
		unlink(lb.path);
		printf("%-6d %10" PRIu64 " %12.2f %13.2f %13.2f%s\n", level, lbytes,
		       (double)lbytes / (double)ls.events, lw.cpu / 1e6, lr.cpu / 1e6,
		       level == 1 ? "   (default)" : "");
	}
}

int main(int argc, char **argv)
{
	static struct bench b;
	struct args a;
	struct gen_opts go;
	struct gen_stats gs;
	uint64_t bytes;
	double ev;
	int ret = parse_args(argc, argv, &a);

	if (ret >= 0) {
		return ret;
	}
	snprintf(tmpdir, sizeof(tmpdir), "%s/gpuprof-bench-XXXXXX", gp_tmpdir());
	if (!mkdtemp(tmpdir)) {
		die("mkdtemp", 0);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("bench-trace: .gpz writer and reader, one thread\n");
	pin_cpu();

	gen_opts_default(&go);
	go.steps = a.steps;
	tmp_path(b.path, sizeof(b.path), "gen.gpz");
	tmp_path(b.rpath, sizeof(b.rpath), "replay.gpz");
	bytes = gen_file(b.path, &go, -1, &gs);
	ev = (double)gs.events;
	printf("input:    generator default mix, %u steps x %u kernels, seed %" PRIu64 ": "
	       "%" PRIu64 " events\n          (%" PRIu64 " kernel, %" PRIu64 " api, %" PRIu64
	       " memcpy, %" PRIu64 " nvtx, %" PRIu64 " sync)\n",
	       go.steps, go.kernels_per_step, go.seed, gs.events, gs.records[GPT_KIND_KERNEL],
	       gs.records[GPT_KIND_API], gs.records[GPT_KIND_MEMCPY], gs.records[GPT_KIND_NVTX],
	       gs.records[GPT_KIND_SYNC]);
	printf("timing:   CLOCK_MONOTONIC, median of %u repetitions after one warm-up\n", a.reps);
#ifdef GPT_HAVE_LIBDEFLATE
	printf("inflate:  libdeflate (built with GPT_HAVE_LIBDEFLATE); deflate: zlib\n\n");
#else
	printf("inflate:  zlib; deflate: zlib\n\n");
#endif
	capture_file(b.path, &b.cap);
	b.mem = slurp(b.path, &b.len);

	if (a.only >= 0) {
		struct timing tm;
		time_op(&b, (enum op)a.only, -1, a.reps, ev, &tm);
		double target = a.only <= OP_WRITE_NULL ? TARGET_WRITE_EPS : TARGET_READ_EPS;
		row(op_names[a.only], &tm, target);
	} else {
		default_level(&b, a.reps, ev, bytes, &gs);
		if (a.levels) {
			all_levels(&b, &go, a.reps, ev);
		}
	}
	free(b.mem);
	capture_release(&b.cap);
	unlink(b.path);
	unlink(b.rpath);
	rmdir(tmpdir);
	return 0;
}
