/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/steps.h"
#include "cli/cli.h"

#include <unistd.h>

static void vmsg(const char *level, const char *fmt, va_list ap)
{
	fprintf(stderr, "gpuprof: %s: ", level);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning", fmt, ap);
	va_end(ap);
}

int cli_usage_error(const char *help, const char *fmt, ...)
{
	va_list ap;
	const char *nl = strchr(help, '\n');

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
	fprintf(stderr, "%.*s\n", nl ? (int)(nl - help) : (int)strlen(help), help);
	return CMD_USAGE;
}

bool cli_write_stdout(const void *buf, size_t len)
{
	if (len && fwrite(buf, 1, len, stdout) != len) {
		cli_error("cannot write to standard output: %s", strerror(errno));
		return false;
	}
	return true;
}

bool cli_write_file(const char *path, const void *buf, size_t len)
{
	struct gp_strbuf tmp = GP_STRBUF_INIT;
	bool ok = false;
	FILE *f;

	/* Written beside the target and renamed over it: a failed write leaves no half file. */
	gp_strbuf_addf(&tmp, "%s.tmp-%ld", path, (long)getpid());
	if (tmp.failed) {
		cli_error("out of memory");
		return false;
	}
	f = fopen(tmp.buf, "wb");
	if (!f) {
		cli_error("cannot create %s: %s", path, strerror(errno));
		goto out;
	}
	if ((len && fwrite(buf, 1, len, f) != len) || fflush(f) || ferror(f)) {
		cli_error("cannot write %s: %s", path, strerror(errno));
		fclose(f);
		remove(tmp.buf);
		goto out;
	}
	if (fclose(f)) {
		cli_error("cannot write %s: %s", path, strerror(errno));
		remove(tmp.buf);
		goto out;
	}
	if (rename(tmp.buf, path)) {
		cli_error("cannot write %s: %s", path, strerror(errno));
		remove(tmp.buf);
		goto out;
	}
	ok = true;
out:
	gp_strbuf_release(&tmp);
	return ok;
}

/* "10us", "1.5ms", "250" (ns), "2s" -> ns; false when malformed or too large. */
bool cli_parse_duration(const char *s, uint64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t ns;
		unsigned digits; /* decimals a value may have */
	} units[] = {{"ns", 1, 0}, {"us", 1000, 3}, {"ms", 1000000, 6}, {"s", 1000000000, 9},
		     {"", 1, 0}};
	uint64_t whole = 0, frac = 0;
	unsigned nfrac = 0;
	const char *p = s;

	if (*p < '0' || *p > '9') {
		return false;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		if (gp_mul_overflow_u64(whole, 10, &whole) ||
		    gp_add_overflow_u64(whole, (uint64_t)(*p - '0'), &whole)) {
			return false;
		}
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (nfrac == 9) {
				return false;
			}
			frac = frac * 10 + (uint64_t)(*p - '0');
			nfrac++;
		}
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(units); i++) {
		if (strcmp(p, units[i].unit)) {
			continue;
		}
		if (nfrac > units[i].digits) {
			return false;
		}
		for (unsigned k = nfrac; k < units[i].digits; k++) {
			frac *= 10;
		}
		return !gp_mul_overflow_u64(whole, units[i].ns, out) &&
		       !gp_add_overflow_u64(*out, frac, out);
	}
	return false;
}

/* ---- loading traces, with progress on a terminal */

struct progress {
	uint64_t t0, last;
	bool shown;
};

static void progress_cb(uint64_t done, uint64_t total, void *data)
{
	struct progress *p = data;
	uint64_t now = gp_clock_monotonic_ns();

	/* Only when loading takes more than a second, ten updates a second at most. */
	if (now - p->t0 < 1000000000u || now - p->last < 100000000u || !total) {
		return;
	}
	p->last = now;
	p->shown = true;
	fprintf(stderr, "\rgpuprof: loading %3u%% (%" PRIu64 " of %" PRIu64 " MB)",
		(unsigned)(done * 100 / total), done / 1000000, total / 1000000);
}

int cli_load_model(struct gpa_model *m, char **args, size_t nargs)
{
	struct progress pr = {.t0 = gp_clock_monotonic_ns()};
	struct gpa_load_opts lo = {0};
	char err[512], **paths = NULL;
	size_t npaths = 0;
	int ret;

	ret = gpa_expand_inputs((const char *const *)args, nargs, &paths, &npaths, err,
				sizeof(err));
	if (ret) {
		cli_error("%s", err);
		return ret;
	}
	if (isatty(STDERR_FILENO)) {
		lo.progress = progress_cb;
		lo.progress_data = &pr;
	}
	ret = gpa_model_load(m, (const char *const *)paths, npaths, &lo, err, sizeof(err));
	if (pr.shown) {
		fputs("\r\033[K", stderr);
	}
	for (size_t i = 0; i < npaths; i++) {
		free(paths[i]);
	}
	free(paths);
	if (ret) {
		cli_error("%s", err);
		return ret;
	}
	for (size_t i = 0; i < m->procs.n; i++) {
		const struct gpa_proc *p = &m->procs.v[i];
		if (p->truncated) {
			cli_warn("%s: truncated; read up to the last whole chunk", p->path);
		}
		if (p->corrupt_chunks) {
			cli_warn("%s: %" PRIu64 " corrupt chunk%s skipped", p->path,
				 p->corrupt_chunks, p->corrupt_chunks == 1 ? "" : "s");
		}
	}
	return 0;
}

int cli_load_steps(struct gpa_model *m, char **args, size_t nargs, const char *step_regex,
		   struct gpa_steps *steps)
{
	char err[512];
	int ret;

	if (cli_load_model(m, args, nargs)) {
		return CMD_ERROR;
	}
	ret = gpa_steps_find(m, step_regex, steps, err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		gpa_model_release(m);
		return ret == -GP_ERR_API ? CMD_USAGE : CMD_ERROR;
	}
	return CMD_OK;
}
