// SPDX-License-Identifier: MIT
/*
 * Tests of opening inputs (import/open.c, expand.c, ahead.c): any input as a
 * trace reader, directories expanded, Kineto inputs converted ahead on
 * worker threads with the records and messages of one thread.
 */
#include "base/compat.h"
#include "import/import.h"
#include "tests/unit/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A Kineto trace of nk kernels at path (under the test's folder); its full path in out. */
static void kineto_file(char *out, size_t len, const char *name, unsigned nk)
{
	snprintf(out, len, "%s/%s", test_tmpdir(), name);
	FILE *f = fopen(out, "w");
	REQUIRE(f != NULL);
	fputs("{\"traceEvents\": [\n", f);
	for (unsigned i = 0; i < nk; i++) {
		fprintf(f, "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%u\", \"pid\": 0, "
			"\"tid\": 7, \"ts\": %u.5, \"dur\": 1.25, \"args\": {\"correlation\": %u}}\n",
			i ? "," : "", i, 10 + 3 * i, i + 1);
	}
	fputs("]}\n", f);
	fclose(f);
}

static void text_file(char *out, size_t len, const char *name, const char *text)
{
	snprintf(out, len, "%s/%s", test_tmpdir(), name);
	FILE *f = fopen(out, "w");
	REQUIRE(f != NULL);
	fputs(text, f);
	fclose(f);
}

/* Kernels read from r (then freed), their starts summed into *sum. */
static uint64_t kernels_of(struct gpt_reader *r, uint64_t *sum)
{
	struct gpt_chunk ch;
	uint64_t n = 0;
	int rc;

	*sum = 0;
	while ((rc = gpt_reader_next(r, &ch)) == 1) {
		if (ch.kind != GPT_KIND_KERNEL) {
			continue;
		}
		for (uint32_t i = 0; i < ch.count; i++) {
			const struct gpt_kernel *k =
				(const void *)((const char *)ch.records + i * sizeof(*k));
			*sum += k->start;
		}
		n += ch.count;
	}
	CHECK_EQ_I(rc, 0);
	gpt_reader_free(r);
	return n;
}

TEST(input_open_kineto_and_its_gpz)
{
	char json[512], gpz[512], err[256] = "";
	struct gpt_reader *r = NULL;
	uint64_t sum1, sum2;
	int fmt = -1;

	kineto_file(json, sizeof(json), "k.json", 5);
	REQUIRE(gpa_input_open(json, &r, &fmt, err, sizeof(err)) == 0);
	CHECK_EQ_I(fmt, GPA_INPUT_KINETO);
	CHECK_STR(gpa_input_format_name(fmt), "kineto");
	CHECK_EQ_U(kernels_of(r, &sum1), 5);
	CHECK_EQ_U(sum1, (10 + 13 + 16 + 19 + 22) * 1000ull + 5 * 500);

	/* the same records from the .gpz gpuprof convert writes */
	snprintf(gpz, sizeof(gpz), "%s/k.gpz", test_tmpdir());
	REQUIRE(gpa_convert(json, gpz, err, sizeof(err)) == 0);
	REQUIRE(gpa_input_open(gpz, &r, &fmt, err, sizeof(err)) == 0);
	CHECK_EQ_I(fmt, GPA_INPUT_GPZ);
	CHECK_EQ_U(kernels_of(r, &sum2), 5);
	CHECK_EQ_U(sum2, sum1);

	/* with options: two threads, the same records */
	struct gpa_input_opts o = {.threads = 2};
	REQUIRE(gpa_input_open_opts(json, &o, &r, err, sizeof(err)) == 0);
	CHECK_EQ_U(kernels_of(r, &sum2), 5);
	CHECK_EQ_U(sum2, sum1);

	/* not an nsys export: no processes to load apart */
	struct gpa_nsys_process *procs = NULL;
	size_t n = 7;
	gpa_input_processes(json, &procs, &n, err, sizeof(err));
	CHECK_EQ_U(n, 0);
	free(procs);
}

