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
	      "  --sync-wake-ns N  the step's closing sync returns N ns after the GPU is done (2000)\n"
	      "  --item-sync       a host sync halfway through each step (like loss.item())\n"
	      "  --all-kinds       also write every other record kind\n"
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
	      "  --nccl-names      with --nccl: no NCCL records, kernels known by name only\n",
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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"seed", 1, 0, 's'},        {"steps", 1, 0, 'S'},     {"kernels", 1, 0, 'k'},
		{"copies", 1, 0, 'c'},      {"streams", 1, 0, 't'},   {"devices", 1, 0, 'd'},
		{"nvtx-depth", 1, 0, 'n'},  {"ranks", 1, 0, 'r'},     {"gap-ns", 1, 0, 'g'},
		{"all-kinds", 0, 0, 'a'},   {"level", 1, 0, 'l'},     {"chunk-records", 1, 0, 'C'},
		{"no-close", 0, 0, 'N'},    {"sync-wake-ns", 1, 0, 'W'}, {"item-sync", 0, 0, 'I'},    {"help", 0, 0, 'h'},
		{"same-kernels", 0, 0, 'K'}, {"step-jitter", 1, 0, 'J'}, {"run-jitter", 1, 0, 'R'},
		{"slowdown", 1, 0, 'D'},    {"slow-kernel", 1, 0, 'X'},
		{"nccl", 0, 0, 1000},       {"straggler", 1, 0, 1001},  {"nccl-late", 1, 0, 1002},
		{"nccl-fill", 1, 0, 1003},  {"nccl-names", 0, 0, 1004}, {"compact", 1, 0, 1005},
		{0, 0, 0, 0},
	};
	struct gen_nccl_opts no;
	bool nccl = false;
	struct gen_opts go;
	struct gpt_writer_opts wo = {.level = -1};
	const char *out = NULL;
	uint64_t ranks = 1, v;
	bool no_close = false;
	int c;

	gen_opts_default(&go);
	gen_nccl_opts_default(&no);
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (c == 'o') {
			out = optarg;
			continue;
		}
		if (c == 1000 || c == 1004) {
			nccl = true;
			no.names_only |= c == 1004;
			continue;
		}
		if (c >= 1001 && c <= 1003) {
			if (!parse_u64(optarg, &v) || v > UINT32_MAX * 1000ull) {
				fprintf(stderr, "tracegen: bad value '%s'\n", optarg);
				return 2;
			}
			if (c == 1001) {
				no.straggler = (int64_t)v;
			} else if (c == 1002) {
				no.late_ns = v;
			} else {
				no.fill = (uint32_t)v;
			}
			continue;
		}
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == 'a') {
			go.all_kinds = true;
			continue;
		}
		if (c == 'I') {
			go.item_sync = true;
			continue;
		}
		if (c == 'N') {
			no_close = true;
			continue;
		}
		if (c == 'K') {
			go.same_kernels = true;
			continue;
		}
		if (c == 'J' || c == 'R' || c == 'D' || c == 'X') {
			char *eq = c == 'X' ? strrchr(optarg, '=') : NULL, *end;
			const char *num = c == 'X' ? (eq ? eq + 1 : "") : optarg;
			double f;
			errno = 0;
			f = strtod(num, &end);
			if (errno || end == num || *end || !(f >= 0) || f > 1000 ||
			    (c == 'X' && (!eq || eq == optarg))) {
				fprintf(stderr, "tracegen: bad value '%s'\n", optarg);
				return 2;
			}
			if (c == 'J') {
				go.step_jitter = f;
			} else if (c == 'R') {
				go.run_jitter = f;
			} else if (c == 'D') {
				go.slowdown = f;
			} else {
				*eq = '\0';
				go.slow_regex = optarg;
				go.slow_factor = f;
			}
			continue;
		}
		if (c == '?' || !parse_u64(optarg, &v) || (c != 's' && c != 'g' && c != 'W' && v > UINT32_MAX)) {
			fprintf(stderr, "tracegen: bad option or value\n");
			usage(stderr);
			return 2;
		}
		switch (c) {
		case 's': go.seed = v; break;
		case 'S': go.steps = (uint32_t)v; break;
		case 'k': go.kernels_per_step = (uint32_t)v; break;
		case 'c': go.copies_per_step = (uint32_t)v; break;
		case 't': go.streams = (uint32_t)v; break;
		case 'd': go.devices = (uint32_t)v; break;
		case 'n': go.nvtx_depth = (uint32_t)v; break;
		case 'r': ranks = v; break;
		case 'g': go.gap_ns = v; break;
		case 'W': go.sync_wake_ns = v; break;
		case 'l': wo.level = (int)v; break;
		case 'C': wo.chunk_records = (uint32_t)v; break;
		case 1005: wo.compact = true; wo.pack_bytes = (uint32_t)v; break;
		}
	}
	if (!out || optind != argc || !ranks || ranks > 4096 || !go.devices || !go.streams ||
	    (ranks > 1 && !strstr(out, "%r"))) {
		fprintf(stderr, "tracegen: need -o PATH (with %%r when --ranks > 1), devices and "
				"streams >= 1\n");
		return 2;
	}
	go.world_size = (uint32_t)ranks;
	for (uint32_t r = 0; r < ranks; r++) {
		char path[4096];
		struct gpt_writer *w;
		struct gen_stats st;
		int ret;

		if (expand(out, r, path, sizeof(path))) {
			fprintf(stderr, "tracegen: path too long\n");
			return 1;
		}
		go.rank = r;
		no.rank = r;
		no.world_size = (uint32_t)ranks;
		no.steps = go.steps;
		ret = gpt_writer_open(path, &wo, &w);
		if (ret) {
			fprintf(stderr, "tracegen: %s: %s\n", path, gp_err_str(ret));
			return 1;
		}
		ret = nccl ? gen_nccl_write(w, &no, &st) : gen_write(w, &go, &st);
		if (!ret && no_close) {
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
	}
	return 0;
}
