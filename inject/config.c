/* SPDX-License-Identifier: MIT */
/*
 * config.c - the GPUPROF_* settings, output name patterns and the rank a
 * launcher gave this process. Cold paths only; nothing here allocates, so
 * the same code serves the fork child handler.
 */
#include "base/compat.h"
#include "inject/inject.h"

#include <signal.h>

static const struct {
	const char *name;
	uint32_t bits;
} kind_words[] = {
	{"all", GPI_K_ALL},
	{"kernel", GPI_K_KERNEL},
	{"memcpy", GPI_K_MEMCPY},
	{"memset", GPI_K_MEMSET},
	{"runtime", GPI_K_RUNTIME},
	{"driver", GPI_K_DRIVER},
	{"api", GPI_K_RUNTIME | GPI_K_DRIVER},
	{"sync", GPI_K_SYNC},
	{"overhead", GPI_K_OVERHEAD},
	{"extcorr", GPI_K_EXTCORR},
	{"nvtx", GPI_K_NVTX},
	{"memory", GPI_K_MEMORY},
	{"gemm", GPI_K_GEMM},
	{"cuda", GPI_K_ALL & ~GPI_K_NVTX},
	{"none", 0},
};

int gpi_parse_kinds(const char *s, uint32_t *out)
{
	uint32_t bits = 0;
	bool first = true;

	while (*s) {
		char word[32];
		size_t n = strcspn(s, ", ");
		bool minus = false;

		if (n == 0) {
			s++;
			continue;
		}
		if (*s == '-' || *s == '+') {
			minus = *s == '-';
			s++;
			n--;
			if (first && minus) {
				bits = GPI_K_ALL; /* "-driver" alone means all but the driver */
			}
		}
		if (n >= sizeof(word)) {
			return -1;
		}
		memcpy(word, s, n);
		word[n] = '\0';
		size_t i;
		for (i = 0; i < GP_ARRAY_SIZE(kind_words); i++) {
			if (!strcmp(word, kind_words[i].name)) {
				break;
			}
		}
		if (i == GP_ARRAY_SIZE(kind_words)) {
			return -1;
		}
		if (minus) {
			bits &= ~kind_words[i].bits;
		} else {
			bits |= kind_words[i].bits;
		}
		first = false;
		s += n;
	}
	*out = bits;
	return 0;
}

/* Seconds ("2", "1.5", "1.5s", "300ms") to ns; -1 on junk. */
static int parse_duration(const char *s, size_t len, uint64_t *ns)
{
	double v = 0, frac = 0.1;
	bool dot = false, any = false;
	size_t i = 0;

	for (; i < len; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9') {
			if (dot) {
				v += (c - '0') * frac;
				frac /= 10;
			} else {
				v = v * 10 + (c - '0');
			}
			any = true;
		} else if (c == '.' && !dot) {
			dot = true;
		} else {
			break;
		}
	}
	if (!any) {
		return -1;
	}
	double mult = 1e9;
	if (i < len) {
		if (len - i == 2 && !strncmp(s + i, "ms", 2)) {
			mult = 1e6;
		} else if (len - i == 1 && s[i] == 's') {
			mult = 1e9;
		} else {
			return -1;
		}
	}
	if (v * mult > 1e18) {
		return -1;
	}
	*ns = (uint64_t)(v * mult + 0.5);
	return 0;
}

