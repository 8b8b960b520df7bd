/* SPDX-License-Identifier: MIT */
/*
 * progress.c - a progress line on stderr for long loads, imports, conversions
 * and exports: "gpuprof: importing  42% 120.4 of 286.9 MB, 1,234,567 records,
 * 85.2 MB/s, 2 s left". The libraries report through a struct gp_progress_cb;
 * this file alone draws. Shown only when stderr is a terminal, --quiet was not
 * given, and the job has run for a second (GPUPROF_PROGRESS_AFTER, in
 * milliseconds, changes that); at most ten updates a second; the line is
 * erased when the job ends, so nothing of it stays in the output.
 */
#include "base/compat.h"
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>


/* 1234567 -> "1,234,567" */
static void add_count(struct gp_strbuf *sb, uint64_t v)
{
	char d[24];
	int n = snprintf(d, sizeof(d), "%" PRIu64, v);

	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0) {
			gp_strbuf_addch(sb, ',');
		}
		gp_strbuf_addch(sb, d[i]);
	}
}

/* A quantity of unit: bytes in MB with one decimal, anything else counted. */
static void add_amount(struct gp_strbuf *sb, uint64_t v, bool bytes)
{
	if (bytes) {
		gp_strbuf_addf(sb, "%.1f MB", (double)v / 1e6);
	} else {
		add_count(sb, v);
	}
}

void cli_progress_line(struct gp_strbuf *sb, const struct gp_progress *p, uint64_t elapsed_ns)
{
	bool bytes = p->unit && !strcmp(p->unit, "bytes");
	double secs = (double)elapsed_ns / 1e9;

	gp_strbuf_addf(sb, "gpuprof: %s", p->what ? p->what : "working");
	if (p->total) {
		uint64_t done = p->done < p->total ? p->done : p->total;

		gp_strbuf_addf(sb, " %3u%% ", (unsigned)(done * 100 / p->total));
		add_amount(sb, done, bytes);
		gp_strbuf_adds(sb, " of ");
		add_amount(sb, p->total, bytes);
	} else {
		gp_strbuf_addch(sb, ' ');
		add_amount(sb, p->done, bytes);
	}
	if (!bytes && p->unit) {
		gp_strbuf_addf(sb, " %s", p->unit);
	}
	if (p->records) {
		gp_strbuf_adds(sb, ", ");
		add_count(sb, p->records);
		gp_strbuf_adds(sb, " records");
	}
	if (secs > 0 && p->done) {
		double rate = (double)p->done / secs;

		gp_strbuf_adds(sb, ", ");
		if (bytes) {
			gp_strbuf_addf(sb, "%.1f MB/s", rate / 1e6);
		} else {
			add_count(sb, (uint64_t)rate);
			gp_strbuf_addf(sb, " %s/s", p->unit ? p->unit : "");
		}
		if (p->total > p->done) {
			gp_strbuf_addf(sb, ", %.0f s left", (double)(p->total - p->done) / rate + 0.5);
		}
	}
}

void cli_progress_start(struct cli_progress *pr, bool quiet)
{
	const char *after = getenv("GPUPROF_PROGRESS_AFTER");
	char *end;
	unsigned long ms = 1000;

	memset(pr, 0, sizeof(*pr));
	if (after && *after) {
		ms = strtoul(after, &end, 10);
		if (*end) {
			ms = 1000;
		}
	}
	pr->on = !quiet && !cli_capturing() && isatty(STDERR_FILENO);
	pr->t0 = gp_clock_monotonic_ns();
	pr->delay_ns = (uint64_t)ms * 1000000u;
}

void cli_progress_fn(const struct gp_progress *p, void *data)
{
	struct cli_progress *pr = data;
	struct gp_strbuf sb = GP_STRBUF_INIT;
	uint64_t now = gp_clock_monotonic_ns();

	if (!pr->on || now - pr->t0 < pr->delay_ns || (pr->shown && now - pr->last < 100000000u)) {
		return;
	}
	pr->last = now;
	pr->shown = true;
	cli_progress_line(&sb, p, now - pr->t0);
	if (!sb.failed) {
		/* \r and erase to the end of the line: a shorter line leaves nothing behind. */
		fprintf(stderr, "\r%s\033[K", sb.buf);
		fflush(stderr);
	}
	gp_strbuf_release(&sb);
}

void cli_progress_end(struct cli_progress *pr)
{
	if (pr->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		pr->shown = false;
	}
}
