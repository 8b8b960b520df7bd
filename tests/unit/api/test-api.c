/* SPDX-License-Identifier: MIT */
/*
 * test-api.c - libgpuprof.so through its public header alone: a generated
 * trace (tables against what was written, the analyses' JSON), every kind
 * of input among the anchors (Kineto JSON, nsys SQLite, a directory), bad
 * inputs and arguments, one handle used from two threads.
 */
#include "base/compat.h"
#include "api/gpuprof.h"
#include "tests/tools/gen.h"
#include "tests/unit/test.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

const char *test_tmpdir(void);

#define STEPS 5
#define KERNELS 20

/* A generated trace of STEPS steps on one device at dir/gen.gpz; its stats in *gs. */
static const char *gen_trace(const char *dir, struct gen_stats *gs)
{
	static char path[512];
	struct gen_opts go;
	struct gpt_writer *w;

	gen_opts_default(&go);
	go.steps = STEPS;
	go.kernels_per_step = KERNELS;
	go.devices = 1;
	go.all_kinds = true;
	go.memory_per_step = 4;
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/gen.gpz", dir);
	if (gpt_writer_open(path, NULL, &w) || gen_write(w, &go, gs) || gpt_writer_close(w)) {
		TFAIL("cannot write %s", path);
		return NULL;
	}
	return path;
}

static const struct gpuprof_column *column(const struct gpuprof_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++) {
		if (!strcmp(t->cols[i].name, name)) {
			return &t->cols[i];
		}
	}
	TFAIL("table %s has no column %s", t->name, name);
	return NULL;
}

TEST(version)
{
	CHECK_EQ_I(gpuprof_api_version(), GPUPROF_API_VERSION);
	CHECK(gpuprof_version()[0] != '\0');
	CHECK_STR(gpuprof_strerror(-GPUPROF_ERR_FORMAT), "invalid format");
}

TEST(generated_tables)
{
	struct gen_stats gs;
	const char *path = gen_trace(test_tmpdir(), &gs);
	struct gpuprof_trace *t = NULL;
	const struct gpuprof_table *k, *api, *steps;

	REQUIRE(path);
	CHECK_EQ_I(gpuprof_open(&path, 1, NULL, &t), 0);
	REQUIRE(t);
	CHECK_EQ_I(gpuprof_table(t, "kernels", &k), 0);
	REQUIRE(k);
	CHECK_EQ_U(k->rows, gs.records[GPT_KIND_KERNEL]);
	const struct gpuprof_column *start = column(k, "start"), *end = column(k, "end");
	const struct gpuprof_column *dur = column(k, "dur"), *name = column(k, "name");
	REQUIRE(start && end && dur && name);
	CHECK_EQ_I(start->type, GPUPROF_U64);
	CHECK_EQ_I(name->type, GPUPROF_STR);
	for (size_t i = 0; i < k->rows; i++) {
		const uint64_t *s = start->data, *e = end->data, *d = dur->data;
		const uint32_t *n = name->data;
		if (e[i] - s[i] != d[i] || !gpuprof_string(t, n[i])[0] ||
		    n[i] >= gpuprof_string_count(t)) {
			TFAIL("kernel %zu: start %llu end %llu dur %llu name %u", i,
			      (unsigned long long)s[i], (unsigned long long)e[i],
			      (unsigned long long)d[i], n[i]);
			break;
		}
		CHECK(s[i] >= gs.first_ts && e[i] <= gs.last_ts);
	}
	CHECK_EQ_I(gpuprof_table(t, "api", &api), 0);
	CHECK_EQ_U(api->rows, gs.records[GPT_KIND_API]);
	CHECK_EQ_I(gpuprof_table(t, "steps", &steps), 0);
	CHECK_EQ_U(steps->rows, STEPS);
	/* a second call hands the same table */
	const struct gpuprof_table *again;
	CHECK_EQ_I(gpuprof_table(t, "kernels", &again), 0);
	CHECK(again == k);
	for (const char *const *n = gpuprof_table_names(); *n; n++) {
		const struct gpuprof_table *tab;
		CHECK_EQ_I(gpuprof_table(t, *n, &tab), 0);
		for (size_t c = 0; tab && c < tab->ncols; c++) {
			CHECK(tab->rows == 0 || tab->cols[c].data != NULL);
		}
	}
	CHECK_EQ_I(gpuprof_table(t, "nope", &k), -GPUPROF_ERR_API);
	CHECK_STR(gpuprof_trace_error(t), "unknown table 'nope'");
	gpuprof_close(t);
}