int gpi_parse_capture(const char *s, struct gpi_config *c)
{
	c->capture = GPI_CAPTURE_ALL;
	c->capture_nvtx[0] = c->capture_nvtx_domain[0] = '\0';
	c->delay_ns = c->duration_ns = 0;
	while (*s) {
		size_t n = strcspn(s, ",");
		if (n == 0) {
			s++;
			continue;
		}
		if ((n == 3 && !strncmp(s, "all", 3)) || (n == 5 && !strncmp(s, "whole", 5))) {
			c->capture = GPI_CAPTURE_ALL;
		} else if ((n == 15 && !strncmp(s, "cudaProfilerApi", 15)) ||
			   (n == 12 && !strncmp(s, "profiler-api", 12)) ||
			   (n == 17 && !strncmp(s, "cuda-profiler-api", 17))) {
			c->capture = GPI_CAPTURE_PROFILER_API;
		} else if (n > 5 && !strncmp(s, "nvtx:", 5)) {
			const char *name = s + 5, *at = memchr(name, '@', n - 5);
			size_t nlen = at ? (size_t)(at - name) : n - 5;
			if (!nlen || nlen >= sizeof(c->capture_nvtx)) {
				return -1;
			}
			memcpy(c->capture_nvtx, name, nlen);
			c->capture_nvtx[nlen] = '\0';
			if (at) {
				size_t dlen = n - 5 - nlen - 1;
				if (dlen >= sizeof(c->capture_nvtx_domain)) {
					return -1;
				}
				memcpy(c->capture_nvtx_domain, at + 1, dlen);
				c->capture_nvtx_domain[dlen] = '\0';
			}
			c->capture = GPI_CAPTURE_NVTX;
		} else if (n > 6 && !strncmp(s, "delay:", 6)) {
			if (parse_duration(s + 6, n - 6, &c->delay_ns)) {
				return -1;
			}
		} else if (n > 9 && !strncmp(s, "duration:", 9)) {
			if (parse_duration(s + 9, n - 9, &c->duration_ns) || !c->duration_ns) {
				return -1;
			}
		} else {
			return -1;
		}
		s += n;
	}
	return 0;
}

static bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-') {
		return false;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max) {
		return false;
	}
	*out = v;
	return true;
}

static void add_err(char *errbuf, size_t errlen, const char *var, const char *val)
{
	size_t n = strlen(errbuf);

	if (n + 1 < errlen) {
		gpi_fmt(errbuf + n, errlen - n, "%sbad %s=\"%s\" (default used)", n ? "; " : "", var,
			val);
	}
}

