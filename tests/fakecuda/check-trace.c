/* SPDX-License-Identifier: MIT */
/*
 * check-trace - the recording tests' eyes on a trace file.
 *
 *   check-trace compare TRACE EXPECT   every expected record appears in the
 *       trace exactly once with identical fields, and nothing else of those
 *       kinds; CUPTI drops in the trace equal the expected count; NVTX
 *       ranges nest; "C MSG CORR" lines: the API call with that correlation
 *       lies inside the NVTX range MSG.
 *   check-trace subset TRACE EXPECT    every expected record is there (others may be)
 *   check-trace stat TRACE             counts for shell tests and the GPU check:
 *       "records KIND N", "kernel NAME N", "nvtx MESSAGE N", "api NAME N",
 *       "config NAME GRID BLOCK REGS STATIC_SMEM DYNAMIC_SMEM ...", "loss CAUSE N",
 *       "events N", "span_ns N", "memcpy_bytes N", "footer yes|no",
 *       "truncated yes|no", "problems N", "status TEXT", "process-exit N".
 *   check-trace nvtx TRACE             NVTX nesting only.
 * Exit status 0 when the checks pass, 1 otherwise, 2 on usage errors.
 */
#include "base/compat.h"
#include "tests/fakecuda/rectext.h"

#include <stdio.h>

struct trace {
	struct gpt_reader *r;
	GP_VEC(struct gpt_nvtx) nvtx;
	GP_VEC(struct gpt_api) api;
	GP_VEC(struct gpt_process) process;
	uint64_t loss[GPT_LOSS__MAX];
	uint64_t records[GPT_KIND__MAX];
};

static void trace_release(struct trace *t)
{
	gp_vec_free(&t->nvtx);
	gp_vec_free(&t->api);
	gp_vec_free(&t->process);
	gpt_reader_free(t->r);
	t->r = NULL;
}

