/* SPDX-License-Identifier: MIT */
/*
 * gpuprof diff - did the candidate runs get slower than the baseline runs,
 * beyond noise? Per-metric Mann-Whitney U tests, bootstrap intervals and a
 * noise floor (docs/diff.md); text, Markdown, JSON and JUnit outputs; exit 3
 * when a gated metric regressed.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/diff.h"
#include "cli/cli.h"
#include "report/report.h"

#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

const char cmd_diff_help[] =
	"usage: gpuprof diff [OPTIONS] BASELINE... -- CANDIDATE...\n"
	"\n"
	"Compares two sets of runs metric by metric and says which regressed beyond\n"
	"noise. A run is one trace or a directory of rank traces (.gpz, Kineto JSON,\n"
	"nsys SQLite). Metrics, per step: step.wall, gpu.busy, idle.total and\n"
	"idle.<cause>, kernel.<family> (names normalized so a recompiled kernel\n"
	"matches itself), copy.time, copy.bytes, comm.time, comm.exposed,\n"
	"and mfu with --flops-per-step and --peak-tflops. Each gets a two-sided\n"
	"Mann-Whitney U test (p adjusted across metrics), a bootstrap interval of\n"
	"the change of medians and a verdict: regressed, improved, unchanged or\n"
	"inconclusive (with the runs still needed). See docs/diff.md.\n"
	"\n"
	"options:\n"
	"      --junit FILE          write JUnit XML (one test case per gated metric)\n"
	"      --markdown FILE       write Markdown for a CI step summary or comment\n"
	"      --json FILE           write the full result as JSON\n"
	"      --markdown-max BYTES  cap the Markdown output (1000000)\n"
	"      --fail-on LIST        comma-separated metric patterns that gate the exit\n"
	"                            status (step.wall); 'all' for every metric\n"
	"      --min-effect PCT      smallest relevant change, in percent (2)\n"
	"      --threshold PAT=PCT   minimum effect for metrics matching PAT (repeatable)\n"
	"      --alpha A             significance level (0.05)\n"
	"      --correction NAME     bh (Benjamini-Hochberg, default), holm, none\n"
	"      --resamples N         bootstrap resamples (10000)\n"
	"      --seed N              bootstrap seed (1): same seed, same intervals\n"
	"      --min-samples N       fewer samples per side is inconclusive (4)\n"
	"      --skip-steps N        drop the first N steps of every process (warm-up)\n"
	"      --step REGEX          NVTX ranges that are steps (default: ProfilerStep#N,\n"
	"                            else names like step/iteration)\n"
	"      --rules FILE          more kernel-name normalization rules\n"
	"      --flops-per-step F    model FLOPs per step (whole job), for mfu\n"
	"      --peak-tflops T       peak dense TFLOP/s of one GPU, for mfu\n"
	"      --config FILE         thresholds and options from a file (docs/diff.md);\n"
	"                            command-line options override it\n"
	"  -q, --quiet               no table on standard output\n"
	"  -h, --help                this text\n"
	"\n"
	"Exit status: 0 no gated regression, 3 a gated metric regressed, 1 error,\n"
	"2 usage.\n";

struct diff_cfg {
	struct gpa_diff_opts a;
	GP_VEC(struct gpa_diff_threshold) thr;
	GP_VEC(char *) fail_on;
	GP_VEC(char *) owned;   /* strings the options point into */
	struct gpa_kname_rules *rules;
	const char *junit, *markdown, *json;
	size_t markdown_max;
	double peak_tflops;
	bool quiet;
};

static void cfg_release(struct diff_cfg *c)
{
	for (size_t i = 0; i < c->owned.n; i++) {
		free(c->owned.v[i]);
	}
	gp_vec_free(&c->owned);
	gp_vec_free(&c->thr);
	gp_vec_free(&c->fail_on);
	gpa_kname_rules_free(c->rules);
}

static char *own(struct diff_cfg *c, const char *s, size_t n)
{
	char *d = strndup(s, n);

	if (d && gp_vec_push(&c->owned, d)) {
		free(d);
		d = NULL;
	}
	return d;
}