TEST(input_open_bad_inputs)
{
	char path[512], err[256] = "";
	struct gpt_reader *r = NULL;
	int fmt = -1;

	snprintf(path, sizeof(path), "%s/none.gpz", test_tmpdir());
	CHECK(gpa_input_open(path, &r, &fmt, err, sizeof(err)) < 0);
	CHECK_CONTAINS(err, "none.gpz");
	CHECK_CONTAINS(err, "cannot open");
	gpt_reader_free(r); /* the reader that said why, as gpt_reader_open leaves it */
	CHECK(gpa_input_open_opts(path, NULL, &r, err, sizeof(err)) < 0);
	CHECK(r == NULL);
	CHECK_CONTAINS(err, "none.gpz: cannot open");

	text_file(path, sizeof(path), "text.gpz", "not a trace at all");
	CHECK(gpa_input_open(path, &r, &fmt, err, sizeof(err)) < 0);
	CHECK_CONTAINS(err, "text.gpz: not a gpuprof trace");
	gpt_reader_free(r);

	text_file(path, sizeof(path), "bad.json", "{\"traceEvents\": [{\"ph\": ");
	CHECK(gpa_input_open(path, &r, &fmt, err, sizeof(err)) < 0);
	CHECK(r == NULL);
	CHECK_EQ_I(fmt, GPA_INPUT_KINETO);
	CHECK_CONTAINS(err, "bad.json");
}

static void free_list(char **files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(files[i]);
	}
	free(files);
}

TEST(expand_inputs_directory)
{
	char dir[512], path[512], err[256], **files = NULL;
	size_t n = 0;
	static const char *const names[] = {"rank10.gpz", "rank2.json", "rank1.sqlite",
					    "notes.txt", "x.json.gz"};

	snprintf(dir, sizeof(dir), "%s/run", test_tmpdir());
	REQUIRE(mkdir(dir, 0755) == 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "run/%s", names[i]);
		char full[512];
		text_file(full, sizeof(full), path, "x");
	}
	const char *args[] = {dir, "plain.gpz"};
	REQUIRE(gpa_expand_inputs(args, 2, &files, &n, err, sizeof(err)) == 0);
	REQUIRE(n == 5);
	/* natural order: rank1, rank2, rank10; the text file left out; files given kept */
	CHECK(strstr(files[0], "/rank1.sqlite") != NULL);
	CHECK(strstr(files[1], "/rank2.json") != NULL);
	CHECK(strstr(files[2], "/rank10.gpz") != NULL);
	CHECK(strstr(files[3], "/x.json.gz") != NULL);
	CHECK_STR(files[4], "plain.gpz");
	free_list(files, n);
	CHECK(gpa_is_trace_name("a.json.gz"));
	CHECK(!gpa_is_trace_name("a.gz"));

	snprintf(dir, sizeof(dir), "%s/empty", test_tmpdir());
	REQUIRE(mkdir(dir, 0755) == 0);
	const char *args2[] = {dir};
	CHECK(gpa_expand_inputs(args2, 1, &files, &n, err, sizeof(err)) < 0);
	CHECK_CONTAINS(err, "no traces in the directory");
}

TEST(import_ahead_as_one_thread)
{
	char p[4][512], err[256] = "";
	const char *paths[4];
	struct gpt_reader *r = NULL;
	uint64_t sum, want;

	for (unsigned i = 0; i < 3; i++) {
		char name[32];
		snprintf(name, sizeof(name), "k%u.json", i);
		kineto_file(p[i], sizeof(p[i]), name, i + 1);
		paths[i] = p[i];
	}
	text_file(p[3], sizeof(p[3]), "bad.json", "[{\"ph\": \"X\", \"ts\": ");
	paths[3] = p[3];

	/* nothing to gain on one thread, or with one Kineto input */
	CHECK(gpa_import_ahead_start(paths, 4, 1, sizeof(err)) == NULL);
	CHECK(gpa_import_ahead_start(paths, 1, 2, sizeof(err)) == NULL);
	CHECK_EQ_I(gpa_import_ahead_take(NULL, 0, &r, err, sizeof(err)), 1);

	struct gpa_import_ahead *a = gpa_import_ahead_start(paths, 4, 2, sizeof(err));
	REQUIRE(a != NULL);
	for (unsigned i = 0; i < 3; i++) {
		REQUIRE(gpa_import_ahead_take(a, i, &r, err, sizeof(err)) == 0);
		CHECK_EQ_U(kernels_of(r, &sum), i + 1);
		REQUIRE(gpa_input_open(paths[i], &r, NULL, err, sizeof(err)) == 0);
		kernels_of(r, &want);
		CHECK_EQ_U(sum, want);
	}
	/* the bad file's message is the one it gives alone */
	char alone[256] = "";
	CHECK(gpa_input_open(paths[3], &r, NULL, alone, sizeof(alone)) < 0);
	CHECK(gpa_import_ahead_take(a, 3, &r, err, sizeof(err)) < 0);
	CHECK_STR(err, alone);
	CHECK_CONTAINS(err, "bad.json");
	gpa_import_ahead_free(a);

	/* inputs not taken are freed with it */
	a = gpa_import_ahead_start(paths, 3, 2, sizeof(err));
	REQUIRE(a != NULL);
	gpa_import_ahead_free(a);
}

