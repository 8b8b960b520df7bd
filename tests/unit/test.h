/* SPDX-License-Identifier: MIT */
/*
 * test.h - the unit-test harness. Each TEST() is registered at load time
 * and runs in its own forked child, so a crash fails one case, not the run.
 * Failed checks print the expression and both values.
 *
 * Output, one line per case: "ok <binary> <case>" or
 * "FAIL <binary> <case>: <detail>"; tests/run-one.sh counts them.
 * Arguments: an optional substring selects cases; -n runs without forking.
 */
#ifndef GP_TEST_H
#define GP_TEST_H

#include "base/compat.h"

#include <stdio.h>

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn);
extern int test_failures; /* in the current case */

#define TEST(name)                                                                                 \
	static void test_##name(void);                                                             \
	__attribute__((constructor)) static void reg_##name(void)                                  \
	{                                                                                          \
		test_register(#name, test_##name);                                                 \
	}                                                                                          \
	static void test_##name(void)

#define TFAIL(...)                                                                                 \
	do {                                                                                       \
		fprintf(stderr, "  %s:%d: ", __FILE__, __LINE__);                                  \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fputc('\n', stderr);                                                               \
		test_failures++;                                                                   \
	} while (0)

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			TFAIL("check failed: %s", #cond);                                          \
		}                                                                                  \
	} while (0)

#define CHECK_EQ_U(a, b)                                                                           \
	do {                                                                                       \
		unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);     \
		if (a_ != b_) {                                                                    \
			TFAIL("%s == %s: %llu != %llu", #a, #b, a_, b_);                           \
		}                                                                                  \
	} while (0)

#define CHECK_EQ_I(a, b)                                                                           \
	do {                                                                                       \
		long long a_ = (long long)(a), b_ = (long long)(b);                                \
		if (a_ != b_) {                                                                    \
			TFAIL("%s == %s: %lld != %lld", #a, #b, a_, b_);                           \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                                \
			TFAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, a_ ? a_ : "(null)",            \
			      b_ ? b_ : "(null)");                                                 \
		}                                                                                  \
	} while (0)

#define CHECK_CONTAINS(hay, needle)                                                                \
	do {                                                                                       \
		const char *h_ = (hay), *n_ = (needle);                                            \
		if (!h_ || !strstr(h_, n_)) {                                                      \
			TFAIL("%s contains \"%s\": got \"%s\"", #hay, n_, h_ ? h_ : "(null)");     \
		}                                                                                  \
	} while (0)

/* Stop the case here if anything failed so far (for checks later ones depend on). */
#define REQUIRE(cond)                                                                              \
	do {                                                                                       \
		CHECK(cond);                                                                       \
		if (test_failures) {                                                               \
			return;                                                                    \
		}                                                                                  \
	} while (0)

/* A scratch directory for the case, removed by the harness afterwards. */
const char *test_tmpdir(void);

/*
 * The real traces beside the checkout: SUB under $GPUPROF_ANCHORS, else under
 * ../shared/anchors (from $TOP, or from the working directory or its parent);
 * NULL when it is not there, and the case skips what needs it. In CI (CI=true)
 * the anchors are expected: a missing SUB also fails the case.
 */
const char *test_anchors(const char *sub);

/*
 * How many of N seeded random cases to run: N, but a quarter of them (at least one) in a
 * sanitized build (which CI runs, and make check), where each case costs several times as
 * much; all N there too under GPUPROF_STRESS=1 (make stress). The plain build's make test
 * runs all N (docs/dev/testing.md). A case that counts what its cases reached scales its
 * thresholds the same way.
 */
unsigned test_sampled(unsigned n);

#endif /* GP_TEST_H */
