/* SPDX-License-Identifier: MIT */
/*
 * Tests of CPU call stacks in the model (analyze/stacks.c): stacks written
 * by hand whose pcs point into this test binary's own functions, so the
 * expected names are known; and damaged stack records (missing nodes,
 * parent links that would loop, absurd depths, empty modules), which must
 * be skipped and counted, never crash or hang.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/stacks.h"
#include "tests/unit/test.h"

#include <link.h>
#include <stdio.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline, used)) void stk_outer(void)
{
	sink += 1;
	sink *= 3;
}

__attribute__((noinline, used)) void stk_inner(void)
{
	sink += 2;
	sink *= 5;
}

/* gpuns::Demo::run(), by its mangled name */
__attribute__((noinline, used)) void stk_cxx(void) __asm__("_ZN5gpuns4Demo3runEv");
__attribute__((noinline, used)) void stk_cxx(void)
{
	sink += 3;
	sink *= 7;
}

struct self_mod {
	uint64_t base, lo, hi;
};

static int find_exe(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct self_mod *sm = arg;

	(void)size;
	sm->base = info->dlpi_addr;
	sm->lo = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD) {
			uint64_t a = info->dlpi_addr + ph->p_vaddr;
			sm->lo = a < sm->lo ? a : sm->lo;
			sm->hi = a + ph->p_memsz > sm->hi ? a + ph->p_memsz : sm->hi;
		}
	}
	return 1; /* the first object is the executable */
}

struct tw {
	struct gpt_writer *w;
	char path[512];
};

static void tw_open(struct tw *t, const char *name)
{
	snprintf(t->path, sizeof(t->path), "%s/%s", test_tmpdir(), name);
	CHECK_EQ_I(gpt_writer_open(t->path, NULL, &t->w), 0);
}

static uint32_t S(struct tw *t, const char *s)
{
	uint32_t id = 0;
	CHECK_EQ_I(gpt_writer_intern_cstr(t->w, s, &id), 0);
	return id;
}

static void add_api(struct tw *t, uint64_t start, uint32_t corr, const char *name)
{
	struct gpt_api a = {.start = start, .end = start + 100, .tid = 11, .domain = 1,
			    .name = S(t, name), .correlation = corr};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_API, &a), 0);
}

static void add_node(struct tw *t, uint32_t id, uint32_t parent, uint64_t pc)
{
	struct gpt_stack_node n = {.id = id, .parent = parent, .pc = pc};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_STACK_NODE, &n), 0);
}

static void add_stack(struct tw *t, uint32_t corr, uint32_t node)
{
	struct gpt_stack s = {.ts = 1000 + corr, .correlation = corr, .tid = 11, .node = node,
			      .method = GPT_STACK_FP};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_STACK, &s), 0);
}

static void add_module(struct tw *t, uint32_t id, const char *path, uint64_t base, uint64_t lo,
		       uint64_t hi, const char *build_id)
{
	struct gpt_module m = {.ts = 5, .id = id, .path = S(t, path), .base = base, .lo = lo,
			       .hi = hi, .build_id = build_id ? S(t, build_id) : 0};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_MODULE, &m), 0);
}

static bool load1(struct gpa_model *m, const char *path)
{
	char err[256] = "";
	const char *paths[] = {path};

	if (gpa_model_load(m, paths, 1, NULL, err, sizeof(err))) {
		TFAIL("load: %s", err);
		return false;
	}
	return true;
}

/* The API row with this correlation id. */
static uint32_t row_of(const struct gpa_model *m, uint32_t corr)
{
	for (uint32_t i = 0; i < m->api.n; i++) {
		if (m->api.corr[i] == corr) {
			return i;
		}
	}
	return GPA_NONE;
}

/* A pc as a stack holds it: a return address inside fn. */
static uint64_t ret_in(void (*fn)(void))
{
	return (uint64_t)(uintptr_t)fn + 2;
}

