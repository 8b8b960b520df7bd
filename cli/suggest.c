/* SPDX-License-Identifier: MIT */
/*
 * suggest.c - "did you mean": the known name nearest to a mistyped one, by
 * edit distance with transpositions (reprot -> report, --fromat -> --format).
 */
#include "base/compat.h"
#include "cli/cli.h"

/* Names longer than this are never suggested for or against. */
#define SUGGEST_MAX 64

/* Optimal string alignment distance: insertions, deletions, substitutions, swaps. */
static unsigned distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	unsigned d[SUGGEST_MAX + 1][SUGGEST_MAX + 1];

	if (n > SUGGEST_MAX || m > SUGGEST_MAX) {
		return UINT_MAX;
	}
	for (size_t i = 0; i <= n; i++) {
		d[i][0] = (unsigned)i;
	}
	for (size_t j = 0; j <= m; j++) {
		d[0][j] = (unsigned)j;
	}
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned v = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < v) {
				v = d[i - 1][j] + 1;
			}
			if (d[i][j - 1] + 1 < v) {
				v = d[i][j - 1] + 1;
			}
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v) {
				v = d[i - 2][j - 2] + 1;
			}
			d[i][j] = v;
		}
	}
	return d[n][m];
}

void cli_suggest_init(struct cli_suggest *s, const char *word)
{
	*s = (struct cli_suggest){.word = word, .dist = UINT_MAX};
}

void cli_suggest_add(struct cli_suggest *s, const char *name)
{
	size_t len = strlen(s->word);
	/* One edit for short words, two from five letters: more suggests nonsense. */
	unsigned d, limit = len >= 5 ? 2 : 1;

	if (!name || !*name) {
		return;
	}
	d = distance(s->word, name);
	if (d > limit || d >= len) {
		return;
	}
	if (d < s->dist) {
		s->best = name;
		s->dist = d;
		s->tie = false;
	} else if (d == s->dist && strcmp(name, s->best)) {
		s->tie = true;
	}
}

const char *cli_suggest_best(const struct cli_suggest *s)
{
	return s->tie ? NULL : s->best;
}