/* "2", "2%", "0.5%" -> 0.02, 0.005; false when malformed or negative. */
static bool parse_pct(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || (*end && strcmp(end, "%")) || !isfinite(v) || v < 0 || v >= 1e6) {
		return false;
	}
	*out = v / 100;
	return true;
}

static bool parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi) {
		return false;
	}
	*out = v;
	return true;
}

static bool parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9') {
		return false;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max) {
		return false;
	}
	*out = v;
	return true;
}

/* Replaces the gating list with the comma-separated patterns of s. */
static int set_fail_on(struct diff_cfg *c, const char *s, const char *sep)
{
	c->fail_on.n = 0;
	while (*s) {
		size_t n = strcspn(s, sep);
		if (n) {
			char *p = n == 3 && !strncmp(s, "all", 3) ? own(c, "*", 1) : own(c, s, n);
			if (!p || gp_vec_push(&c->fail_on, p)) {
				return -GP_ERR_NOMEM;
			}
		}
		s += n;
		s += strspn(s, sep);
	}
	return 0;
}

static int add_threshold(struct diff_cfg *c, const char *pat, size_t n, double e)
{
	struct gpa_diff_threshold t = {.pattern = own(c, pat, n), .min_effect = e};

	if (!t.pattern || gp_vec_push(&c->thr, t)) {
		return -GP_ERR_NOMEM;
	}
	return 0;
}

/* "rule /REGEX/ REPLACEMENT": the first character after "rule " delimits the regex. */
static int add_rule(struct diff_cfg *c, const char *arg, char *err, size_t errlen)
{
	char delim = arg[0];
	const char *close;
	char *re;
	int ret;

	if (!delim || delim == ' ' || !(close = strchr(arg + 1, delim))) {
		snprintf(err, errlen, "a rule is /REGEX/ REPLACEMENT");
		return -GP_ERR_FORMAT;
	}
	re = strndup(arg + 1, (size_t)(close - arg - 1));
	if (!re) {
		return -GP_ERR_NOMEM;
	}
	const char *repl = close + 1;
	repl += strspn(repl, " \t");
	if (!c->rules && (ret = gpa_kname_rules_new(true, &c->rules))) {
		free(re);
		return ret;
	}
	ret = gpa_kname_rules_add(c->rules, re, repl, err, errlen);
	free(re);
	return ret == -GP_ERR_API ? -GP_ERR_FORMAT : ret;
}