TEST(generated_analyses)
{
	struct gen_stats gs;
	const char *path = gen_trace(test_tmpdir(), &gs);
	struct gpuprof_trace *t = NULL;
	static const enum gpuprof_analysis all[] = {GPUPROF_REPORT, GPUPROF_GAPS,
						    GPUPROF_CRITICAL_PATH, GPUPROF_OPS,
						    GPUPROF_MEMORY, GPUPROF_BREAKDOWN};
	static const char *const key[] = {"\"schema\":", "\"devices\":", "\"composition\":",
					  "\"by_name\":", "\"schema\":", "\"temporal\":"};

	REQUIRE(path);
	REQUIRE(gpuprof_open(&path, 1, NULL, &t) == 0);
	for (size_t i = 0; i < GP_ARRAY_SIZE(all); i++) {
		char *json = NULL;
		size_t len = 0;
		CHECK_EQ_I(gpuprof_analyze(t, all[i], &json, &len), 0);
		REQUIRE(json);
		CHECK(len == strlen(json) && json[0] == '{');
		CHECK_CONTAINS(json, key[i]);
		gpuprof_free(json);
	}
	char *json = NULL;
	CHECK_EQ_I(gpuprof_analyze(t, (enum gpuprof_analysis)99, &json, NULL), -GPUPROF_ERR_API);
	CHECK(json == NULL);
	gpuprof_close(t);
}

/* Occurrences of needle in s. */
static size_t count_of(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) {
		n++;
	}
	return n;
}

TEST(analysis_options)
{
	struct gen_stats gs;
	const char *path = gen_trace(test_tmpdir(), &gs);
	struct gpuprof_trace *t = NULL;
	struct gpuprof_analysis_opts o = {sizeof(o), 0, 0};
	char *def = NULL, *one = NULL, *all = NULL, *json = NULL;

	REQUIRE(path);
	REQUIRE(gpuprof_open(&path, 1, NULL, &t) == 0);
	/* zeroed options are the defaults; NULL too */
	REQUIRE(gpuprof_analyze(t, GPUPROF_GAPS, &def, NULL) == 0);
	REQUIRE(gpuprof_analyze_opts(t, GPUPROF_GAPS, &o, &json, NULL) == 0);
	CHECK(json && def && strcmp(json, def) == 0);
	gpuprof_free(json);
	gpuprof_free(def);
	/* every gap of 1 ns or more: 10 listed by default, 1 with top 1, all with -1 */
	o.min_gap_ns = 1;
	REQUIRE(gpuprof_analyze_opts(t, GPUPROF_GAPS, &o, &def, NULL) == 0);
	o.top = 1;
	REQUIRE(gpuprof_analyze_opts(t, GPUPROF_GAPS, &o, &one, NULL) == 0);
	o.top = -1;
	REQUIRE(gpuprof_analyze_opts(t, GPUPROF_GAPS, &o, &all, NULL) == 0);
	CHECK_EQ_I((long long)count_of(def, "\"length_ns\":"), 10);
	CHECK_EQ_I((long long)count_of(one, "\"length_ns\":"), 1);
	CHECK(count_of(all, "\"length_ns\":") > 10);
	gpuprof_free(one);
	gpuprof_free(all);
	gpuprof_free(def);
	/* refused: a top under -1, a negative gap, a size too small for the fields */
	o.top = -2;
	CHECK_EQ_I(gpuprof_analyze_opts(t, GPUPROF_GAPS, &o, &json, NULL), -GPUPROF_ERR_API);
	CHECK(json == NULL);
	CHECK_CONTAINS(gpuprof_trace_error(t), "top -2");
	o.top = 0;
	o.min_gap_ns = -1;
	CHECK_EQ_I(gpuprof_analyze_opts(t, GPUPROF_GAPS, &o, &json, NULL), -GPUPROF_ERR_API);
	CHECK_CONTAINS(gpuprof_trace_error(t), "min_gap_ns");
	o.min_gap_ns = 0;
	o.size = 1;
	CHECK_EQ_I(gpuprof_analyze_opts(t, GPUPROF_GAPS, &o, &json, NULL), -GPUPROF_ERR_API);
	gpuprof_close(t);
}

