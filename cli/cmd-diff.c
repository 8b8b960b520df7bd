/* SPDX-License-Identifier: MIT */
/*
 * gpuprof diff - is the candidate faster or slower per step than the
 * baseline, beyond noise, and why? Per-metric Mann-Whitney U tests,
 * bootstrap intervals and a noise floor, the step time's change explained
 * by the critical path (docs/diff.md); text, Markdown, JSON and JUnit
 * outputs; exit 3 when a gated metric regressed.
 */
#include "base/compat.h"
#include "base/outfile.h"
#include "analyze/model.h"
#include "analyze/diff.h"
#include "cli/cli.h"
#include "report/report.h"
#include "report/diff.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

enum diff_format { DIFF_TEXT, DIFF_JSON, DIFF_MARKDOWN, DIFF_JUNIT };

static const struct cli_enum_value diff_formats[] = {{"text", DIFF_TEXT},
						     {"json", DIFF_JSON},
						     {"markdown", DIFF_MARKDOWN},
						     {"junit", DIFF_JUNIT},
						     {NULL, 0}};

struct diff_cfg {
	struct cli_common common; /* --threads, --quiet */
	struct gpa_diff_opts a;
	GP_VEC(struct gpa_diff_threshold) thr;
	GP_VEC(char *) fail_on;
	GP_VEC(char *) owned;   /* strings the options point into */
	struct gpa_kname_rules *rules;
	const char *junit, *markdown, *json;
	int format;          /* enum diff_format: what -o (or standard output) gets */
	const char *output;  /* -o FILE */
	size_t markdown_max;
	double peak_tflops;
	bool no_table, mpi, force;
	struct cli_comm_rules comm;
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

/* -GP_ERR_FORMAT with "unknown metric 'P' (metrics: ...)" when p can match no metric. */
static int check_metric(const char *p, char *errbuf, size_t errlen)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;

	if (gpa_diff_metric_pattern_ok(p)) {
		return 0;
	}
	gpa_diff_metric_names(&sb);
	snprintf(errbuf, errlen, "unknown metric '%s' (metrics: %s)", p, sb.buf ? sb.buf : "");
	gp_strbuf_release(&sb);
	return -GP_ERR_FORMAT;
}

