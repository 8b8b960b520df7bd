/* SPDX-License-Identifier: MIT */
/*
 * tracegen - write seeded synthetic traces for tests, benchmarks and demos.
 *
 *   tracegen [options] -o PATH     (PATH may hold %r for the rank)
 */
#include "base/compat.h"
#include "tests/tools/gen.h"
#include "tests/tools/gen-nccl.h"

#include <getopt.h>
#include <stdio.h>

static void usage(FILE *f)
{
	fputs("usage: tracegen [options] -o PATH\n"
	      "  --seed N          random seed (1)\n"
	      "  --steps N         training steps (10)\n"
	      "  --kernels N       kernel launches per step and device (200)\n"
	      "  --copies N        memory copies per step and device (4)\n"
	      "  --streams N       streams per device (2)\n"
	      "  --devices N       devices (1)\n"
	      "  --nvtx-depth N    NVTX nesting below each step range (2)\n"
	      "  --ranks N         write N files, one per rank; PATH needs %r (1)\n"
	      "  --gap-ns N        idle time after each step, in a DataLoader NVTX range (0)\n"
	      "  --load-ns N       host time at the start of each step, inside it, in the\n"
	      "                    DataLoader iterator's range (a data-loading stall) (0)\n"
	      "  --sync-wake-ns N  the step's closing sync returns N ns after the GPU is done (2000)\n"
	      "  --item-sync       a host sync halfway through each step (like loss.item())\n"
	      "  --all-kinds       also write every other record kind\n"
	      "  --memory N        N allocator events per step, with totals (0)\n"
	      "  --level N         deflate level, 0 stores chunks uncompressed (1)\n"
	      "  --chunk-records N records per chunk (8192)\n"
	      "  --no-close        leave the file without its footer, as a crash would\n"
	      "  --compact N       write a format 2.0 compact file, packed when its chunks\n"
	      "                    total at most N bytes (0: the writer's 1 MiB)\n"
	      "  --same-kernels    every step launches the same kernels and copy sizes\n"
	      "  --step-jitter SD  per-step noise: kernel durations times 1 + N(0, SD) (0)\n"
	      "  --run-jitter SD   per-run noise: kernel durations times 1 + N(0, SD) (0)\n"
	      "  --slowdown F      every kernel and copy takes F times as long (1)\n"
	      "  --slow-kernel REGEX=F  kernels matching REGEX (POSIX ERE) take F times as long\n"
	      "  --nccl            instead: per rank, steps with an AllReduce overlapping compute\n"
	      "                    (tests/tools/gen-nccl.c has the known answers)\n"
	      "  --straggler R     with --nccl: rank R arrives late at every AllReduce\n"
	      "  --nccl-late NS    how late (400000)\n"
	      "  --nccl-fill N     with --nccl: N more short kernels per step (0)\n"
	      "  --nccl-names      with --nccl: no NCCL records, kernels known by name only\n"
	      "  --nccl-sync       with --nccl: the host waits for each AllReduce\n"
	      "  --nccl-no-seq     with --nccl: NCCL records without sequence numbers\n"
	      "  --clock-off NS    with --nccl: rank r's clock anchor r * NS off\n"
	      "  --slow-rank R     with --nccl: rank R's compute kernels take --slowdown F\n"
	      "                    times as long (a slow GPU; F default 1.3)\n",
	      f);
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-') {
		return false;
	}
	*out = v;
	return true;
}

static int expand(const char *pat, uint32_t rank, char *out, size_t n)
{
	size_t o = 0;

	for (const char *p = pat; *p; p++) {
		int w;
		if (p[0] == '%' && p[1] == 'r') {
			w = snprintf(out + o, n - o, "%" PRIu32, rank);
			p++;
		} else {
			w = snprintf(out + o, n - o, "%c", *p);
		}
		if (w < 0 || (size_t)w >= n - o) {
			return -1;
		}
		o += (size_t)w;
	}
	return 0;
}

struct args {
	struct gen_opts go;
	struct gen_nccl_opts no;
	struct gpt_writer_opts wo;
	const char *out;
	uint64_t ranks;
	bool nccl, no_close;
};