/* One "key value" setting (from a file or an option); the reason in err. */
static int setting(struct diff_cfg *c, const char *key, const char *val, bool rules_only,
		   char *err, size_t errlen)
{
	uint64_t u;
	double d;

	if (!strcmp(key, "rule")) {
		return add_rule(c, val, err, errlen);
	}
	if (rules_only) {
		snprintf(err, errlen, "only 'rule /REGEX/ REPLACEMENT' lines belong in a rules file");
		return -GP_ERR_FORMAT;
	}
	if (!strcmp(key, "alpha")) {
		if (!parse_num(val, 1e-9, 0.5, &c->a.alpha)) {
			goto bad;
		}
	} else if (!strcmp(key, "min-effect")) {
		if (!parse_pct(val, &c->a.min_effect)) {
			goto bad;
		}
	} else if (!strcmp(key, "threshold")) {
		/* "PATTERN PCT" in a file, "PATTERN=PCT" as an option */
		const char *sp = strrchr(val, '=');
		if (!sp) {
			sp = strrchr(val, ' ');
		}
		if (!sp || sp == val || !parse_pct(sp + 1 + strspn(sp + 1, " \t"), &d)) {
			snprintf(err, errlen, "a threshold is PATTERN PERCENT: '%s'", val);
			return -GP_ERR_FORMAT;
		}
		size_t n = (size_t)(sp - val);
		while (n && (val[n - 1] == ' ' || val[n - 1] == '\t')) {
			n--;
		}
		return add_threshold(c, val, n, d);
	} else if (!strcmp(key, "fail-on")) {
		return set_fail_on(c, val, ", \t");
	} else if (!strcmp(key, "correction")) {
		if (!strcmp(val, "bh")) {
			c->a.correction = GPA_DIFF_BH;
		} else if (!strcmp(val, "holm")) {
			c->a.correction = GPA_DIFF_HOLM;
		} else if (!strcmp(val, "none")) {
			c->a.correction = GPA_DIFF_NONE;
		} else {
			goto bad;
		}
	} else if (!strcmp(key, "resamples")) {
		if (!parse_uint(val, 10000000, &u) || u < 100) {
			goto bad;
		}
		c->a.boot.reps = (unsigned)u;
	} else if (!strcmp(key, "seed")) {
		if (!parse_uint(val, UINT64_MAX, &u)) {
			goto bad;
		}
		c->a.boot.seed = u;
	} else if (!strcmp(key, "min-samples")) {
		if (!parse_uint(val, 1000000, &u) || u < 2) {
			goto bad;
		}
		c->a.min_samples = (size_t)u;
	} else if (!strcmp(key, "skip-steps")) {
		if (!parse_uint(val, UINT32_MAX, &u)) {
			goto bad;
		}
		c->a.skip_steps = (uint32_t)u;
	} else if (!strcmp(key, "step")) {
		c->a.step_regex = own(c, val, strlen(val));
		if (!c->a.step_regex) {
			return -GP_ERR_NOMEM;
		}
	} else if (!strcmp(key, "flops-per-step")) {
		if (!parse_num(val, 0, 1e30, &c->a.flops_per_step)) {
			goto bad;
		}
	} else if (!strcmp(key, "peak-tflops")) {
		if (!parse_num(val, 0, 1e9, &c->peak_tflops)) {
			goto bad;
		}
	} else {
		snprintf(err, errlen, "unknown setting '%s'", key);
		return -GP_ERR_FORMAT;
	}
	return 0;
bad:
	snprintf(err, errlen, "bad value for %s: '%s'", key, val);
	return -GP_ERR_FORMAT;
}

/* Reads "key value" lines ('#' comments); errors name FILE:LINE. */
static int read_config(struct diff_cfg *c, const char *path, bool rules_only)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, err[512];
	size_t cap = 0;
	ssize_t got;
	unsigned lineno = 0;
	int ret = 0;

	if (!f) {
		cli_error("cannot open '%s': %s", path, strerror(errno));
		return -GP_ERR_IO;
	}
	while ((got = getline(&line, &cap, f)) >= 0) {
		size_t len = (size_t)got;
		lineno++;
		if (len > 4096) {
			cli_error("%s:%u: line too long (%zu bytes; at most 4096)", path, lineno, len);
			ret = -GP_ERR_FORMAT;
			break;
		}
		if (strlen(line) != len) {
			cli_error("%s:%u: NUL byte in a text file", path, lineno);
			ret = -GP_ERR_FORMAT;
			break;
		}
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
			       line[len - 1] == ' ' || line[len - 1] == '\t')) {
			line[--len] = '\0';
		}
		char *p = line + strspn(line, " \t");
		if (!*p || *p == '#') {
			continue;
		}
		size_t klen = strcspn(p, " \t");
		if (!p[klen]) {
			cli_error("%s:%u: '%s' needs a value", path, lineno, p);
			ret = -GP_ERR_FORMAT;
			break;
		}
		p[klen] = '\0';
		char *val = p + klen + 1;
		val += strspn(val, " \t");
		ret = setting(c, p, val, rules_only, err, sizeof(err));
		if (ret) {
			if (ret == -GP_ERR_NOMEM) {
				cli_error("out of memory");
			} else {
				cli_error("%s:%u: %s", path, lineno, err);
			}
			break;
		}
	}
	if (!ret && ferror(f)) {
		cli_error("cannot read '%s': %s", path, strerror(errno));
		ret = -GP_ERR_IO;
	}
	free(line);
	fclose(f);
	return ret;
}

static int write_file(const char *path, const struct gp_strbuf *sb)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	if ((sb->len && fwrite(sb->buf, 1, sb->len, f) != sb->len) | (fclose(f) != 0)) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Runs load on worker threads (one per core, at most 4), a few runs ahead
 * of the main thread, which adds them to the comparison in order and frees
 * each model at once: at most LOOKAHEAD + 1 models are alive, and the output
 * does not depend on the thread count.
 */