/* The chunks and strings an input gives, in order: one log per way of reading it. */
struct chunk_log {
	struct gp_strbuf text; /* per chunk: kind, count, first_ts, last_ts, then its records */
	struct gp_strbuf strs; /* strings 1..nstrs, each with its NUL */
	uint32_t nstrs, chunks;
	int fail_at; /* take: fail the chunk with this index (-1: none) */
};

static void log_chunk(struct chunk_log *l, const struct gpt_chunk *ch)
{
	uint64_t head[4] = {ch->kind, ch->count, ch->first_ts, ch->last_ts};

	gp_strbuf_add(&l->text, head, sizeof(head));
	gp_strbuf_add(&l->text, ch->records, (size_t)ch->count * ch->info->size);
	l->chunks++;
}

static int take_log(void *ctx, const struct gpt_writer *w, const struct gpt_chunk *ch)
{
	struct chunk_log *l = ctx;

	if ((int)l->chunks == l->fail_at) {
		return -GP_ERR_NOMEM;
	}
	CHECK_EQ_U(ch->index, l->chunks);
	/* every string a chunk may name is defined when it is handed over */
	for (; l->nstrs < gpt_writer_string_ids(w); l->nstrs++) {
		const char *s = gpt_writer_string(w, l->nstrs + 1);
		gp_strbuf_add(&l->strs, s, strlen(s) + 1);
	}
	log_chunk(l, ch);
	return 0;
}

/* The chunks of the reader of path's temporary .gpz (gpa_input_open_opts). */
static void read_log(const char *path, const struct gpa_input_opts *o, struct chunk_log *l)
{
	struct gpt_reader *r = NULL;
	struct gpt_chunk ch;
	char err[256] = "";
	int rc;

	REQUIRE(gpa_input_open_opts(path, o, &r, err, sizeof(err)) == 0);
	while ((rc = gpt_reader_next(r, &ch)) == 1) {
		log_chunk(l, &ch);
	}
	CHECK_EQ_I(rc, 0);
	/* the strings the records can name: those the taker saw */
	for (uint32_t id = 1; id <= gpt_reader_string_ids(r); id++) {
		const char *s = gpt_reader_string(r, id);
		gp_strbuf_add(&l->strs, s, strlen(s) + 1);
		l->nstrs++;
	}
	gpt_reader_free(r);
}

static void log_release(struct chunk_log *l)
{
	gp_strbuf_release(&l->text);
	gp_strbuf_release(&l->strs);
}

/* What gpa_input_take hands over is what the reader of the temporary .gpz gives, byte for byte. */
static void same_as_reader(const char *path, unsigned threads)
{
	struct gpa_input_opts o = {.threads = threads};
	struct chunk_log a = {.fail_at = -1}, b = {.fail_at = -1};
	char err[256] = "";

	gp_strbuf_init(&a.text);
	gp_strbuf_init(&a.strs);
	gp_strbuf_init(&b.text);
	gp_strbuf_init(&b.strs);
	CHECK_EQ_I(gpa_input_take(path, &o, take_log, &a, err, sizeof(err)), 0);
	read_log(path, &o, &b);
	CHECK(a.chunks > 0);
	CHECK_EQ_U(a.chunks, b.chunks);
	CHECK_EQ_U(a.text.len, b.text.len);
	CHECK(a.text.len == b.text.len && memcmp(a.text.buf, b.text.buf, a.text.len) == 0);
	/* the file may define strings after its last records chunk; none before differ */
	CHECK(a.nstrs <= b.nstrs);
	CHECK(a.strs.len <= b.strs.len && memcmp(a.strs.buf, b.strs.buf, a.strs.len) == 0);
	log_release(&a);
	log_release(&b);
}