static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size) {
		n = size - 1;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static const char *const flight_trig_words[GPI_FLIGHT__COUNT] = {
	"slow-step", "signal", "cuda-error", "crash", "exit", "rank", "nccl-error",
};

/* "slow-step,signal", "all", "-rank", "+exit": like the kinds list. -1 on a bad word. */
int gpi_parse_flight_triggers(const char *s, uint32_t *out)
{
	uint32_t bits = GPI_FLIGHT_DEFAULT_TRIGGERS;
	bool first = true;

	while (*s) {
		size_t n = strcspn(s, ", ");
		char sign = 0;
		if (!n) {
			s++;
			continue;
		}
		if (*s == '-' || *s == '+') {
			sign = *s++;
			n--;
		} else if (first) {
			bits = 0; /* a plain list names every trigger wanted */
		}
		first = false;
		uint32_t b = 0;
		if (n == 3 && !strncmp(s, "all", 3)) {
			b = (1u << GPI_FLIGHT__COUNT) - 1;
		}
		for (unsigned i = 0; i < GPI_FLIGHT__COUNT && !b; i++) {
			if (strlen(flight_trig_words[i]) == n && !strncmp(s, flight_trig_words[i], n)) {
				b = 1u << i;
			}
		}
		if (!b) {
			return -1;
		}
		bits = sign == '-' ? bits & ~b : bits | b;
		s += n;
	}
	*out = bits;
	return 0;
}

static int parse_signal(const char *v)
{
	static const struct {
		const char *name;
		int sig;
	} names[] = {{"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"SIGUSR1", SIGUSR1},
		     {"SIGUSR2", SIGUSR2}, {"none", 0},	     {"0", 0}};
	uint64_t u;

	for (size_t i = 0; i < GP_ARRAY_SIZE(names); i++) {
		if (!strcmp(v, names[i].name)) {
			return names[i].sig;
		}
	}
	if (parse_u64(v, SIGRTMIN, SIGRTMAX, &u)) {
		return (int)u;
	}
	return -1;
}

/* A decimal setting in [min, max]: true with *out set; false when unset or bad (said). */
static bool env_decimal(gpi_getenv_fn env, const char *var, double min, double max, double *out,
			char *errbuf, size_t errlen)
{
	const char *v = env(var);
	char *end;

	if (!v || !*v) {
		return false;
	}
	errno = 0;
	*out = strtod(v, &end);
	if (errno || *end || !(*out >= min && *out <= max)) {
		add_err(errbuf, errlen, var, v);
		return false;
	}
	return true;
}

/* A duration setting; false (and said) when bad. */
static bool env_duration(gpi_getenv_fn env, const char *var, uint64_t *ns, char *errbuf,
			 size_t errlen)
{
	const char *v = env(var);

	if (!v || !*v) {
		return true;
	}
	if (parse_duration(v, strlen(v), ns)) {
		add_err(errbuf, errlen, var, v);
		return false;
	}
	return true;
}

/* GPUPROF_FLIGHT and its companions (docs/flight-recorder.md). */
static void flight_config_load(struct gpi_config *c, gpi_getenv_fn env, char *errbuf,
			       size_t errlen)
{
	const char *v;
	uint64_t u;
	double d;

	c->flight_bytes = 256ull << 20;
	c->flight_cooldown_ns = 60ull * 1000000000;
	c->flight_slow_k = 3.0;
	c->flight_steps = 50;
	c->flight_triggers = GPI_FLIGHT_DEFAULT_TRIGGERS;
	c->flight_signal = SIGUSR2;
	if ((v = env("GPUPROF_FLIGHT")) && *v && strcmp(v, "0") && strcmp(v, "off")) {
		c->flight_window_ns = 60ull * 1000000000;
		if (strcmp(v, "on") && (parse_duration(v, strlen(v), &u) || !u)) {
			add_err(errbuf, errlen, "GPUPROF_FLIGHT", v);
		} else if (strcmp(v, "on")) {
			c->flight_window_ns = u;
		}
	}
	if (env_decimal(env, "GPUPROF_FLIGHT_MB", 0.0625, 1048576, &d, errbuf, errlen)) {
		c->flight_bytes = (uint64_t)(d * 1048576.0);
	}
	env_duration(env, "GPUPROF_FLIGHT_AFTER", &c->flight_after_ns, errbuf, errlen);
	env_duration(env, "GPUPROF_FLIGHT_COOLDOWN", &c->flight_cooldown_ns, errbuf, errlen);
	if (env_decimal(env, "GPUPROF_FLIGHT_SLOW", 1.05, 1000, &d, errbuf, errlen)) {
		c->flight_slow_k = d;
	}
	if ((v = env("GPUPROF_FLIGHT_STEPS")) && *v) {
		if (parse_u64(v, 3, 1024, &u)) {
			c->flight_steps = (uint32_t)u;
		} else {
			add_err(errbuf, errlen, "GPUPROF_FLIGHT_STEPS", v);
		}
	}
	if ((v = env("GPUPROF_FLIGHT_ON")) && *v &&
	    gpi_parse_flight_triggers(v, &c->flight_triggers)) {
		c->flight_triggers = GPI_FLIGHT_DEFAULT_TRIGGERS;
		add_err(errbuf, errlen, "GPUPROF_FLIGHT_ON", v);
	}
	if ((v = env("GPUPROF_FLIGHT_SIGNAL")) && *v) {
		int sig = parse_signal(v);
		if (sig < 0) {
			add_err(errbuf, errlen, "GPUPROF_FLIGHT_SIGNAL", v);
		} else {
			c->flight_signal = sig;
		}
	}
	if ((v = env("GPUPROF_FLIGHT_STEP")) && *v) {
		copy_str(c->flight_step, sizeof(c->flight_step), v);
	}
	if ((v = env("GPUPROF_FLIGHT_DIR")) && *v) {
		copy_str(c->flight_dir, sizeof(c->flight_dir), v);
	}
}

void gpi_config_load(struct gpi_config *c, gpi_getenv_fn env, char *errbuf, size_t errlen)
{
	const char *v;
	uint64_t u;
	double d;

	memset(c, 0, sizeof(*c));
	if (errlen) {
		errbuf[0] = '\0';
	}
	copy_str(c->output, sizeof(c->output), GPI_DEFAULT_PATTERN);
	c->kinds = GPI_K_ALL;
	c->flush_ms = GPI_DEFAULT_FLUSH_MS;
	c->buffer_bytes = (uint64_t)GPI_DEFAULT_BUFFER_MB << 20;
	c->exit_timeout_ms = 5000;

	if ((v = env("GPUPROF_OUTPUT")) && *v) {
		if (strlen(v) < sizeof(c->output)) {
			copy_str(c->output, sizeof(c->output), v);
		} else {
			add_err(errbuf, errlen, "GPUPROF_OUTPUT", "(too long)");
		}
	}
	if ((v = env("GPUPROF_KINDS")) && *v && gpi_parse_kinds(v, &c->kinds)) {
		c->kinds = GPI_K_ALL;
		add_err(errbuf, errlen, "GPUPROF_KINDS", v);
	}
	if ((v = env("GPUPROF_FLUSH_MS")) && *v) {
		if (parse_u64(v, 1, 3600000, &u)) {
			c->flush_ms = (uint32_t)u;
		} else {
			add_err(errbuf, errlen, "GPUPROF_FLUSH_MS", v);
		}
	}
	/* Decimal megabytes: "0.25" is allowed, for tests that want a tiny pool. */
	if (env_decimal(env, "GPUPROF_BUFFER_MB", 0.0625, 1048576, &d, errbuf, errlen)) {
		c->buffer_bytes = (uint64_t)(d * 1048576.0);
	}
	if ((v = env("GPUPROF_FORK")) && *v) {
		if (!strcmp(v, "child") || !strcmp(v, "on")) {
			c->fork_mode = GPI_FORK_CHILD;
		} else if (!strcmp(v, "off") || !strcmp(v, "none")) {
			c->fork_mode = GPI_FORK_OFF;
		} else {
			add_err(errbuf, errlen, "GPUPROF_FORK", v);
		}
	}
	if ((v = env("GPUPROF_CAPTURE")) && *v && gpi_parse_capture(v, c)) {
		gpi_parse_capture("all", c);
		add_err(errbuf, errlen, "GPUPROF_CAPTURE", v);
	}
	if ((v = env("GPUPROF_EXIT_TIMEOUT_MS")) && *v) {
		if (parse_u64(v, 0, 600000, &u)) {
			c->exit_timeout_ms = (uint32_t)u;
		} else {
			add_err(errbuf, errlen, "GPUPROF_EXIT_TIMEOUT_MS", v);
		}
	}
	if ((v = env("GPUPROF_NVTX_CLOCK")) && *v) {
		if (!strcmp(v, "tsc")) {
			c->clock = GPI_CLOCK_TSC;
		} else if (!strcmp(v, "monotonic")) {
			c->clock = GPI_CLOCK_MONOTONIC;
		} else if (strcmp(v, "auto")) {
			add_err(errbuf, errlen, "GPUPROF_NVTX_CLOCK", v);
		}
	}
	if ((v = env("GPUPROF_DEBUG")) && *v && strcmp(v, "0")) {
		c->debug = true;
	}
	if ((v = env("GPUPROF_QUIET")) && *v && strcmp(v, "0")) {
		c->quiet = true;
	}
	if ((v = env("GPUPROF_CUPTI_PATH")) && *v) {
		copy_str(c->cupti_path, sizeof(c->cupti_path), v);
	}
	if ((v = env("GPUPROF_MANIFEST")) && *v) {
		copy_str(c->manifest, sizeof(c->manifest), v);
	}
	if ((v = env("GPUPROF_BACKTRACE")) && *v) {
		if (parse_u64(v, 0, GPI_BT_MAX_DEPTH, &u)) {
			c->backtrace = (uint32_t)u;
		} else {
			add_err(errbuf, errlen, "GPUPROF_BACKTRACE", v);
		}
	}
	if ((v = env("GPUPROF_BACKTRACE_METHOD")) && *v) {
		if (!strcmp(v, "fp")) {
			c->backtrace_method = GPI_BT_FP;
		} else if (!strcmp(v, "unwind")) {
			c->backtrace_method = GPI_BT_UNWIND;
		} else if (strcmp(v, "auto")) {
			add_err(errbuf, errlen, "GPUPROF_BACKTRACE_METHOD", v);
		}
	}
	flight_config_load(c, env, errbuf, errlen);
}

void gpi_config_describe(const struct gpi_config *c, char *buf, size_t size)
{
	char kinds[160] = "";
	size_t kn = 0;
	char cap[300];

	if (c->kinds == GPI_K_ALL) {
		gpi_fmt(kinds, sizeof(kinds), "all");
	} else {
		for (size_t i = 1; i < GP_ARRAY_SIZE(kind_words); i++) {
			uint32_t b = kind_words[i].bits;
			/* single-bit words only */
			if (b && !(b & (b - 1)) && (c->kinds & b)) {
				kn += gpi_fmt(kinds + kn, sizeof(kinds) - kn, "%s%s", kn ? "," : "",
					      kind_words[i].name);
			}
		}
		if (!kn) {
			gpi_fmt(kinds, sizeof(kinds), "none");
		}
	}
	switch (c->capture) {
	case GPI_CAPTURE_PROFILER_API:
		gpi_fmt(cap, sizeof(cap), "cudaProfilerApi");
		break;
	case GPI_CAPTURE_NVTX:
		gpi_fmt(cap, sizeof(cap), "nvtx:%s%s%s", c->capture_nvtx,
			c->capture_nvtx_domain[0] ? "@" : "", c->capture_nvtx_domain);
		break;
	default:
		gpi_fmt(cap, sizeof(cap), "all");
		break;
	}
	size_t n = gpi_fmt(
		buf, size, "output=%s kinds=%s flush_ms=%u buffer_kb=%llu fork=%s capture=%s",
		c->output, kinds, c->flush_ms, (unsigned long long)(c->buffer_bytes >> 10),
		c->fork_mode == GPI_FORK_OFF ? "off" : "child", cap);
	if (c->delay_ns) {
		n += gpi_fmt(buf + n, size - n, " delay_ms=%llu",
			     (unsigned long long)(c->delay_ns / 1000000));
	}
	if (c->duration_ns) {
		n += gpi_fmt(buf + n, size - n, " duration_ms=%llu",
			     (unsigned long long)(c->duration_ns / 1000000));
	}
	if (c->backtrace) {
		static const char *const m[] = {"auto", "fp", "unwind"};
		n += gpi_fmt(buf + n, size - n, " backtrace=%u backtrace_method=%s", c->backtrace,
			     m[c->backtrace_method % 3]);
	}
	if (c->flight_window_ns) {
		n += gpi_fmt(buf + n, size - n,
			     " flight_ms=%llu flight_kb=%llu flight_after_ms=%llu "
			     "flight_cooldown_ms=%llu flight_slow_pct=%u flight_steps=%u "
			     "flight_on=",
			     (unsigned long long)(c->flight_window_ns / 1000000),
			     (unsigned long long)(c->flight_bytes >> 10),
			     (unsigned long long)(c->flight_after_ns / 1000000),
			     (unsigned long long)(c->flight_cooldown_ns / 1000000),
			     (unsigned)(c->flight_slow_k * 100 + 0.5), c->flight_steps);
		bool any = false;
		for (unsigned i = 0; i < GPI_FLIGHT__COUNT; i++) {
			if (c->flight_triggers & (1u << i)) {
				n += gpi_fmt(buf + n, size - n, "%s%s", any ? "," : "",
					     flight_trig_words[i]);
				any = true;
			}
		}
		n += gpi_fmt(buf + n, size - n, " flight_signal=%d", c->flight_signal);
	}
}

/* ------------------------------------------------------------ ranks */

static int env_int(gpi_getenv_fn env, const char *name)
{
	const char *v = env(name);
	char *end;
	long x;

	if (!v || !*v) {
		return -1;
	}
	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || *end || x < 0 || x > INT_MAX) {
		return -1;
	}
	return (int)x;
}

void gpi_detect_rank(gpi_getenv_fn env, struct gpi_rank *r)
{
	static const struct {
		const char *launcher, *rank, *local_rank, *world, *local_world;
	} L[] = {
		/* torchrun / torch.distributed.launch */
		{"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE"},
		/* Open MPI */
		{"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
		 "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE"},
		/* MPICH / Intel MPI (Hydra) */
		{"mpich", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE", "MPI_LOCALNRANKS"},
		/* PMIx launchers (mpirun with PMIx, srun --mpi=pmix) */
		{"pmix", "PMIX_RANK", "PMIX_LOCAL_RANK", "PMIX_SIZE", "PMIX_LOCAL_SIZE"},
		/* Slurm */
		{"slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS", "SLURM_NTASKS_PER_NODE"},
	};

	r->rank = r->local_rank = r->world_size = r->local_world_size = -1;
	r->launcher = "none";
	for (size_t i = 0; i < GP_ARRAY_SIZE(L); i++) {
		int rank = env_int(env, L[i].rank);
		if (rank < 0) {
			continue;
		}
		r->rank = rank;
		r->local_rank = env_int(env, L[i].local_rank);
		r->world_size = env_int(env, L[i].world);
		r->local_world_size = env_int(env, L[i].local_world);
		r->launcher = L[i].launcher;
		return;
	}
}

/* ------------------------------------------------------------ names */

static bool put(char *out, size_t size, size_t *pos, const char *s, size_t n)
{
	if (*pos + n >= size) {
		return false;
	}
	memcpy(out + *pos, s, n);
	*pos += n;
	return true;
}

int gpi_expand_pattern(const char *p, unsigned pid, const char *host, int rank, gpi_getenv_fn env,
		       char *out, size_t size)
{
	size_t pos = 0;
	char num[24];

	if (!size) {
		return -1;
	}
	while (*p) {
		bool ok = true;
		if (*p != '%') {
			ok = put(out, size, &pos, p, 1);
			p++;
		} else {
			switch (p[1]) {
			case 'p':
				ok = put(out, size, &pos, num,
					 gpi_fmt(num, sizeof(num), "%u", pid));
				p += 2;
				break;
			case 'h':
				ok = put(out, size, &pos, host, strlen(host));
				p += 2;
				break;
			case 'r':
				ok = put(out, size, &pos, num,
					 gpi_fmt(num, sizeof(num), "%d", rank < 0 ? 0 : rank));
				p += 2;
				break;
			case '%':
				ok = put(out, size, &pos, "%", 1);
				p += 2;
				break;
			case 'q': {
				const char *close;
				char var[128];
				if (p[2] != '{' || !(close = strchr(p + 3, '}')) ||
				    (size_t)(close - p - 3) >= sizeof(var) || close == p + 3) {
					out[0] = '\0';
					return -1;
				}
				memcpy(var, p + 3, (size_t)(close - p - 3));
				var[close - p - 3] = '\0';
				const char *val = env(var);
				if (val) {
					ok = put(out, size, &pos, val, strlen(val));
				}
				p = close + 1;
				break;
			}
			default:
				out[0] = '\0';
				return -1;
			}
		}
		if (!ok) {
			out[0] = '\0';
			return -1;
		}
	}
	out[pos] = '\0';
	return 0;
}

int gpi_path_add_suffix(char *path, size_t size, const char *suffix)
{
	size_t len = strlen(path), slen = strlen(suffix);
	bool gpz = len >= 4 && !strcmp(path + len - 4, ".gpz");
	size_t at = gpz ? len - 4 : len;

	if (len + slen + 2 > size) {
		return -1;
	}
	memmove(path + at + 1 + slen, path + at, len - at + 1);
	path[at] = '.';
	memcpy(path + at + 1, suffix, slen);
	return 0;
}