/* --straggler, --nccl-late, --nccl-fill: false on a bad value. */
static bool take_nccl_number(struct args *a, int c, const char *arg)
{
	uint64_t v;

	if (!parse_u64(arg, &v) || v > UINT32_MAX * 1000ull) {
		return false;
	}
	if (c == 1001) {
		a->no.straggler = (int64_t)v;
	} else if (c == 1002) {
		a->no.late_ns = v;
	} else if (c == 1008) {
		a->no.slow_rank = (int64_t)v;
	} else if (c == 1011) {
		a->no.clock_off_ns = v;
	} else {
		a->no.fill = (uint32_t)v;
	}
	return true;
}

/* --step-jitter, --run-jitter, --slowdown, --slow-kernel: false on a bad value. */
static bool take_factor(struct args *a, int c, char *arg)
{
	char *eq = c == 'X' ? strrchr(arg, '=') : NULL, *end;
	const char *num = c == 'X' ? (eq ? eq + 1 : "") : arg;
	double f;

	errno = 0;
	f = strtod(num, &end);
	if (errno || end == num || *end || !(f >= 0) || f > 1000 ||
	    (c == 'X' && (!eq || eq == arg))) {
		return false;
	}
	if (c == 'J') {
		a->go.step_jitter = f;
	} else if (c == 'R') {
		a->go.run_jitter = f;
	} else if (c == 'D') {
		a->go.slowdown = f;
	} else {
		*eq = '\0';
		a->go.slow_regex = arg;
		a->go.slow_factor = f;
	}
	return true;
}

/* The options with a whole number: false on a bad value. */
static bool take_number(struct args *a, int c, const char *arg)
{
	uint64_t v;

	if (!parse_u64(arg, &v) || (c != 's' && c != 'g' && c != 'W' && c != 1009 && v > UINT32_MAX)) {
		return false;
	}
	switch (c) {
	case 's': a->go.seed = v; break;
	case 'S': a->go.steps = (uint32_t)v; break;
	case 'k': a->go.kernels_per_step = (uint32_t)v; break;
	case 'c': a->go.copies_per_step = (uint32_t)v; break;
	case 't': a->go.streams = (uint32_t)v; break;
	case 'd': a->go.devices = (uint32_t)v; break;
	case 'n': a->go.nvtx_depth = (uint32_t)v; break;
	case 'r': a->ranks = v; break;
	case 'g': a->go.gap_ns = v; break;
	case 'W': a->go.sync_wake_ns = v; break;
	case 'l': a->wo.level = (int)v; break;
	case 'C': a->wo.chunk_records = (uint32_t)v; break;
	case 1005: a->wo.compact = true; a->wo.pack_bytes = (uint32_t)v; break;
	case 1007: a->go.memory_per_step = (uint32_t)v; break;
	case 1009: a->go.load_ns = v; break;
	}
	return true;
}