static const char *rd_str(void *ctx, uint32_t id)
{
	return gpt_reader_string(ctx, id);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int open_trace(const char *path, struct gpt_reader **r)
{
	int ret = gpt_reader_open(path, r);

	if (ret) {
		fprintf(stderr, "check-trace: %s: %s\n", path,
			*r ? gpt_reader_last_error(*r) : gp_err_str(ret));
		return -1;
	}
	return 0;
}

/* push_line: appends s to the array *v of *n lines, its room doubled when full (the
 * capacity is implied by *n: 16, then each power of two), so that a trace of many records
 * is not copied once per record (quadratic, and slow under the sanitizers). */
static void push_line(char ***v, size_t *n, char *s)
{
	if (*n == 0 || (*n >= 16 && (*n & (*n - 1)) == 0)) {
		char **w = realloc(*v, sizeof(**v) * (*n ? 2 * *n : 16));
		if (!w) {
			fprintf(stderr, "check-trace: out of memory\n");
			exit(2);
		}
		*v = w;
	}
	(*v)[(*n)++] = s;
}

/* Reads the trace; lines of the kinds in 'want' go to out. */
static int load(const char *path, struct trace *t, const bool *want, char ***out, size_t *nout)
{
	struct gpt_chunk c;
	int ret;
	static const uint16_t nvtx_skip[] = {1, 2, 0};

	if (open_trace(path, &t->r)) {
		return -1;
	}
	while ((ret = gpt_reader_next(t->r, &c)) > 0) {
		for (uint32_t i = 0; i < c.count; i++) {
			const void *rec = (const uint8_t *)c.records + (size_t)i * c.info->size;
			t->records[c.kind]++;
			switch (c.kind) {
			case GPT_KIND_NVTX:
				gp_vec_push(&t->nvtx, *(const struct gpt_nvtx *)rec);
				break;
			case GPT_KIND_API:
				gp_vec_push(&t->api, *(const struct gpt_api *)rec);
				break;
			case GPT_KIND_PROCESS:
				gp_vec_push(&t->process, *(const struct gpt_process *)rec);
				break;
			case GPT_KIND_LOSS: {
				const struct gpt_loss *l = rec;
				if (l->cause < GPT_LOSS__MAX) {
					t->loss[l->cause] += l->count;
				}
				break;
			}
			default:
				break;
			}
			if (want && want[c.kind]) {
				struct gp_strbuf sb = GP_STRBUF_INIT;
				rt_format(&sb, c.info, rec, rd_str, t->r,
					  c.kind == GPT_KIND_NVTX ? nvtx_skip : NULL);
				push_line(out, nout, gp_strbuf_detach(&sb, NULL));
			}
		}
	}
	if (ret < 0) {
		fprintf(stderr, "check-trace: %s: %s\n", path, gpt_reader_last_error(t->r));
		return -1;
	}
	return 0;
}

/* Push/pop ranges of one thread and domain nest; depth counts the enclosing ones. */
static const struct gpt_nvtx *sort_base;

static int cmp_range(const void *pa, const void *pb)
{
	const struct gpt_nvtx *a = &sort_base[*(const size_t *)pa],
			      *b = &sort_base[*(const size_t *)pb];

	if (a->start_tid != b->start_tid) {
		return a->start_tid < b->start_tid ? -1 : 1;
	}
	if (a->domain != b->domain) {
		return a->domain < b->domain ? -1 : 1;
	}
	if (a->start != b->start) {
		return a->start < b->start ? -1 : 1;
	}
	if (a->end != b->end) {
		return a->end > b->end ? -1 : 1; /* the outer one first */
	}
	return a->depth < b->depth ? -1 : a->depth > b->depth;
}

static int check_nesting(struct trace *t)
{
	size_t *idx = calloc(t->nvtx.n + 1, sizeof(*idx));
	size_t *stack = calloc(t->nvtx.n + 1, sizeof(*stack));
	size_t n = 0, sp = 0;
	int bad = 0;

	for (size_t i = 0; i < t->nvtx.n; i++) {
		const struct gpt_nvtx *a = &t->nvtx.v[i];
		if (a->end < a->start) {
			fprintf(stderr, "nvtx: range \"%s\" ends before it starts\n",
				gpt_reader_string_or(t->r, a->message, "?"));
			bad++;
		}
		if (a->type == GPT_NVTX_PUSH_POP) {
			idx[n++] = i;
		}
	}
	sort_base = t->nvtx.v;
	qsort(idx, n, sizeof(*idx), cmp_range);
	for (size_t k = 0; k < n && bad < 20; k++) {
		const struct gpt_nvtx *a = &t->nvtx.v[idx[k]];
		if (k && (t->nvtx.v[idx[k - 1]].start_tid != a->start_tid ||
			  t->nvtx.v[idx[k - 1]].domain != a->domain)) {
			sp = 0;
		}
		while (sp && t->nvtx.v[stack[sp - 1]].end <= a->start &&
		       !(t->nvtx.v[stack[sp - 1]].end == a->start &&
			 t->nvtx.v[stack[sp - 1]].start == a->start &&
			 t->nvtx.v[stack[sp - 1]].depth < a->depth)) {
			sp--;
		}
		if (sp && t->nvtx.v[stack[sp - 1]].end < a->end) {
			fprintf(stderr, "nvtx: ranges \"%s\" and \"%s\" overlap on thread %u\n",
				gpt_reader_string_or(t->r, t->nvtx.v[stack[sp - 1]].message, "?"),
				gpt_reader_string_or(t->r, a->message, "?"), a->start_tid);
			bad++;
		}
		if (a->depth != sp) {
			fprintf(stderr,
				"nvtx: range \"%s\" on thread %u has depth %u inside %zu ranges\n",
				gpt_reader_string_or(t->r, a->message, "?"), a->start_tid, a->depth,
				sp);
			bad++;
		}
		stack[sp++] = idx[k];
	}
	free(idx);
	free(stack);
	return bad;
}

static int cmd_compare(const char *trace_path, const char *expect_path, bool subset)
{
	FILE *f = fopen(expect_path, "r");
	bool want[GPT_KIND__MAX] = {0};
	char **exp = NULL, **got = NULL;
	size_t nexp = 0, ngot = 0;
	uint64_t dropped = 0;
	char line[65536];
	struct trace t = {0};
	int bad = 0;
	GP_VEC(char *) contains = {0};

	if (!f) {
		fprintf(stderr, "check-trace: cannot open %s\n", expect_path);
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == 'K' && line[1] == ' ') {
			const struct gpt_kind_info *ki = gpt_kind_by_name(line + 2);
			if (ki) {
				want[ki->kind] = true;
			}
		} else if (line[0] == 'R' && line[1] == ' ') {
			push_line(&exp, &nexp, strdup(line + 2));
		} else if (line[0] == 'D' && line[1] == ' ') {
			dropped += strtoull(line + 2, NULL, 10);
		} else if (line[0] == 'C' && line[1] == ' ') {
			gp_vec_push(&contains, strdup(line + 2));
		}
	}
	fclose(f);
	if (load(trace_path, &t, want, &got, &ngot)) {
		return 1;
	}
	qsort(exp, nexp, sizeof(*exp), cmp_str);
	qsort(got, ngot, sizeof(*got), cmp_str);
	size_t i = 0, j = 0, shown = 0;
	while (i < nexp || j < ngot) {
		int c = i == nexp ? 1 : j == ngot ? -1 : strcmp(exp[i], got[j]);
		if (c == 0) {
			i++;
			j++;
			continue;
		}
		if (c > 0 && subset) {
			j++;
			continue;
		}
		bad++;
		if (shown++ < 12) {
			fprintf(stderr, "%s: %s\n", c < 0 ? "missing" : "unexpected",
				c < 0 ? exp[i] : got[j]);
		}
		if (c < 0) {
			i++;
		} else {
			j++;
		}
	}
	if (bad) {
		fprintf(stderr, "compare: %d differences (%zu expected, %zu in the trace)\n", bad,
			nexp, ngot);
	}
	uint64_t lost = t.loss[GPT_LOSS_CUPTI_DROPPED] + t.loss[GPT_LOSS_POOL_EXHAUSTED];
	if (lost != dropped && !subset) {
		fprintf(stderr,
			"compare: %" PRIu64 " records dropped, the trace counts %" PRIu64 "\n",
			dropped, lost);
		bad++;
	}
	bad += check_nesting(&t);
	for (size_t k = 0; k < contains.n; k++) {
		char msg[1024];
		unsigned corr = 0;
		const struct gpt_nvtx *range = NULL;
		const struct gpt_api *api = NULL;
		if (sscanf(contains.v[k], "%1023s %u", msg, &corr) != 2) {
			continue;
		}
		for (size_t a = 0; a < t.nvtx.n; a++) {
			const char *m = gpt_reader_string(t.r, t.nvtx.v[a].message);
			if (m && !strcmp(m, msg)) {
				range = &t.nvtx.v[a];
			}
		}
		for (size_t a = 0; a < t.api.n; a++) {
			if (t.api.v[a].correlation == corr) {
				api = &t.api.v[a];
			}
		}
		if (!range || !api) {
			fprintf(stderr, "contains: range \"%s\" or API %u missing\n", msg, corr);
			bad++;
		} else if (!(range->start <= api->start && api->end <= range->end)) {
			fprintf(stderr,
				"contains: API %u [%" PRIu64 ", %" PRIu64
				"] is not inside \"%s\" [%" PRIu64 ", %" PRIu64 "]\n",
				corr, api->start, api->end, msg, range->start, range->end);
			bad++;
		}
	}
	printf("compare: %zu records, %" PRIu64 " dropped: %s\n", nexp, dropped,
	       bad ? "FAILED" : "ok");
	for (size_t k = 0; k < nexp; k++) {
		free(exp[k]);
	}
	for (size_t k = 0; k < ngot; k++) {
		free(got[k]);
	}
	for (size_t k = 0; k < contains.n; k++) {
		free(contains.v[k]);
	}
	free(exp);
	free(got);
	gp_vec_free(&contains);
	trace_release(&t);
	return bad ? 1 : 0;
}