TEST(stacks_symbolized_from_own_binary)
{
	struct self_mod sm = {0};
	char exe[1024];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct tw t;
	struct gpa_model m;

	REQUIRE(n > 0);
	exe[n] = '\0';
	dl_iterate_phdr(find_exe, &sm);
	REQUIRE(sm.hi > sm.lo);
	tw_open(&t, "self.gpz");
	add_module(&t, 1, exe, sm.base, sm.lo, sm.hi, NULL);
	/* a module whose file does not exist: its frames are named module+offset */
	add_module(&t, 2, "/nonexistent/libgone.so.3", 0x7f0000000000ull, 0x7f0000000000ull,
		   0x7f0000100000ull, "00ff");
	add_node(&t, 1, 0, ret_in(stk_outer));
	add_node(&t, 2, 1, ret_in(stk_cxx));
	add_node(&t, 3, 2, ret_in(stk_inner));
	add_node(&t, 4, 2, 0x7f0000001235ull); /* in libgone */
	add_node(&t, 5, 4, 0x10);              /* in no module */
	add_api(&t, 100, 1, "cudaLaunchKernel");
	add_api(&t, 200, 2, "cuLaunchKernel");
	add_api(&t, 300, 3, "cudaMemcpy");
	add_api(&t, 400, 4, "cudaLaunchKernel"); /* no stack */
	add_stack(&t, 1, 3);
	add_stack(&t, 2, 3); /* a nested call shares the stack */
	add_stack(&t, 3, 5);
	CHECK_EQ_I(gpt_writer_close(t.w), 0);

	if (!load1(&m, t.path)) {
		return;
	}
	uint32_t a1 = row_of(&m, 1), a2 = row_of(&m, 2), a3 = row_of(&m, 3), a4 = row_of(&m, 4);
	REQUIRE(a1 != GPA_NONE && a2 != GPA_NONE && a3 != GPA_NONE && a4 != GPA_NONE);
	CHECK_EQ_U(gpa_api_stack_depth(&m, a1), 3);
	CHECK_STR(gpa_api_stack_frame(&m, a1, 0), "stk_outer");
	CHECK_STR(gpa_api_stack_frame(&m, a1, 1), "gpuns::Demo::run()");
	CHECK_STR(gpa_api_stack_frame(&m, a1, 2), "stk_inner");
	CHECK(gpa_api_stack_frame(&m, a1, 3) == NULL);
	CHECK_EQ_U(gpa_api_stack_pc(&m, a1, 2), ret_in(stk_inner));
	CHECK_EQ_U(gpa_api_stack_depth(&m, a2), 3);
	CHECK_STR(gpa_api_stack_frame(&m, a2, 2), "stk_inner");
	CHECK_EQ_U(gpa_api_stack_depth(&m, a3), 4);
	CHECK_STR(gpa_api_stack_frame(&m, a3, 2), "libgone.so.3+0x1235");
	CHECK_STR(gpa_api_stack_frame(&m, a3, 3), "0x10");
	/* the strings stay valid while other rows are asked for */
	const char *kept = gpa_api_stack_frame(&m, a1, 0);
	CHECK_STR(gpa_api_stack_frame(&m, a3, 0), "stk_outer");
	CHECK(kept == gpa_api_stack_frame(&m, a1, 0));
	CHECK_EQ_U(gpa_api_stack_depth(&m, a4), 0);
	CHECK(gpa_api_stack_frame(&m, a4, 0) == NULL);
	CHECK_EQ_U(gpa_api_stack_depth(&m, (uint32_t)m.api.n), 0);
	CHECK_EQ_U(gpa_api_stack_depth(&m, GPA_NONE), 0);

	struct gpa_stack_info si;
	gpa_stacks_get_info(&m, &si);
	CHECK_EQ_U(si.nodes, 5);
	CHECK_EQ_U(si.stacks, 3);
	CHECK_EQ_U(si.api_rows, 3);
	CHECK_EQ_U(si.modules, 2);
	CHECK_EQ_U(si.unreadable_modules, 1);
	CHECK_EQ_U(si.bad_nodes + si.bad_parents + si.bad_stacks + si.bad_modules, 0);
	gpa_model_release(&m);
}

TEST(stacks_other_build_not_trusted)
{
	struct self_mod sm = {0};
	char exe[1024];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct tw t;
	struct gpa_model m;

	REQUIRE(n > 0);
	exe[n] = '\0';
	dl_iterate_phdr(find_exe, &sm);
	tw_open(&t, "other.gpz");
	/* the same path, recorded with another build-id: no symbols from this file */
	add_module(&t, 1, exe, sm.base, sm.lo, sm.hi, "0123456789abcdef0123456789abcdef01234567");
	add_node(&t, 1, 0, ret_in(stk_inner));
	add_api(&t, 100, 1, "cudaLaunchKernel");
	add_stack(&t, 1, 1);
	CHECK_EQ_I(gpt_writer_close(t.w), 0);
	if (!load1(&m, t.path)) {
		return;
	}
	const char *f = gpa_api_stack_frame(&m, row_of(&m, 1), 0);
	REQUIRE(f != NULL);
	const char *slash = strrchr(exe, '/');
	char want[1100];
	snprintf(want, sizeof(want), "%s+0x%" PRIx64, slash + 1, ret_in(stk_inner) - sm.base);
	CHECK_STR(f, want);
	struct gpa_stack_info si;
	gpa_stacks_get_info(&m, &si);
	CHECK_EQ_U(si.build_id_mismatch, 1);
	gpa_model_release(&m);
}