/* Parses the command line into a: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{"seed", 1, 0, 's'},        {"steps", 1, 0, 'S'},     {"kernels", 1, 0, 'k'},
		{"copies", 1, 0, 'c'},      {"streams", 1, 0, 't'},   {"devices", 1, 0, 'd'},
		{"nvtx-depth", 1, 0, 'n'},  {"ranks", 1, 0, 'r'},     {"gap-ns", 1, 0, 'g'},
		{"all-kinds", 0, 0, 'a'},   {"level", 1, 0, 'l'},     {"chunk-records", 1, 0, 'C'},
		{"no-close", 0, 0, 'N'},    {"sync-wake-ns", 1, 0, 'W'}, {"item-sync", 0, 0, 'I'},
		{"help", 0, 0, 'h'},
		{"same-kernels", 0, 0, 'K'}, {"step-jitter", 1, 0, 'J'}, {"run-jitter", 1, 0, 'R'},
		{"slowdown", 1, 0, 'D'},    {"slow-kernel", 1, 0, 'X'},
		{"nccl", 0, 0, 1000},       {"straggler", 1, 0, 1001},  {"nccl-late", 1, 0, 1002},
		{"nccl-fill", 1, 0, 1003},  {"nccl-names", 0, 0, 1004}, {"compact", 1, 0, 1005},
		{"nccl-sync", 0, 0, 1006},
		{"memory", 1, 0, 1007},
		{"slow-rank", 1, 0, 1008},  {"load-ns", 1, 0, 1009},
		{"nccl-no-seq", 0, 0, 1010}, {"clock-off", 1, 0, 1011},
		{0, 0, 0, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (c == 'o') {
			a->out = optarg;
		} else if (c == 1000 || c == 1004 || c == 1006 || c == 1010) {
			a->nccl = true;
			a->no.names_only |= c == 1004;
			a->no.sync |= c == 1006;
			a->no.no_seq |= c == 1010;
		} else if ((c >= 1001 && c <= 1003) || c == 1008 || c == 1011) {
			if (!take_nccl_number(a, c, optarg)) {
				fprintf(stderr, "tracegen: bad value '%s'\n", optarg);
				return 2;
			}
		} else if (c == 'h') {
			usage(stdout);
			return 0;
		} else if (c == 'a') {
			a->go.all_kinds = true;
		} else if (c == 'I') {
			a->go.item_sync = true;
		} else if (c == 'N') {
			a->no_close = true;
		} else if (c == 'K') {
			a->go.same_kernels = true;
		} else if (c == 'J' || c == 'R' || c == 'D' || c == 'X') {
			if (!take_factor(a, c, optarg)) {
				fprintf(stderr, "tracegen: bad value '%s'\n", optarg);
				return 2;
			}
		} else if (c == '?' || !take_number(a, c, optarg)) {
			fprintf(stderr, "tracegen: bad option or value\n");
			usage(stderr);
			return 2;
		}
	}
	if (!a->out || optind != argc || !a->ranks || a->ranks > 4096 || !a->go.devices ||
	    !a->go.streams || (a->ranks > 1 && !strstr(a->out, "%r"))) {
		fprintf(stderr, "tracegen: need -o PATH (with %%r when --ranks > 1), devices and "
				"streams >= 1\n");
		return 2;
	}
	return -1;
}

/* Writes rank r's file: 0, or 1 after saying why not. */
static int write_rank(struct args *a, uint32_t r)
{
	char path[4096];
	struct gpt_writer *w;
	struct gen_stats st;
	int ret;

	if (expand(a->out, r, path, sizeof(path))) {
		fprintf(stderr, "tracegen: path too long\n");
		return 1;
	}
	a->go.rank = r;
	a->no.rank = r;
	a->no.world_size = (uint32_t)a->ranks;
	a->no.steps = a->go.steps;
	a->no.slow_factor = a->go.slowdown > 0 ? a->go.slowdown : 1.3; /* unset: 0 */
	ret = gpt_writer_open(path, &a->wo, &w);
	if (ret) {
		fprintf(stderr, "tracegen: %s: %s\n", path, gp_err_str(ret));
		return 1;
	}
	ret = a->nccl ? gen_nccl_write(w, &a->no, &st) : gen_write(w, &a->go, &st);
	if (!ret && a->no_close) {
		ret = gpt_writer_flush(w);
		gpt_writer_abandon(w);
	} else if (ret) {
		fprintf(stderr, "tracegen: %s\n", gpt_writer_last_error(w));
		gpt_writer_abandon(w);
	} else {
		ret = gpt_writer_close(w);
	}
	if (ret) {
		fprintf(stderr, "tracegen: %s: %s\n", path, gp_err_str(ret));
		return 1;
	}
	printf("%s: %" PRIu64 " events\n", path, st.events);
	return 0;
}

int main(int argc, char **argv)
{
	struct args a = {.wo = {.level = -1}, .ranks = 1};
	int ret;

	gen_opts_default(&a.go);
	gen_nccl_opts_default(&a.no);
	ret = parse_args(argc, argv, &a);
	if (ret >= 0) {
		return ret;
	}
	a.go.world_size = (uint32_t)a.ranks;
	for (uint32_t r = 0; r < a.ranks; r++) {
		if (write_rank(&a, r)) {
			return 1;
		}
	}
	return 0;
}