struct count {
	char *name;
	uint64_t n;
};

struct counts {
	struct count *v;
	size_t n, cap;
	struct gp_u64map by_hash; /* the name's hash: its index + 1 (a flight file holds millions) */
};

static void count_add(struct counts *v, const char *name)
{
	uint64_t h = gp_hash_bytes(name, strlen(name));
	uint64_t at = gp_u64map_get(&v->by_hash, h, 0);

	if (at && !strcmp(v->v[at - 1].name, name)) {
		v->v[at - 1].n++;
		return;
	}
	for (size_t i = 0; at && i < v->n; i++) { /* another name of that hash: look them over */
		if (!strcmp(v->v[i].name, name)) {
			v->v[i].n++;
			return;
		}
	}
	struct count c = {strdup(name), 1};
	if (!gp_vec_push(v, c) && !at) {
		gp_u64map_put(&v->by_hash, h, v->n);
	}
}

static int cmd_stat(const char *path)
{
	struct gpt_reader *r;
	struct gpt_chunk c;
	struct gpt_reader_status st;
	struct counts kernels = {0}, nvtx = {0}, apis = {0};
	struct gp_strbuf configs = GP_STRBUF_INIT;
	uint64_t events = 0, first = UINT64_MAX, last = 0, bytes = 0, loss[GPT_LOSS__MAX] = {0};
	const char *status = "";
	int exit_status = -1000;
	int ret;

	if (open_trace(path, &r)) {
		return 1;
	}
	while ((ret = gpt_reader_next(r, &c)) > 0) {
		bool ev = c.kind >= GPT_KIND_KERNEL && c.kind != GPT_KIND_NAME;
		if (ev) {
			events += c.count;
		}
		for (uint32_t i = 0; i < c.count; i++) {
			const void *rec = (const uint8_t *)c.records + (size_t)i * c.info->size;
			if (ev && c.info->time_field) {
				const struct gpt_field *tf =
					gpt_kind_field(c.info, c.info->time_field);
				uint64_t s = gpt_field_get(tf, rec), e = s;
				if (c.info->end_field) {
					e = gpt_field_get(gpt_kind_field(c.info, c.info->end_field),
							  rec);
				}
				if (s && s < first) {
					first = s;
				}
				if (e > last) {
					last = e;
				}
			}
			switch (c.kind) {
			case GPT_KIND_KERNEL: {
				const struct gpt_kernel *k = rec;
				const char *name = gpt_reader_string_or(r, k->name, "?");
				size_t before = kernels.n;
				count_add(&kernels, name);
				if (kernels.n > before) {
					/* a kernel's launch configuration, when first seen */
					gp_strbuf_addf(
						&configs,
						"config %s %llu %llu %u %d %d grid=%dx%dx%d "
						"block=%dx%dx%d\n",
						name,
						/* unsigned: random test values may wrap */
						(unsigned long long)(uint32_t)k->grid_x *
							(uint32_t)k->grid_y * (uint32_t)k->grid_z,
						(unsigned long long)(uint32_t)k->block_x *
							(uint32_t)k->block_y * (uint32_t)k->block_z,
						k->registers, k->static_smem, k->dynamic_smem,
						k->grid_x, k->grid_y, k->grid_z, k->block_x,
						k->block_y, k->block_z);
				}
				break;
			}
			case GPT_KIND_API:
				count_add(&apis,
					  gpt_reader_string_or(
						  r, ((const struct gpt_api *)rec)->name, "?"));
				break;
			case GPT_KIND_NVTX:
				count_add(&nvtx,
					  gpt_reader_string_or(
						  r, ((const struct gpt_nvtx *)rec)->message, "?"));
				break;
			case GPT_KIND_MEMCPY:
				bytes += ((const struct gpt_memcpy *)rec)->bytes;
				break;
			case GPT_KIND_LOSS: {
				const struct gpt_loss *l = rec;
				if (l->cause < GPT_LOSS__MAX) {
					loss[l->cause] += l->count;
				}
				break;
			}
			case GPT_KIND_PROCESS: {
				const struct gpt_process *p = rec;
				status = gpt_reader_string_or(r, p->status, "");
				if (p->phase == 2) {
					exit_status = p->exit_status;
				}
				break;
			}
			default:
				break;
			}
		}
	}
	gpt_reader_get_status(r, &st);
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		if (st.records[k]) {
			printf("records %s %" PRIu64 "\n", gpt_kind_info(k)->name, st.records[k]);
		}
	}
	for (size_t i = 0; i < kernels.n; i++) {
		printf("kernel %s %" PRIu64 "\n", kernels.v[i].name, kernels.v[i].n);
	}
	for (size_t i = 0; i < nvtx.n; i++) {
		printf("nvtx %s %" PRIu64 "\n", nvtx.v[i].name, nvtx.v[i].n);
	}
	for (size_t i = 0; i < apis.n; i++) {
		printf("api %s %" PRIu64 "\n", apis.v[i].name, apis.v[i].n);
	}
	fputs(configs.buf, stdout);
	static const char *const causes[] = {"",     "cupti",  "pool",	     "nvtx",
					     "nccl", "writer", "unfinished", "deadline"};
	for (unsigned k = 1; k < GPT_LOSS__MAX; k++) {
		if (loss[k]) {
			printf("loss %s %" PRIu64 "\n", causes[k], loss[k]);
		}
	}
	printf("events %" PRIu64 "\n", events);
	printf("span_ns %" PRIu64 "\n", last > first ? last - first : 0);
	printf("memcpy_bytes %" PRIu64 "\n", bytes);
	printf("footer %s\n", st.has_footer ? "yes" : "no");
	printf("truncated %s\n", st.truncated ? "yes" : "no");
	printf("problems %" PRIu64 "\n", st.problems);
	if (exit_status != -1000) {
		printf("process-exit %d\n", exit_status);
	}
	printf("status %s\n", status);
	for (size_t i = 0; i < kernels.n; i++) {
		free(kernels.v[i].name);
	}
	for (size_t i = 0; i < nvtx.n; i++) {
		free(nvtx.v[i].name);
	}
	for (size_t i = 0; i < apis.n; i++) {
		free(apis.v[i].name);
	}
	gp_vec_free(&kernels);
	gp_vec_free(&nvtx);
	gp_vec_free(&apis);
	gp_u64map_release(&kernels.by_hash);
	gp_u64map_release(&nvtx.by_hash);
	gp_u64map_release(&apis.by_hash);
	gp_strbuf_release(&configs);
	gpt_reader_free(r);
	return ret < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "compare")) {
		return cmd_compare(argv[2], argv[3], false);
	}
	if (argc == 4 && !strcmp(argv[1], "subset")) {
		return cmd_compare(argv[2], argv[3], true);
	}
	if (argc == 3 && !strcmp(argv[1], "stat")) {
		return cmd_stat(argv[2]);
	}
	if (argc == 3 && !strcmp(argv[1], "nvtx")) {
		struct trace t = {0};
		if (load(argv[2], &t, NULL, NULL, NULL)) {
			return 1;
		}
		int bad = check_nesting(&t);
		printf("nvtx: %zu ranges: %s\n", t.nvtx.n, bad ? "FAILED" : "ok");
		trace_release(&t);
		return bad ? 1 : 0;
	}
	fprintf(stderr, "usage: check-trace compare TRACE EXPECT | stat TRACE | nvtx TRACE\n");
	return 2;
}
