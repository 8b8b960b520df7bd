/* SPDX-License-Identifier: MIT */
/*
 * api.c - libgpuprof's handles: version, errors, open and close, the
 * analyses' entry point (api/gpuprof.h, docs/api.md).
 */
#define GP_LOG_TAG "api/api"
#include "base/compat.h"
#include "api/internal.h"
#include "analyze/related.h"
#include "import/import.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

/* gpuprof_open's reason, per thread. */
static __thread char open_err[1024];

const char *gpuprof_version(void)
{
	return GP_VERSION;
}

int gpuprof_api_version(void)
{
	return GPUPROF_API_VERSION;
}

const char *gpuprof_strerror(int status)
{
	return gp_err_str(status);
}

void gpuprof_open_opts_init(struct gpuprof_open_opts *o)
{
	memset(o, 0, sizeof(*o));
}

const char *gpuprof_last_error(void)
{
	return open_err;
}

GP_PRINTF(2, 3) static int open_fail(int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(open_err, sizeof(open_err), fmt, ap);
	va_end(ap);
	return ret;
}

/* A pattern the command would refuse, said as it says it (cli_check_regex). */
static int check_regex(const char *pattern, const char *what, bool reason_first)
{
	PCRE2_UCHAR msg[160];
	PCRE2_SIZE off;
	int code;
	pcre2_code *re;

	if (!pattern) {
		return 0;
	}
	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code, &off,
			   NULL);
	if (re) {
		pcre2_code_free(re);
		return 0;
	}
	if (code == PCRE2_ERROR_HEAP_FAILED) {
		return open_fail(-GP_ERR_NOMEM, "out of memory");
	}
	pcre2_get_error_message(code, msg, sizeof(msg));
	if (reason_first) {
		return open_fail(-GP_ERR_API, "bad %s '%s': %s at offset %zu", what, pattern,
				 (const char *)msg, (size_t)off);
	}
	return open_fail(-GP_ERR_API, "bad %s '%s' at offset %zu: %s", what, pattern, (size_t)off,
			 (const char *)msg);
}

static int check_opts(const struct gpuprof_open_opts *o)
{
	int ret = check_regex(o->step_regex, "step pattern", false);

	if (!ret) {
		ret = check_regex(o->data_loader_regex, "data-loader pattern", false);
	}
	if (o->ncomm_kernel_regex && !o->comm_kernel_regex) {
		return open_fail(-GP_ERR_API, "comm-kernel patterns: NULL array");
	}
	for (size_t i = 0; !ret && i < o->ncomm_kernel_regex; i++) {
		if (!o->comm_kernel_regex[i]) {
			return open_fail(-GP_ERR_API, "comm-kernel pattern %zu: NULL", i);
		}
		ret = check_regex(o->comm_kernel_regex[i], "kernel rule", true);
	}
	if (!ret && o->threads > GPT_MAX_THREADS) {
		ret = open_fail(-GP_ERR_RANGE, "threads: %u is not a number of threads from 1 to %u",
				o->threads, GPT_MAX_THREADS);
	}
	return ret;
}

/* Threads 0: one per online core, at most GPT_MAX_THREADS. */
static unsigned threads_of(unsigned given)
{
	long cores = given ? (long)given : sysconf(_SC_NPROCESSORS_ONLN);

	return cores < 1 ? 1u : cores > (long)GPT_MAX_THREADS ? GPT_MAX_THREADS : (unsigned)cores;
}

static int copy_opts(struct gpuprof_trace *t, const struct gpuprof_open_opts *o)
{
	t->threads = threads_of(o->threads);
	if ((o->step_regex && !(t->step_regex = strdup(o->step_regex))) ||
	    (o->data_loader_regex && !(t->data_regex = strdup(o->data_loader_regex)))) {
		return -GP_ERR_NOMEM;
	}
	if (o->ncomm_kernel_regex) {
		t->comm = calloc(o->ncomm_kernel_regex, sizeof(*t->comm));
		if (!t->comm) {
			return -GP_ERR_NOMEM;
		}
		for (; t->ncomm < o->ncomm_kernel_regex; t->ncomm++) {
			t->comm[t->ncomm] = strdup(o->comm_kernel_regex[t->ncomm]);
			if (!t->comm[t->ncomm]) {
				return -GP_ERR_NOMEM;
			}
		}
	}
	return 0;
}

/* Loads paths into t's model, as the command does (cli_load_model). */
static int load(struct gpuprof_trace *t, const char *const *paths, size_t npaths, bool unrelated)
{
	struct gpa_load_opts lo = {.threads = t->threads};
	char **expanded = NULL;
	size_t n = 0;
	int ret = gpa_expand_inputs(paths, npaths, &expanded, &n, open_err, sizeof(open_err));

	if (ret) {
		return ret;
	}
	ret = gpa_model_load(&t->m, (const char *const *)expanded, n, &lo, open_err,
			     sizeof(open_err));
	for (size_t i = 0; i < n; i++) {
		free(expanded[i]);
	}
	free(expanded);
	if (ret) {
		return ret;
	}
	if (!unrelated) {
		ret = gpa_related_model(&t->m, open_err, sizeof(open_err));
		if (ret == 1) {
			size_t len = strlen(open_err);
			snprintf(open_err + len, sizeof(open_err) - len,
				 "; give --allow-unrelated to analyse them together");
			ret = -GP_ERR_FORMAT;
		} else if (ret < 0) {
			open_fail(ret, "out of memory");
		}
		if (ret) {
			gpa_model_release(&t->m);
		}
	}
	return ret;
}

