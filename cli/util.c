/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/steps.h"
#include "cli/cli.h"

#include <unistd.h>

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

/* ---- loading traces, with progress on a terminal (cli/progress.c) */

int cli_load_model(struct gpa_model *m, char **args, size_t nargs)
{
	struct cli_progress pr;
	struct gpa_load_opts lo = {.progress = {cli_progress_fn, &pr}};
	char err[512], **paths = NULL;
	size_t npaths = 0;
	int ret;

	ret = gpa_expand_inputs((const char *const *)args, nargs, &paths, &npaths, err,
				sizeof(err));
	if (ret) {
		cli_error("%s", err);
		return ret;
	}
	cli_progress_start(&pr);
	ret = gpa_model_load(m, (const char *const *)paths, npaths, &lo, err, sizeof(err));
	cli_progress_end(&pr);
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
		return cli_exit_code(ret, 0);
	}
	return CMD_OK;
}
