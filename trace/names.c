/* SPDX-License-Identifier: MIT */
/*
 * names.c - names interned by pattern: a name with a number that changes
 * from one use to the next ("ProfilerStep#437", "iter 12 of 100",
 * "step_0045") is kept as its pattern (the name with that number replaced
 * by GPT_NAME_NUMBER_MARK) plus the number, so that a flight ring's string
 * table holds one string per pattern, not one per step. The number is a
 * record field (nvtx.message_num); gpt_name_expand gives the name back,
 * byte for byte.
 *
 * Which number: the names of one shape (the name with every run of digits
 * taken out) are compared as they come; the run that changed between two
 * of them is the one taken out from then on. The first name of a shape is
 * interned whole, and so is a name whose numbers have not changed yet
 * ("aten::conv2d", "layer3"). The table of shapes is bounded; past it a
 * name of a new shape gives its last run.
 *
 * Obeys the inject/ contract (STYLE.md section 8): runs on the writer
 * thread, allocates, never prints.
 */
#include "base/compat.h"
#include "trace/format.h"


#define MAX_RUNS 4
#define MAX_DIGITS 17 /* 10^17 < 2^57: the value and its width fit in 62 bits */
#define MAX_SHAPES 4096

struct gpt_name_shape {
	uint64_t hash; /* 0: free */
	uint64_t nums[MAX_RUNS];
	uint8_t nruns;
	int8_t chosen; /* the run taken out, -1 none yet */
};

struct run {
	size_t at, len;
	uint64_t num; /* value << 5 | digits */
};

/* The runs of 1..MAX_DIGITS digits (at most MAX_RUNS of them) and the shape's hash. */
static unsigned find_runs(const char *s, size_t len, struct run *runs, uint64_t *hash)
{
	unsigned n = 0;
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && s[j] >= '0' && s[j] <= '9') {
			j++;
		}
		if (j > i && j - i <= MAX_DIGITS && n < MAX_RUNS) {
			uint64_t v = 0;
			for (size_t k = i; k < j; k++) {
				v = v * 10 + (uint64_t)(s[k] - '0');
			}
			runs[n++] = (struct run){i, j - i, v << 5 | (j - i)};
			h = (h ^ (uint8_t)GPT_NAME_NUMBER_MARK) * 1099511628211ull;
			i = j;
			continue;
		}
		for (j = j > i ? j : i + 1; i < j; i++) {
			h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
		}
	}
	*hash = h | 1; /* never 0, the free slot's */
	return n;
}

/* The run of s to take out (-1: intern s whole), learning from the shape's last name. */
static int choose_run(struct gpt_name_shapes *t, const struct run *runs, unsigned n, uint64_t h)
{
	if (!t->slots) {
		t->slots = calloc(MAX_SHAPES, sizeof(*t->slots));
		if (!t->slots) {
			return (int)n - 1;
		}
	}
	size_t j = h & (MAX_SHAPES - 1);
	for (size_t probe = 0; probe < MAX_SHAPES; probe++, j = (j + 1) & (MAX_SHAPES - 1)) {
		struct gpt_name_shape *e = &t->slots[j];
		if (!e->hash) {
			if (t->n >= MAX_SHAPES * 3 / 4) {
				break; /* full: no more learning */
			}
			*e = (struct gpt_name_shape){.hash = h, .nruns = (uint8_t)n, .chosen = -1};
			for (unsigned i = 0; i < n; i++) {
				e->nums[i] = runs[i].num;
			}
			t->n++;
			return -1;
		}
		if (e->hash != h || e->nruns != n) {
			continue;
		}
		if (e->chosen < 0) {
			for (unsigned i = 0; i < n; i++) {
				if (e->nums[i] != runs[i].num) {
					e->chosen = (int8_t)i; /* the last that changed */
				}
			}
		}
		return e->chosen;
	}
	return (int)n - 1;
}

int gpt_name_split(struct gpt_name_shapes *t, const char *s, size_t len, char *pat,
		   size_t *patlen, uint64_t *num)
{
	struct run runs[MAX_RUNS];
	uint64_t h;

	*num = 0;
	if (!len || len > GPT_NAME_PATTERN_MAX || memchr(s, GPT_NAME_NUMBER_MARK, len)) {
		return 0;
	}
	unsigned n = find_runs(s, len, runs, &h);
	int c = n ? choose_run(t, runs, n, h) : -1;
	if (c < 0) {
		return 0;
	}
	const struct run *r = &runs[c];
	memcpy(pat, s, r->at);
	pat[r->at] = GPT_NAME_NUMBER_MARK;
	memcpy(pat + r->at + 1, s + r->at + r->len, len - r->at - r->len);
	*patlen = len - r->len + 1;
	*num = r->num;
	return 1;
}

void gpt_name_shapes_release(struct gpt_name_shapes *t)
{
	free(t->slots);
	t->slots = NULL;
	t->n = 0;
}

/* Appends the text to out (n bytes used of size, one kept for the NUL); returns n. */
static size_t put(char *out, size_t size, size_t n, const char *s, size_t len)
{
	if (n + len >= size) {
		len = size - 1 - n;
	}
	memcpy(out + n, s, len);
	return n + len;
}

size_t gpt_name_expand(const char *pattern, uint64_t num, char *out, size_t size)
{
	const char *m = num ? strchr(pattern, GPT_NAME_NUMBER_MARK) : NULL;
	char digits[24];
	size_t n = 0;

	if (!size) {
		return 0;
	}
	if (!m) {
		n = put(out, size, 0, pattern, strlen(pattern));
		out[n] = '\0';
		return n;
	}
	/* the value, right-aligned, zero-padded to its count of digits (no snprintf: a save does
	 * this for every range of the window) */
	unsigned want = (unsigned)(num & 31), nd = 0;
	uint64_t v = num >> 5;
	do {
		digits[sizeof(digits) - 1 - nd++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && nd < sizeof(digits));
	while (nd < want && nd < sizeof(digits)) {
		digits[sizeof(digits) - 1 - nd++] = '0';
	}
	n = put(out, size, n, pattern, (size_t)(m - pattern));
	n = put(out, size, n, digits + sizeof(digits) - nd, nd);
	n = put(out, size, n, m + 1, strlen(m + 1));
	out[n] = '\0';
	return n;
}