#define MAX_LOADERS 4

struct slot {
	struct gpa_model m;
	int state; /* 0 waiting, 1 loading, 2 loaded, 3 failed */
};

struct loader {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char **args;
	struct slot *slots;
	size_t n, next, consumed, lookahead;
	bool stop;
};

static void *load_worker(void *arg)
{
	struct loader *l = arg;

	pthread_mutex_lock(&l->mu);
	for (;;) {
		while (!l->stop && l->next < l->n && l->next >= l->consumed + l->lookahead) {
			pthread_cond_wait(&l->cv, &l->mu);
		}
		if (l->stop || l->next >= l->n) {
			break;
		}
		size_t i = l->next++;
		l->slots[i].state = 1;
		pthread_mutex_unlock(&l->mu);
		int ret = cli_load_model(&l->slots[i].m, &l->args[i], 1);
		pthread_mutex_lock(&l->mu);
		l->slots[i].state = ret ? 3 : 2;
		pthread_cond_broadcast(&l->cv);
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

static int load_runs(struct gpa_diff *d, char **args, size_t n, size_t nbase)
{
	struct loader l = {.args = args, .n = n};
	pthread_t th[MAX_LOADERS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nth = cpus < 1 ? 1 : cpus > MAX_LOADERS ? MAX_LOADERS : (size_t)cpus, started = 0;
	int status = CMD_OK;
	char err[512];

	if (nth > n) {
		nth = n;
	}
	l.lookahead = nth + 1;
	l.slots = calloc(n, sizeof(*l.slots));
	if (!l.slots || pthread_mutex_init(&l.mu, NULL)) {
		free(l.slots);
		cli_error("out of memory");
		return CMD_ERROR;
	}
	pthread_cond_init(&l.cv, NULL);
	for (; started < nth; started++) {
		if (pthread_create(&th[started], NULL, load_worker, &l)) {
			break;
		}
	}
	if (!started) {
		load_worker(&l); /* no thread: load everything here, in order */
	}
	for (size_t i = 0; i < n && status == CMD_OK; i++) {
		pthread_mutex_lock(&l.mu);
		while (l.slots[i].state < 2) {
			pthread_cond_wait(&l.cv, &l.mu);
		}
		pthread_mutex_unlock(&l.mu);
		if (l.slots[i].state == 3) {
			status = CMD_ERROR;
			break;
		}
		int ret = gpa_diff_add_run(d, i < nbase ? 0 : 1, &l.slots[i].m, args[i], err,
					   sizeof(err));
		gpa_model_release(&l.slots[i].m);
		l.slots[i].state = 4;
		if (ret) {
			cli_error("%s", err);
			status = ret == -GP_ERR_API ? CMD_USAGE : CMD_ERROR;
		}
		pthread_mutex_lock(&l.mu);
		l.consumed = i + 1;
		pthread_cond_broadcast(&l.cv);
		pthread_mutex_unlock(&l.mu);
	}
	pthread_mutex_lock(&l.mu);
	l.stop = true;
	pthread_cond_broadcast(&l.cv);
	pthread_mutex_unlock(&l.mu);
	for (size_t t = 0; t < started; t++) {
		pthread_join(th[t], NULL);
	}
	for (size_t i = 0; i < n; i++) {
		if (l.slots[i].state == 2) {
			gpa_model_release(&l.slots[i].m); /* loaded ahead of an error */
		}
	}
	pthread_cond_destroy(&l.cv);
	pthread_mutex_destroy(&l.mu);
	free(l.slots);
	return status;
}

static int run(struct diff_cfg *c, char **base, size_t nbase, char **cand, size_t ncand)
{
	struct gpa_diff *d = NULL;
	struct gpa_diff_result r = {0};
	struct gp_strbuf sb = GP_STRBUF_INIT;
	char err[512], **runs = NULL;
	int status = CMD_ERROR;

	c->a.thresholds = c->thr.v;
	c->a.nthresholds = c->thr.n;
	c->a.fail_on = (const char *const *)c->fail_on.v;
	c->a.nfail_on = c->fail_on.n;
	c->a.rules = c->rules;
	c->a.peak_flops = c->peak_tflops * 1e12;
	if ((c->a.flops_per_step > 0) != (c->peak_tflops > 0)) {
		cli_warn("mfu needs both --flops-per-step and --peak-tflops; not computed");
	}
	/*
	 * Runs load one after another; keep freed memory in the heap so the next
	 * model reuses pages already touched instead of faulting in new ones.
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	if (gpa_diff_new(&c->a, &d, err, sizeof(err))) {
		cli_error("%s", err);
		return CMD_ERROR;
	}
	runs = malloc((nbase + ncand) * sizeof(*runs));
	if (!runs) {
		cli_error("out of memory");
		status = CMD_ERROR;
		goto out;
	}
	memcpy(runs, base, nbase * sizeof(*runs));
	memcpy(runs + nbase, cand, ncand * sizeof(*runs));
	status = load_runs(d, runs, nbase + ncand, nbase);
	if (status != CMD_OK) {
		goto out;
	}
	status = CMD_ERROR;
	if (gpa_diff_compute(d, &r)) {
		cli_error("out of memory");
		goto out;
	}
	if (!c->quiet) {
		if (gpr_diff_text(&sb, &r) || !cli_write_stdout(sb.buf, sb.len)) {
			goto out;
		}
	}
	if (c->json) {
		gp_strbuf_reset(&sb);
		if (gpr_diff_json(&sb, &r) || write_file(c->json, &sb)) {
			goto out;
		}
	}
	if (c->markdown) {
		gp_strbuf_reset(&sb);
		if (gpr_diff_markdown(&sb, &r, c->markdown_max) || write_file(c->markdown, &sb)) {
			goto out;
		}
	}
	if (c->junit) {
		gp_strbuf_reset(&sb);
		if (gpr_diff_junit(&sb, &r) || write_file(c->junit, &sb)) {
			cli_error("cannot write the JUnit output");
			goto out;
		}
	}
	status = r.regressed_gated ? CMD_REGRESSION : CMD_OK;
out:
	free(runs);
	gp_strbuf_release(&sb);
	gpa_diff_result_release(&r);
	gpa_diff_free(d);
	return status;
}

enum {
	OPT_JUNIT = 256, OPT_MD, OPT_JSON, OPT_MDMAX, OPT_FAILON, OPT_MINEFF, OPT_THR, OPT_ALPHA,
	OPT_CORR, OPT_RESAMPLES, OPT_SEED, OPT_MINS, OPT_SKIP, OPT_STEP, OPT_RULES, OPT_FLOPS,
	OPT_PEAK, OPT_CONFIG,
};

static int parse(struct diff_cfg *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"junit", required_argument, NULL, OPT_JUNIT},
		{"markdown", required_argument, NULL, OPT_MD},
		{"json", required_argument, NULL, OPT_JSON},
		{"markdown-max", required_argument, NULL, OPT_MDMAX},
		{"fail-on", required_argument, NULL, OPT_FAILON},
		{"min-effect", required_argument, NULL, OPT_MINEFF},
		{"threshold", required_argument, NULL, OPT_THR},
		{"alpha", required_argument, NULL, OPT_ALPHA},
		{"correction", required_argument, NULL, OPT_CORR},
		{"resamples", required_argument, NULL, OPT_RESAMPLES},
		{"seed", required_argument, NULL, OPT_SEED},
		{"min-samples", required_argument, NULL, OPT_MINS},
		{"skip-steps", required_argument, NULL, OPT_SKIP},
		{"step", required_argument, NULL, OPT_STEP},
		{"rules", required_argument, NULL, OPT_RULES},
		{"flops-per-step", required_argument, NULL, OPT_FLOPS},
		{"peak-tflops", required_argument, NULL, OPT_PEAK},
		{"config", required_argument, NULL, OPT_CONFIG},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const char *const keys[] = {
		[OPT_FAILON - OPT_JUNIT] = "fail-on",	  [OPT_MINEFF - OPT_JUNIT] = "min-effect",
		[OPT_THR - OPT_JUNIT] = "threshold",	  [OPT_ALPHA - OPT_JUNIT] = "alpha",
		[OPT_CORR - OPT_JUNIT] = "correction",	  [OPT_RESAMPLES - OPT_JUNIT] = "resamples",
		[OPT_SEED - OPT_JUNIT] = "seed",	  [OPT_MINS - OPT_JUNIT] = "min-samples",
		[OPT_SKIP - OPT_JUNIT] = "skip-steps",	  [OPT_STEP - OPT_JUNIT] = "step",
		[OPT_FLOPS - OPT_JUNIT] = "flops-per-step", [OPT_PEAK - OPT_JUNIT] = "peak-tflops",
	};
	char err[512];
	uint64_t u;
	int opt, ret;

	/* First the config file, so that options given on the command line override it. */
	for (int pass = 0; pass < 2; pass++) {
		optind = 1;
		opterr = 0;
		while ((opt = getopt_long(argc, argv, "+qh", longopts, NULL)) != -1) {
			if (pass == 0) {
				if (opt == OPT_CONFIG && read_config(c, optarg, false)) {
					return CMD_ERROR;
				}
				continue;
			}
			switch (opt) {
			case OPT_CONFIG:
				break;
			case OPT_JUNIT:
				c->junit = optarg;
				break;
			case OPT_MD:
				c->markdown = optarg;
				break;
			case OPT_JSON:
				c->json = optarg;
				break;
			case OPT_MDMAX:
				if (!parse_uint(optarg, SIZE_MAX / 2, &u) || u < 1000) {
					return cli_usage_error(cmd_diff_help,
							       "bad --markdown-max '%s' (at "
							       "least 1000)",
							       optarg);
				}
				c->markdown_max = (size_t)u;
				break;
			case OPT_RULES:
				if (read_config(c, optarg, true)) {
					return CMD_ERROR;
				}
				break;
			case 'q':
				c->quiet = true;
				break;
			case 'h':
				fputs(cmd_diff_help, stdout);
				return -1;
			case '?':
				if (optopt) {
					return cli_usage_error(cmd_diff_help,
							       "unknown option or missing value: "
							       "'%s'",
							       argv[optind - 1]);
				}
				return cli_usage_error(cmd_diff_help,
						       "unknown option or missing value: '%s'",
						       argv[optind - 1]);
			default:
				ret = setting(c, keys[opt - OPT_JUNIT], optarg, false, err,
					      sizeof(err));
				if (ret == -GP_ERR_NOMEM) {
					cli_error("out of memory");
					return CMD_ERROR;
				}
				if (ret) {
					return cli_usage_error(cmd_diff_help, "%s", err);
				}
			}
		}
	}
	return CMD_OK;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_cfg c = {.markdown_max = GPR_DIFF_MARKDOWN_MAX};
	int status, sep = -1;

	gpa_diff_opts_init(&c.a);
	if (set_fail_on(&c, "step.wall", ",")) {
		cli_error("out of memory");
		return CMD_ERROR;
	}
	status = parse(&c, argc, argv);
	if (status < 0) {
		status = CMD_OK; /* --help */
		goto out;
	}
	if (status != CMD_OK) {
		goto out;
	}
	for (int i = optind; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			sep = i;
			break;
		}
	}
	/* getopt stops at "--" and skips it: find it just before optind too */
	if (sep < 0 && optind > 1 && !strcmp(argv[optind - 1], "--")) {
		sep = optind - 1;
	}
	if (sep < 0) {
		status = cli_usage_error(cmd_diff_help,
					 "separate the baseline and candidate runs with '--'");
		goto out;
	}
	int first = sep < optind ? sep + 1 : optind;
	if (sep < optind) {
		/* "--" came before any run: nothing on the baseline side */
		status = cli_usage_error(cmd_diff_help, "no baseline run before '--'");
		goto out;
	}
	if (sep == first || sep + 1 >= argc) {
		status = cli_usage_error(cmd_diff_help, "need at least one run on each side of '--'");
		goto out;
	}
	status = run(&c, argv + first, (size_t)(sep - first), argv + sep + 1,
		     (size_t)(argc - sep - 1));
out:
	cfg_release(&c);
	return status;
}