/* Replaces the gating list with the comma-separated patterns of s. */
static int set_fail_on(struct diff_cfg *c, const char *s, const char *sep, char *errbuf,
		       size_t errlen)
{
	c->fail_on.n = 0;
	while (*s) {
		size_t n = strcspn(s, sep);
		if (n) {
			char *p = n == 3 && !strncmp(s, "all", 3) ? own(c, "*", 1) : own(c, s, n);
			if (!p || gp_vec_push(&c->fail_on, p)) {
				return -GP_ERR_NOMEM;
			}
			int ret = check_metric(p, errbuf, errlen);
			if (ret) {
				return ret;
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
static int add_rule(struct diff_cfg *c, const char *arg, char *errbuf, size_t errlen)
{
	char delim = arg[0];
	const char *close;
	char *re;
	int ret;

	if (!delim || delim == ' ' || !(close = strchr(arg + 1, delim))) {
		snprintf(errbuf, errlen, "a rule is /REGEX/ REPLACEMENT");
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
	ret = gpa_kname_rules_add(c->rules, re, repl, errbuf, errlen);
	free(re);
	return ret == -GP_ERR_API ? -GP_ERR_FORMAT : ret;
}

/* One "key value" setting (from a file or an option); the reason in errbuf. */
static int setting(struct diff_cfg *c, const char *key, const char *val, bool rules_only,
		   char *errbuf, size_t errlen)
{
	uint64_t u;
	double d;

	if (!strcmp(key, "rule")) {
		return add_rule(c, val, errbuf, errlen);
	}
	if (rules_only) {
		snprintf(errbuf, errlen,
			 "only 'rule /REGEX/ REPLACEMENT' lines belong in a rules file");
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
			snprintf(errbuf, errlen, "a threshold is PATTERN PERCENT: '%s'", val);
			return -GP_ERR_FORMAT;
		}
		size_t n = (size_t)(sp - val);
		while (n && (val[n - 1] == ' ' || val[n - 1] == '\t')) {
			n--;
		}
		int ret = add_threshold(c, val, n, d);
		return ret ? ret : check_metric(c->thr.v[c->thr.n - 1].pattern, errbuf, errlen);
	} else if (!strcmp(key, "fail-on")) {
		return set_fail_on(c, val, ", \t", errbuf, errlen);
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
	} else if (!strcmp(key, "by")) {
		if (!strcmp(val, "kernel")) {
			c->a.by = GPA_DIFF_BY_KERNEL;
		} else if (!strcmp(val, "op")) {
			c->a.by = GPA_DIFF_BY_OP;
		} else if (!strcmp(val, "op-inputs")) {
			c->a.by = GPA_DIFF_BY_OP_INPUTS;
		} else {
			goto bad;
		}
	} else if (!strcmp(key, "resamples")) {
		if (!cli_parse_uint(val, 10000000, &u) || u < 100) {
			goto bad;
		}
		c->a.boot.reps = (unsigned)u;
	} else if (!strcmp(key, "seed")) {
		if (!cli_parse_uint(val, UINT64_MAX, &u)) {
			goto bad;
		}
		c->a.boot.seed = u;
	} else if (!strcmp(key, "min-samples")) {
		if (!cli_parse_uint(val, 1000000, &u) || u < 2) {
			goto bad;
		}
		c->a.min_samples = (size_t)u;
	} else if (!strcmp(key, "skip-steps")) {
		if (!cli_parse_uint(val, UINT32_MAX, &u)) {
			goto bad;
		}
		c->a.skip_steps = (uint32_t)u;
	} else if (!strcmp(key, "step")) {
		c->a.step_regex = own(c, val, strlen(val));
		if (!c->a.step_regex) {
			return -GP_ERR_NOMEM;
		}
	} else if (!strcmp(key, "data-loader")) {
		c->a.data_regex = own(c, val, strlen(val));
		if (!c->a.data_regex) {
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
		snprintf(errbuf, errlen, "unknown setting '%s'", key);
		return -GP_ERR_FORMAT;
	}
	return 0;
bad:
	snprintf(errbuf, errlen, "bad value for %s: '%s'", key, val);
	return -GP_ERR_FORMAT;
}

/* Reads "key value" lines ('#' comments); errors name FILE:LINE. */
static int read_config(struct diff_cfg *c, const char *path, bool rules_only)
{
	FILE *f = cli_fopen_input(path);
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
	return cli_write_file(path, sb->buf, sb->len) ? 0 : -1;
}

/*
 * Runs load on worker threads (one per core, at most 4): each worker loads
 * a run, reduces it to its per-step samples in a comparison of its own,
 * packs them (as diff --mpi sends them) and frees the model; the main
 * thread adds the packed runs to the comparison in run order. At most one
 * model per worker is alive, and the output is the same bytes on any
 * number of threads (the packed samples are what gpa_diff_add_run keeps:
 * analyze/diff.h; t5007 compares the two paths), standard error included:
 * what a load says is kept and written when its run is added, and nothing
 * of a run after the first that fails.
 */
#define MAX_LOADERS 4

struct slot {
	struct gp_strbuf rec; /* the run's packed samples */
	struct gp_strbuf msgs; /* what loading it said, written when the run is added */
	int state;	      /* 0 waiting, 1 working, 2 done, 3 load failed, 4 reduce failed */
	int ret;	      /* state 4: the library's error */
	char err[1024];	      /* state 4: its reason */
};

struct loader {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct cli_common *common; /* read only: its threads are resolved before the workers start */
	const struct gpa_diff_opts *opts;
	char **args;
	struct slot *slots;
	size_t n, nbase, next;
	unsigned load_threads; /* each load's: the threads left over per worker */
	bool stop;
};

/* Run i loaded, reduced and packed into its slot; the slot's next state. */
static int reduce_run(struct loader *l, size_t i)
{
	struct slot *s = &l->slots[i];
	struct gpa_model m;
	struct gpa_diff *d1 = NULL;
	int ret;

	cli_capture_messages(&s->msgs);
	/* a run is reduced to per-step figures: no correlation or callback id is read */
	ret = cli_load_model_ex(l->common, &m, &l->args[i], 1, l->load_threads,
				GPA_DROP_API_IDS | GPA_DROP_CORR);
	cli_capture_messages(NULL);
	if (ret) {
		return 3;
	}
	s->ret = gpa_diff_new(l->opts, &d1, s->err, sizeof(s->err));
	if (!s->ret) {
		s->ret = gpa_diff_add_run(d1, i < l->nbase ? 0 : 1, &m, l->args[i], s->err,
					  sizeof(s->err));
	}
	gpa_model_release(&m);
	if (!s->ret && gpa_diff_run_pack(d1, &s->rec)) {
		s->ret = -GP_ERR_NOMEM;
		snprintf(s->err, sizeof(s->err), "out of memory");
	}
	gpa_diff_free(d1);
	return s->ret ? 4 : 2;
}

static void *load_worker(void *arg)
{
	struct loader *l = arg;

	pthread_mutex_lock(&l->mu);
	while (!l->stop && l->next < l->n) {
		size_t i = l->next++;
		l->slots[i].state = 1;
		pthread_mutex_unlock(&l->mu);
		int state = reduce_run(l, i);
		pthread_mutex_lock(&l->mu);
		l->slots[i].state = state;
		pthread_cond_broadcast(&l->cv);
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

/* Run i's packed samples added to d on the main thread; the exit status, said. */
static int add_packed(struct gpa_diff *d, struct loader *l, size_t i)
{
	struct slot *s = &l->slots[i];
	char err[512], what[64];
	int ret;

	fwrite(s->msgs.buf, 1, s->msgs.len, stderr);
	if (s->state == 3) {
		return CMD_ERROR; /* cli_load_model said why */
	}
	if (s->state == 4) {
		cli_error("%s", s->err);
		return cli_exit_code(s->ret, 0);
	}
	snprintf(what, sizeof(what), "the samples of run %zu", i + 1);
	ret = gpa_diff_run_unpack(d, i < l->nbase ? 0 : 1, s->rec.buf, s->rec.len, what, err,
				  sizeof(err));
	gp_strbuf_release(&s->rec);
	if (ret) {
		cli_error("%s", ret == -GP_ERR_NOMEM ? "out of memory" : err);
		return CMD_ERROR;
	}
	return CMD_OK;
}

static int load_runs(struct cli_common *c, struct gpa_diff *d, const struct gpa_diff_opts *o,
		     char **args, size_t n, size_t nbase)
{
	struct loader l = {.common = c, .opts = o, .args = args, .n = n, .nbase = nbase};
	pthread_t th[MAX_LOADERS];
	unsigned want;
	size_t nth, started = 0;
	int status = CMD_OK;

	if (cli_common_threads(c, &want)) {
		return CMD_ERROR;
	}
	nth = want > MAX_LOADERS ? MAX_LOADERS : want;
	if (nth > n) {
		nth = n;
	}
	l.load_threads = nth > 1 ? (unsigned)(want / nth) : want;
	l.slots = calloc(n ? n : 1, sizeof(*l.slots));
	if (!l.slots || pthread_mutex_init(&l.mu, NULL)) {
		free(l.slots);
		cli_error("out of memory");
		return CMD_ERROR;
	}
	for (size_t i = 0; i < n; i++) {
		l.slots[i].rec = (struct gp_strbuf)GP_STRBUF_INIT;
		l.slots[i].msgs = (struct gp_strbuf)GP_STRBUF_INIT;
	}
	pthread_cond_init(&l.cv, NULL);
	for (; nth > 1 && started < nth; started++) {
		if (pthread_create(&th[started], NULL, load_worker, &l)) {
			break;
		}
	}
	for (size_t i = 0; i < n && status == CMD_OK; i++) {
		if (!started) {
			l.slots[i].state = reduce_run(&l, i); /* one thread: each run here, in order */
		}
		pthread_mutex_lock(&l.mu);
		while (l.slots[i].state < 2) {
			pthread_cond_wait(&l.cv, &l.mu);
		}
		pthread_mutex_unlock(&l.mu);
		status = add_packed(d, &l, i);
	}
	pthread_mutex_lock(&l.mu);
	l.stop = true; /* after a failure: no run is started past it */
	pthread_mutex_unlock(&l.mu);
	for (size_t t = 0; t < started; t++) {
		pthread_join(th[t], NULL);
	}
	for (size_t i = 0; i < n; i++) {
		gp_strbuf_release(&l.slots[i].rec);
		gp_strbuf_release(&l.slots[i].msgs);
	}
	pthread_cond_destroy(&l.cv);
	pthread_mutex_destroy(&l.mu);
	free(l.slots);
	return status;
}

static int emit(struct diff_cfg *c, struct gpa_diff *d, struct gpa_diff_result *rp,
		struct gp_strbuf *sbp);

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
	c->a.comm_rules = c->comm.rules;
	c->a.ncomm_rules = c->comm.n;
	c->a.peak_flops = c->peak_tflops * 1e12;
	if ((c->a.flops_per_step > 0) != (c->peak_tflops > 0)) {
		cli_warn("mfu needs both --flops-per-step and --peak-tflops; not computed");
	}
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
	if (c->mpi) {
		bool root;
		status = cli_diff_mpi_runs(&c->common, d, &c->a, runs, nbase + ncand, nbase, &root);
		if (root && status == CMD_OK) {
			status = emit(c, d, &r, &sb);
		}
		status = cli_mpi_status(status);
		cli_mpi_finalize();
		goto out;
	}
	status = load_runs(&c->common, d, &c->a, runs, nbase + ncand, nbase);
	if (status == CMD_OK) {
		status = emit(c, d, &r, &sb);
	}
out:
	free(runs);
	gp_strbuf_release(&sb);
	gpa_diff_result_release(&r);
	gpa_diff_free(d);
	return status;
}

/* The comparison computed and written as asked; the exit status. */
static int emit(struct diff_cfg *c, struct gpa_diff *d, struct gpa_diff_result *rp,
		struct gp_strbuf *sbp)
{
	int status = CMD_ERROR;

	if (gpa_diff_compute(d, rp)) {
		cli_error("out of memory");
		goto out;
	}
	if (!c->no_table) {
		if (gpr_diff_text(sbp, &c->common.display, rp) ||
		    (c->output ? write_file(c->output, sbp)
			       : !cli_write_stdout(sbp->buf, sbp->len))) {
			goto out;
		}
	}
	if (c->json) {
		gp_strbuf_reset(sbp);
		if (gpr_diff_json(sbp, &c->common.display, rp) || write_file(c->json, sbp)) {
			goto out;
		}
	}
	if (c->markdown) {
		gp_strbuf_reset(sbp);
		if (gpr_diff_markdown(sbp, &c->common.display, rp, c->markdown_max) ||
		    write_file(c->markdown, sbp)) {
			goto out;
		}
	}
	if (c->junit) {
		gp_strbuf_reset(sbp);
		if (gpr_diff_junit(sbp, &c->common.display, rp)) {
			cli_error("cannot write the JUnit output");
			goto out;
		}
		if (write_file(c->junit, sbp)) {
			goto out;
		}
	}
	status = rp->regressed_gated ? CMD_REGRESSION : CMD_OK;
out:
	return status;
}

/* A setting named as its option; not in the first pass (cli_prescan_options). */
static int opt_setting(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	char err[1024]; /* an unknown metric lists every metric's name */
	int ret;

	if (ctx->prescan) {
		return 0;
	}
	ret = setting(ctx->base, opt->long_name, arg, false, err, sizeof(err));
	if (ret == -GP_ERR_NOMEM) {
		cli_error("out of memory");
		return CMD_ERROR;
	}
	return ret ? cli_opt_usage_error(ctx, "%s", err) : 0;
}

static int opt_rules(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	(void)opt;
	if (ctx->prescan) {
		return 0;
	}
	return read_config(ctx->base, arg, true) ? CMD_ERROR : 0;
}

/* The file is read in the first pass, so that the other options override it. */
static int opt_config(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	(void)opt;
	if (!ctx->prescan) {
		return 0;
	}
	return read_config(ctx->base, arg, false) ? CMD_ERROR : 0;
}

static const struct cli_option diff_options[] = {
	CLI_OPT_GROUP("options:\n", 28, 6),
	CLI_OPT_ENUMV('f', "format", "FORMAT", struct diff_cfg, format, diff_formats,
		      "unknown format '%s' (text, json, markdown or junit)",
		      "text (the table, default), json, markdown or junit:\n"
		      "what -o gets, else standard output instead of the\n"
		      "table"),
	CLI_OPT_STR('o', "output", "FILE", struct diff_cfg, output,
		    "write the --format output there ('-' standard output)"),
	CLI_OPT_STR(0, "junit", "FILE", struct diff_cfg, junit,
		    "write JUnit XML (one test case per gated metric)"),
	CLI_OPT_STR(0, "markdown", "FILE", struct diff_cfg, markdown,
		    "write Markdown for a CI step summary or comment"),
	/* The earlier spelling of --format json -o FILE, kept working. */
	{.type = CLI_OPT_STRING, 0, "json", "FILE", NULL, CLI_FIELD_(struct diff_cfg, json),
	 .flags = CLI_OPTF_HIDDEN},
	CLI_OPT_UINTV(0, "markdown-max", "BYTES", struct diff_cfg, markdown_max, 1000, SIZE_MAX / 2,
		      "bad --markdown-max '%s' (at least 1000)",
		      "cap the Markdown output (1000000)"),
	CLI_OPT_CB(0, "fail-on", "LIST", opt_setting,
		   "comma-separated metric patterns that gate the exit\n"
		   "status (step.wall); 'all' for every metric"),
	CLI_OPT_CB(0, "min-effect", "PCT", opt_setting, "smallest relevant change, in percent (2)"),
	CLI_OPT_CB(0, "threshold", "PAT=PCT", opt_setting,
		   "minimum effect for metrics matching PAT (repeatable)"),
	CLI_OPT_CB(0, "alpha", "A", opt_setting, "significance level (0.05)"),
	CLI_OPT_CB(0, "correction", "NAME", opt_setting,
		   "bh (Benjamini-Hochberg, default), holm, none"),
	CLI_OPT_CB(0, "resamples", "N", opt_setting, "bootstrap resamples (10000)"),
	CLI_OPT_CB(0, "seed", "N", opt_setting, "bootstrap seed (1): same seed, same intervals"),
	CLI_OPT_CB(0, "min-samples", "N", opt_setting,
		   "fewer samples per side is inconclusive (4)"),
	CLI_OPT_CB(0, "skip-steps", "N", opt_setting,
		   "drop the first N steps of every process (warm-up)"),
	{.type = CLI_OPT_REGEX, 0, "step", "REGEX",
	 "NVTX ranges that are steps (default: ProfilerStep#N,\n"
	 "else annotations that repeat around GPU work)",
	 .err = "step pattern", .cb = opt_setting},
	{.type = CLI_OPT_REGEX, 0, "data-loader", "REGEX",
	 "range names that are data loading, for idle causes\n"
	 "(PCRE2; default in docs/gaps.md)",
	 .err = "data-loader pattern", .cb = opt_setting},
	CLI_OPT_CB(0, "rules", "FILE", opt_rules, "more kernel-name normalization rules"),
	CLI_OPT_CB(0, "by", "WHAT", opt_setting,
		   "group kernel time by kernel (family, default), op\n"
		   "(the leaf CPU operator that launched it) or op-inputs\n"
		   "(the operator and its recorded inputs)"),
	CLI_OPT_CB(0, "flops-per-step", "F", opt_setting,
		   "model FLOPs per step (whole job), for mfu"),
	CLI_OPT_CB(0, "peak-tflops", "T", opt_setting, "peak dense TFLOP/s of one GPU, for mfu"),
	CLI_OPT_CB(0, "config", "FILE", opt_config,
		   "thresholds and options from a file (docs/diff.md);\n"
		   "command-line options override it"),
	CLI_OPT_BOOL(0, "no-causes", struct diff_cfg, a.no_path,
		     "skip the critical path per step (path.* metrics and\n"
		     "the causes of the change): faster on huge traces"),
	CLI_OPT_BOOL('q', "no-table", struct diff_cfg, no_table,
		     "no table on standard output (--quiet, as in every\n"
		     "command, only hides the progress line)"),
	CLI_OPT_BOOL(0, "force", struct diff_cfg, force,
		     "let an output be written into an input directory, where\n"
		     "the next run reads it as a trace"),
	CLI_OPT_BOOL(0, "mpi", struct diff_cfg, mpi,
		     "under mpirun or srun: the MPI processes share the\n"
		     "runs, rank 0 writes the outputs (docs/cluster.md)"),
	CLI_OPT_SUB(cli_comm_options, struct diff_cfg, comm, 0),
	CLI_OPT_DISPLAY(),
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};

const struct cli_command cmd_diff_opts = {
	.usage =
	"usage: gpuprof diff [OPTIONS] BASELINE... -- CANDIDATE...\n"
	"\n"
	"Says first whether the candidate is faster or slower per step, by how much\n"
	"and how surely, and why: the critical path's categories ranked by their\n"
	"share of the change. Then compares the runs metric by metric and says which\n"
	"regressed beyond noise. A run is one trace or a directory of rank traces\n"
	"(.gpz, Kineto JSON, nsys SQLite). Metrics, per step: step.wall, gpu.busy,\n"
	"idle.total and idle.<cause>, path.<category> (the critical path's time),\n"
	"kernel.<family> (names normalized so a recompiled kernel\n"
	"matches itself; with --by op, op.<operator> for kernels PyTorch operators\n"
	"launched), copy.time, copy.bytes, comm.time, comm.exposed,\n"
	"and mfu with --flops-per-step and --peak-tflops. Each gets a two-sided\n"
	"Mann-Whitney U test (p adjusted across metrics), a bootstrap interval of\n"
	"the change of medians and a verdict: regressed, improved, unchanged or\n"
	"inconclusive (with the runs still needed). See docs/diff.md.\n"
	"\n",
	.options = diff_options,
	.footer = "\n"
		  "FILE '-' is standard output (with --no-table, the table's place); two outputs\n"
		  "may not name one file (docs/reliability.md). --json FILE, the earlier\n"
		  "spelling of --format json -o FILE, still works.\n",
	.flags = CLI_KEEP_DASHDASH,
};

/*
 * --format F [-o FILE]: a format other than the table goes where --json,
 * --markdown or --junit FILE would send it (-o, else standard output, and
 * then the table is not printed); the table itself goes to -o when given.
 */
static int route_format(struct diff_cfg *c)
{
	const char **slot[] = {[DIFF_JSON] = &c->json, [DIFF_MARKDOWN] = &c->markdown,
			       [DIFF_JUNIT] = &c->junit};
	static const char *const names[] = {[DIFF_JSON] = "json", [DIFF_MARKDOWN] = "markdown",
					    [DIFF_JUNIT] = "junit"};

	static const struct cli_out_ext exts[] = {{"json", DIFF_JSON, "json"},
						  {"md", DIFF_MARKDOWN, "markdown"},
						  {"xml", DIFF_JUNIT, "junit"},
						  {NULL, 0, NULL}};
	int ret = cli_output_format(&cmd_diff_opts, c->output, exts, &c->format);

	if (ret) {
		return ret;
	}
	if (c->format < 0) {
		c->format = DIFF_TEXT;
	}
	if (c->format == DIFF_TEXT) {
		return CMD_OK;
	}
	if (*slot[c->format]) {
		return cli_cmd_usage_error(&cmd_diff_opts,
					   "options '--format %s' and '--%s' cannot be used together",
					   names[c->format], names[c->format]);
	}
	*slot[c->format] = c->output ? c->output : "-";
	if (!c->output) {
		c->no_table = true;
	}
	c->output = NULL;
	return CMD_OK;
}

/*
 * BASELINE... -- CANDIDATE... in args[0..n): *sep is the index of the "--".
 * A "--" first ended the options; a later one separates the runs.
 */
static int split_runs(char **args, int n, int *first, int *sep)
{
	const struct cli_command *cmd = &cmd_diff_opts;
	bool ended = n && !strcmp(args[0], "--");

	*first = ended ? 1 : 0;
	*sep = -1;
	for (int i = *first; i < n; i++) {
		if (!strcmp(args[i], "--")) {
			*sep = i;
			break;
		}
	}
	if (*sep < 0 && !ended) {
		return cli_cmd_usage_error(cmd,
					   "separate the baseline and candidate runs with '--'");
	}
	if (*sep < 0) {
		/* "--" came before any run: nothing on the baseline side */
		return cli_cmd_usage_error(cmd, "no baseline run before '--'");
	}
	if (*sep == *first || *sep + 1 >= n) {
		return cli_cmd_usage_error(cmd, "need at least one run on each side of '--'");
	}
	return CMD_OK;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_cfg c = {.markdown_max = GPR_DIFF_MARKDOWN_MAX, .format = -1};
	int nargs, first, sep, status;

	gpa_diff_opts_init(&c.a);
	char err[64];

	if (set_fail_on(&c, "step.wall", ",", err, sizeof(err))) {
		cli_error("out of memory");
		return CMD_ERROR;
	}
	status = cli_prescan_options(&cmd_diff_opts, &c, argc, argv);
	if (status) {
		goto out;
	}
	status = cli_parse_options(&cmd_diff_opts, &c, &c.common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		goto out;
	}
	status = split_runs(argv, nargs, &first, &sep);
	if (status == CMD_OK) {
		status = route_format(&c);
	}
	if (status == CMD_OK) {
		const char *outs[] = {c.json, c.markdown, c.junit, c.output};
		status = cli_check_outputs(&cmd_diff_opts, outs, GP_ARRAY_SIZE(outs), argv + first,
					   (size_t)(nargs - first), c.force);
		/* The table goes to standard output unless --no-table: "-" would mix with it. */
		for (size_t i = 0; i < GP_ARRAY_SIZE(outs) && status == CMD_OK && !c.no_table; i++) {
			if (outs[i] && gp_out_same(outs[i], "-")) {
				status = cli_cmd_usage_error(&cmd_diff_opts,
							     "'%s' is standard output, where the "
							     "table goes: add --no-table",
							     outs[i]);
			}
		}
	}
	if (status != CMD_OK) {
		goto out;
	}
	status = run(&c, argv + first, (size_t)(sep - first), argv + sep + 1,
		     (size_t)(nargs - sep - 1));
out:
	cfg_release(&c);
	return status;
}