TEST(stacks_bad_records_counted)
{
	struct tw t;
	struct gpa_model m;

	tw_open(&t, "bad.gpz");
	add_module(&t, 1, "/nonexistent/a", 0, 0x2000, 0x1000, NULL); /* empty range */
	add_node(&t, 0, 0, 0x100);   /* id 0 */
	add_node(&t, 1, 0, 0x111);
	add_node(&t, 1, 0, 0x222);   /* defined twice: the first stays */
	add_node(&t, 2, 9, 0x333);   /* parent missing */
	add_node(&t, 3, 4, 0x444);   /* parent not below its id ... */
	add_node(&t, 4, 3, 0x555);   /* ... so 3 <-> 4 cannot loop */
	add_node(&t, 5, 5, 0x666);   /* its own parent */
	add_api(&t, 100, 1, "a");
	add_api(&t, 200, 2, "b");
	add_api(&t, 300, 3, "c");
	add_api(&t, 400, 4, "d");
	add_api(&t, 500, 5, "e");
	add_stack(&t, 1, 1);
	add_stack(&t, 2, 2);
	add_stack(&t, 3, 4);
	add_stack(&t, 4, 77); /* a node the file lacks */
	add_stack(&t, 5, 5);
	add_stack(&t, 6, 0);  /* nothing captured, no API row */
	CHECK_EQ_I(gpt_writer_close(t.w), 0);
	if (!load1(&m, t.path)) {
		return;
	}
	CHECK_EQ_U(gpa_api_stack_depth(&m, row_of(&m, 1)), 1);
	CHECK_STR(gpa_api_stack_frame(&m, row_of(&m, 1), 0), "0x111");
	CHECK_EQ_U(gpa_api_stack_depth(&m, row_of(&m, 2)), 1);
	CHECK_EQ_U(gpa_api_stack_depth(&m, row_of(&m, 3)), 2);
	CHECK_STR(gpa_api_stack_frame(&m, row_of(&m, 3), 0), "0x444");
	CHECK_STR(gpa_api_stack_frame(&m, row_of(&m, 3), 1), "0x555");
	CHECK_EQ_U(gpa_api_stack_depth(&m, row_of(&m, 4)), 0);
	CHECK_EQ_U(gpa_api_stack_depth(&m, row_of(&m, 5)), 1);
	struct gpa_stack_info si;
	gpa_stacks_get_info(&m, &si);
	CHECK_EQ_U(si.bad_nodes, 2);
	CHECK_EQ_U(si.bad_parents, 3);
	CHECK_EQ_U(si.bad_stacks, 1);
	CHECK_EQ_U(si.bad_modules, 1);
	CHECK_EQ_U(si.api_rows, 4);
	gpa_model_release(&m);
}

TEST(stacks_absurd_depth_bounded)
{
	struct tw t;
	struct gpa_model m;
	const uint32_t chain = 5000;

	tw_open(&t, "deep.gpz");
	for (uint32_t i = 1; i <= chain; i++) {
		add_node(&t, i, i - 1, 0x1000 + i);
	}
	add_api(&t, 100, 1, "deep");
	struct gpt_stack s = {.ts = 1, .correlation = 1, .tid = 11, .node = chain, .depth = 65535};
	CHECK_EQ_I(gpt_writer_add(t.w, GPT_KIND_STACK, &s), 0);
	CHECK_EQ_I(gpt_writer_close(t.w), 0);
	if (!load1(&m, t.path)) {
		return;
	}
	uint32_t a = row_of(&m, 1);
	/* the innermost GPA_STACK_MAX_FRAMES frames, outermost first */
	CHECK_EQ_U(gpa_api_stack_depth(&m, a), GPA_STACK_MAX_FRAMES);
	char want[32];
	snprintf(want, sizeof(want), "0x%x", 0x1000 + chain);
	CHECK_STR(gpa_api_stack_frame(&m, a, GPA_STACK_MAX_FRAMES - 1), want);
	snprintf(want, sizeof(want), "0x%x", 0x1000 + chain - GPA_STACK_MAX_FRAMES + 1);
	CHECK_STR(gpa_api_stack_frame(&m, a, 0), want);
	gpa_model_release(&m);
}

TEST(stacks_none_in_old_traces)
{
	struct tw t;
	struct gpa_model m;

	tw_open(&t, "plain.gpz");
	add_api(&t, 100, 1, "cudaLaunchKernel");
	CHECK_EQ_I(gpt_writer_close(t.w), 0);
	if (!load1(&m, t.path)) {
		return;
	}
	CHECK(m.stacks == NULL);
	CHECK_EQ_U(gpa_api_stack_depth(&m, 0), 0);
	CHECK(gpa_api_stack_frame(&m, 0, 0) == NULL);
	struct gpa_stack_info si;
	gpa_stacks_get_info(&m, &si);
	CHECK_EQ_U(si.nodes + si.stacks + si.modules, 0);
	gpa_model_release(&m);
}