static void trace_free(struct gpuprof_trace *t, bool loaded)
{
	api_tables_release(t);
	if (t->has_steps) {
		gpa_steps_release(&t->steps);
	}
	if (loaded) {
		gpa_model_release(&t->m);
	}
	for (size_t i = 0; i < t->ncomm; i++) {
		free(t->comm[i]);
	}
	free(t->comm);
	free(t->label);
	free(t->step_regex);
	free(t->data_regex);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

int gpuprof_open(const char *const *paths, size_t npaths, const struct gpuprof_open_opts *o,
		 struct gpuprof_trace **out)
{
	struct gpuprof_open_opts none;
	struct gpuprof_trace *t;
	int ret;

	open_err[0] = '\0';
	if (!out) {
		return open_fail(-GP_ERR_API, "no handle to open into");
	}
	*out = NULL;
	if (!paths || !npaths) {
		return open_fail(-GP_ERR_API, "no trace given");
	}
	for (size_t i = 0; i < npaths; i++) {
		if (!paths[i]) {
			return open_fail(-GP_ERR_API, "trace %zu: NULL path", i);
		}
	}
	if (!o) {
		gpuprof_open_opts_init(&none);
		o = &none;
	}
	ret = check_opts(o);
	if (ret) {
		return ret;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		return open_fail(-GP_ERR_NOMEM, "out of memory");
	}
	pthread_mutex_init(&t->lock, NULL);
	ret = copy_opts(t, o);
	if (!ret && !(t->label = strdup(paths[0]))) {
		ret = -GP_ERR_NOMEM;
	}
	if (ret) {
		open_fail(ret, "out of memory");
		trace_free(t, false);
		return ret;
	}
	ret = load(t, paths, npaths, o->allow_unrelated);
	if (ret) {
		trace_free(t, false);
		return ret;
	}
	*out = t;
	return 0;
}

void gpuprof_close(struct gpuprof_trace *t)
{
	if (t) {
		trace_free(t, true);
	}
}

const char *gpuprof_trace_error(struct gpuprof_trace *t)
{
	return t ? t->err : "";
}

/* out's text handed to the caller as gpuprof_analyze says. */
static int hand_out(int ret, struct gp_strbuf *out, char **json, size_t *len)
{
	if (ret) {
		gp_strbuf_release(out);
		return ret;
	}
	if (len) {
		*len = out->len;
	}
	*json = gp_strbuf_detach(out, NULL);
	return 0;
}

int gpuprof_analyze(struct gpuprof_trace *t, enum gpuprof_analysis a, char **json, size_t *len)
{
	return gpuprof_analyze_opts(t, a, NULL, json, len);
}

/* o's fields the caller's build knows, the rest zero (the defaults); 0 or -GP_ERR_API. */
static int take_opts(struct gpuprof_trace *t, const struct gpuprof_analysis_opts *o)
{
	memset(&t->aopts, 0, sizeof(t->aopts));
	if (!o) {
		return 0;
	}
	if (o->size < offsetof(struct gpuprof_analysis_opts, top)) {
		snprintf(t->err, sizeof(t->err), "analysis options: size %zu is too small", o->size);
		return -GP_ERR_API;
	}
	memcpy(&t->aopts, o, o->size < sizeof(t->aopts) ? o->size : sizeof(t->aopts));
	if (t->aopts.top < -1) {
		snprintf(t->err, sizeof(t->err), "analysis options: top %lld: give -1 (all), 0 "
			 "(the default) or a count", (long long)t->aopts.top);
		return -GP_ERR_API;
	}
	if (t->aopts.min_gap_ns < 0) {
		snprintf(t->err, sizeof(t->err), "analysis options: min_gap_ns %lld is negative",
			 (long long)t->aopts.min_gap_ns);
		return -GP_ERR_API;
	}
	return 0;
}

size_t api_top(const struct gpuprof_trace *t, size_t def)
{
	return t->aopts.top == -1 ? SIZE_MAX : t->aopts.top ? (size_t)t->aopts.top : def;
}

int gpuprof_analyze_opts(struct gpuprof_trace *t, enum gpuprof_analysis a,
			 const struct gpuprof_analysis_opts *o, char **json, size_t *len)
{
	struct gp_strbuf out = GP_STRBUF_INIT;
	int ret;

	if (!t || !json) {
		return -GP_ERR_API;
	}
	*json = NULL;
	if (len) {
		*len = 0;
	}
	pthread_mutex_lock(&t->lock);
	t->err[0] = '\0';
	ret = take_opts(t, o);
	if (!ret) {
		ret = api_analysis_json(t, a, &out);
	}
	pthread_mutex_unlock(&t->lock);
	return hand_out(ret, &out, json, len);
}

int gpuprof_diff(struct gpuprof_trace *a, struct gpuprof_trace *b, char **json, size_t *len)
{
	struct gp_strbuf out = GP_STRBUF_INIT;
	/* two locks, always taken in the same order */
	struct gpuprof_trace *first = a < b ? a : b, *second = a < b ? b : a;
	int ret;

	if (!a || !b || !json) {
		return -GP_ERR_API;
	}
	*json = NULL;
	if (len) {
		*len = 0;
	}
	if (a == b) {
		snprintf(b->err, sizeof(b->err), "diff: the baseline and the candidate are one trace");
		return -GP_ERR_API;
	}
	pthread_mutex_lock(&first->lock);
	pthread_mutex_lock(&second->lock);
	b->err[0] = '\0';
	ret = api_diff_json(a, b, &out);
	pthread_mutex_unlock(&second->lock);
	pthread_mutex_unlock(&first->lock);
	return hand_out(ret, &out, json, len);
}

void gpuprof_free(void *p)
{
	free(p);
}