TEST(diff_of_two_traces)
{
	struct gen_stats gs;
	char dir[512];
	const char *p1, *p2;
	struct gpuprof_trace *a = NULL, *b = NULL;
	char *json = NULL;

	snprintf(dir, sizeof(dir), "%s/a", test_tmpdir());
	p1 = strdup(gen_trace(dir, &gs));
	snprintf(dir, sizeof(dir), "%s/b", test_tmpdir());
	p2 = gen_trace(dir, &gs);
	REQUIRE(p1 && p2);
	REQUIRE(gpuprof_open(&p1, 1, NULL, &a) == 0 && gpuprof_open(&p2, 1, NULL, &b) == 0);
	CHECK_EQ_I(gpuprof_diff(a, b, &json, NULL), 0);
	CHECK_CONTAINS(json, "\"metrics\":");
	CHECK_CONTAINS(json, "\"name\":\"step.wall\"");
	gpuprof_free(json);
	json = NULL;
	CHECK_EQ_I(gpuprof_diff(a, a, &json, NULL), -GPUPROF_ERR_API);
	CHECK_STR(gpuprof_trace_error(a), "diff: the baseline and the candidate are one trace");
	CHECK(json == NULL);
	gpuprof_close(a);
	gpuprof_close(b);
	free((void *)p1);
}

/* The anchors beside the checkout, as the e2e tests find them; NULL: skip (fails in CI). */
static const char *anchors(void)
{
	const char *a = getenv("GPUPROF_ANCHORS");
	const char *ci = getenv("CI");

	a = a && *a ? a : "../shared/anchors";
	if (access(a, R_OK)) {
		if (ci && !strcmp(ci, "true")) {
			TFAIL("no %s: in CI the anchors must be beside the checkout", a);
		} else {
			fprintf(stderr, "skip: no %s\n", a);
		}
		return NULL;
	}
	return a;
}

/* Opens path and checks that its kernels and report came back. */
static void open_one(const char *path)
{
	struct gpuprof_trace *t = NULL;
	const struct gpuprof_table *k;
	char *json = NULL;
	int ret = gpuprof_open(&path, 1, NULL, &t);

	if (ret) {
		TFAIL("%s: %s", path, gpuprof_last_error());
		return;
	}
	CHECK_EQ_I(gpuprof_table(t, "kernels", &k), 0);
	CHECK(k && k->rows > 0);
	CHECK_EQ_I(gpuprof_analyze(t, GPUPROF_REPORT, &json, NULL), 0);
	CHECK_CONTAINS(json, "\"kernels\":");
	gpuprof_free(json);
	gpuprof_close(t);
}

TEST(anchor_kinds)
{
	const char *a = anchors();
	char path[1024];
	static const char *const kinds[] = {
		"kineto/hta/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
		"kineto/hta/call_stack/backward_thread.json",
		"nsys/mock.sqlite",
	};

	if (!a) {
		return;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(kinds); i++) {
		snprintf(path, sizeof(path), "%s/%s", a, kinds[i]);
		open_one(path);
	}
	/* a directory: its traces together */
	snprintf(path, sizeof(path), "%s/kineto/hta/critical_path/simple_add", a);
	open_one(path);
}