TEST(input_take_same_chunks_as_its_gpz)
{
	char json[512], gpz[512], err[256] = "";
	struct chunk_log l = {.fail_at = -1};

	/* several chunks of kernels, each a name of its own */
	kineto_file(json, sizeof(json), "take.json", 3 * GPA_IMPORT_CHUNK_RECORDS + 5);
	same_as_reader(json, 1);
	same_as_reader(json, 2);

	/* a .gpz is left to the reader: nothing taken */
	snprintf(gpz, sizeof(gpz), "%s/take.gpz", test_tmpdir());
	REQUIRE(gpa_convert(json, gpz, err, sizeof(err)) == 0);
	gp_strbuf_init(&l.text);
	gp_strbuf_init(&l.strs);
	CHECK_EQ_I(gpa_input_take(gpz, NULL, take_log, &l, err, sizeof(err)), 1);
	CHECK_EQ_U(l.chunks, 0);

	/* the taker's error stops the import, and the message names the file */
	l.fail_at = 1;
	CHECK_EQ_I(gpa_input_take(json, NULL, take_log, &l, err, sizeof(err)), -GP_ERR_NOMEM);
	CHECK_CONTAINS(err, "take.json");
	CHECK_CONTAINS(err, "cannot take kernel records");
	CHECK_EQ_U(l.chunks, 1);

	/* a bad file: the import's message, as the reader's path gives it */
	char bad[512], alone[256] = "";
	struct gpt_reader *r = NULL;
	text_file(bad, sizeof(bad), "take-bad.json", "{\"traceEvents\": [{\"ph\": ");
	CHECK(gpa_input_open_opts(bad, NULL, &r, alone, sizeof(alone)) < 0);
	l.fail_at = -1;
	CHECK(gpa_input_take(bad, NULL, take_log, &l, err, sizeof(err)) < 0);
	CHECK_STR(err, alone);
	log_release(&l);
}

/* The same on the real traces beside the checkout: Kineto (plain and gzipped) and nsys. */
TEST(input_take_anchors)
{
	static const char *const files[] = {
		"kineto/hta/trace_diff/test/test.json.gz",
		"kineto/tracelens/xdit_flux/capture_trace_rank_0.json.gz",
		"nsys/mock.sqlite",
	};
	const char *dir = test_anchors("");
	char path[PATH_MAX];

	if (!dir) {
		printf("  (no anchors directory: skipped)\n");
		return;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		same_as_reader(path, 2);
	}
}

/* JSON is claimed by its first two tokens, not by a brace alone (random bytes begin with one). */
TEST(detect_json_by_two_tokens)
{
	static const struct {
		const char *b;
		enum gpa_input_format want;
	} cases[] = {
		{"{\"traceEvents\":", GPA_INPUT_KINETO},
		{"  \n{ \"schemaVers", GPA_INPUT_KINETO},
		{"[{\"ph\":\"X\"", GPA_INPUT_KINETO},
		{"[ ]", GPA_INPUT_KINETO},
		{"{}", GPA_INPUT_KINETO},
		{"{", GPA_INPUT_KINETO}, /* cut short: the JSON reader says how */
		{"\xef\xbb\xbf{\"a\"", GPA_INPUT_KINETO},
		{"{\x93\x11\xfe", GPA_INPUT_UNKNOWN},
		{"[7,1]", GPA_INPUT_UNKNOWN},
		{"{x}", GPA_INPUT_UNKNOWN},
		{"hello", GPA_INPUT_UNKNOWN},
	};

	for (size_t i = 0; i < GP_ARRAY_SIZE(cases); i++) {
		const char *b = cases[i].b;
		CHECK_EQ_I(gpa_input_detect_bytes((const unsigned char *)b, strlen(b)), cases[i].want);
	}
}