TEST(bad_inputs)
{
	char path[512];
	const char *p = path;
	struct gpuprof_trace *t = (struct gpuprof_trace *)&t;
	FILE *f;
	char msg[600];

	snprintf(path, sizeof(path), "%s/bad.gpz", test_tmpdir());
	f = fopen(path, "w");
	REQUIRE(f);
	fputs("not a trace at all\n", f);
	fclose(f);
	CHECK_EQ_I(gpuprof_open(&p, 1, NULL, &t), -GPUPROF_ERR_FORMAT);
	CHECK(t == NULL);
	snprintf(msg, sizeof(msg), "%s: not a gpuprof trace (.gpz), Kineto JSON or nsys SQLite file",
		 path);
	CHECK_STR(gpuprof_last_error(), msg);
	snprintf(path, sizeof(path), "%s/missing.gpz", test_tmpdir());
	CHECK_EQ_I(gpuprof_open(&p, 1, NULL, &t), -GPUPROF_ERR_IO);
	snprintf(msg, sizeof(msg), "%s: cannot open: No such file or directory", path);
	CHECK_STR(gpuprof_last_error(), msg);
	CHECK_EQ_I(gpuprof_open(NULL, 0, NULL, &t), -GPUPROF_ERR_API);
	CHECK_STR(gpuprof_last_error(), "no trace given");
}

TEST(bad_options)
{
	struct gen_stats gs;
	const char *path = gen_trace(test_tmpdir(), &gs);
	struct gpuprof_open_opts o;
	struct gpuprof_trace *t = NULL;
	const char *rules[] = {"nccl", "("};

	REQUIRE(path);
	gpuprof_open_opts_init(&o);
	o.step_regex = "(";
	CHECK_EQ_I(gpuprof_open(&path, 1, &o, &t), -GPUPROF_ERR_API);
	CHECK_STR(gpuprof_last_error(), "bad step pattern '(' at offset 1: missing closing "
					"parenthesis");
	gpuprof_open_opts_init(&o);
	o.comm_kernel_regex = rules;
	o.ncomm_kernel_regex = 2;
	CHECK_EQ_I(gpuprof_open(&path, 1, &o, &t), -GPUPROF_ERR_API);
	CHECK_STR(gpuprof_last_error(), "bad kernel rule '(': missing closing parenthesis at "
					"offset 1");
	gpuprof_open_opts_init(&o);
	o.threads = 100000;
	CHECK_EQ_I(gpuprof_open(&path, 1, &o, &t), -GPUPROF_ERR_RANGE);
	CHECK(t == NULL);
}

struct worker {
	struct gpuprof_trace *t;
	int bad;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < 3; i++) {
		const struct gpuprof_table *tab;
		char *json = NULL;
		if (gpuprof_table(w->t, gpuprof_table_names()[i], &tab) ||
		    gpuprof_analyze(w->t, i % 2 ? GPUPROF_GAPS : GPUPROF_REPORT, &json, NULL)) {
			w->bad++;
		}
		gpuprof_free(json);
	}
	return NULL;
}

TEST(one_handle_two_threads)
{
	struct gen_stats gs;
	const char *path = gen_trace(test_tmpdir(), &gs);
	struct gpuprof_trace *t = NULL;
	struct worker w[2];
	pthread_t th[2];

	REQUIRE(path && gpuprof_open(&path, 1, NULL, &t) == 0);
	for (int i = 0; i < 2; i++) {
		w[i] = (struct worker){t, 0};
		REQUIRE(pthread_create(&th[i], NULL, work, &w[i]) == 0);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		CHECK_EQ_I(w[i].bad, 0);
	}
	gpuprof_close(t);
}
