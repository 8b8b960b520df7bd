/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/related.h"
#include "analyze/sanity.h"
#include "analyze/steps.h"
#include "import/import.h"
#include "base/outfile.h"
#include "cli/cli.h"

#include <strings.h>

#include <sys/stat.h>
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
	char err[PATH_MAX + 128];

	if (gp_out_write_file(path, 0, buf, len, err, sizeof(err))) {
		cli_error("%s", err);
		return false;
	}
	return true;
}

/* The folder PATH's name sits in ("." for a bare name), for stat. */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		return strdup(".");
	}
	if (slash == path) {
		return strdup("/");
	}
	return strndup(path, (size_t)(slash - path));
}

/*
 * Would a later run over the directory input DIR read OUT? OUT's own name
 * (not a link's target) in DIR, with a name gpa_expand_inputs picks.
 */
static bool read_next_time(const char *out, const char *dir)
{
	const char *base = strrchr(out, '/');
	struct stat so, sd;
	char *folder;
	bool in;

	base = base ? base + 1 : out;
	if (!gpa_is_trace_name(base) || stat(dir, &sd) || !S_ISDIR(sd.st_mode)) {
		return false;
	}
	folder = folder_of(out);
	in = folder && !stat(folder, &so) && so.st_dev == sd.st_dev && so.st_ino == sd.st_ino;
	free(folder);
	return in;
}

/* An output that is an input, or one of the files an input directory holds. */
static int check_against_input(const struct cli_command *cmd, const char *out, const char *in,
			       bool force)
{
	char err[256], **files = NULL;
	size_t nfiles = 0;
	int status = CMD_OK;

	/* An input "-" is standard input ("-" as an output is standard output). */
	if (gp_out_same(out, strcmp(in, "-") ? in : "/dev/stdin")) {
		return cli_cmd_usage_error(cmd, "output '%s' is the input '%s'", out, in);
	}
	/* An input that cannot be expanded is said by the load. */
	if (gpa_expand_inputs(&in, 1, &files, &nfiles, err, sizeof(err))) {
		return CMD_OK;
	}
	for (size_t k = 0; k < nfiles && status == CMD_OK; k++) {
		if (strcmp(files[k], in) && gp_out_same(out, files[k])) {
			status = cli_cmd_usage_error(cmd,
						     "output '%s' is the input '%s' (in the "
						     "directory '%s')",
						     out, files[k], in);
		}
	}
	for (size_t k = 0; k < nfiles; k++) {
		free(files[k]);
	}
	free(files);
	if (status == CMD_OK && !force && read_next_time(out, in)) {
		status = cli_cmd_usage_error(cmd,
					     "output '%s' would be written into the input directory "
					     "'%s', where the next run would read it as a trace: "
					     "write it elsewhere, or add --force",
					     out, in);
	}
	return status;
}

int cli_check_outputs(const struct cli_command *cmd, const char *const *outs, size_t nouts,
		      char *const *ins, size_t nins, bool force)
{
	for (size_t i = 0; i < nouts; i++) {
		if (!outs[i]) {
			continue;
		}
		for (size_t j = i + 1; j < nouts; j++) {
			if (outs[j] && gp_out_same(outs[i], outs[j])) {
				return cli_cmd_usage_error(cmd, "'%s' and '%s' are the same file: "
							   "give each output its own",
							   outs[i], outs[j]);
			}
		}
		for (size_t j = 0; j < nins; j++) {
			int status = check_against_input(cmd, outs[i], ins[j], force);
			if (status != CMD_OK) {
				return status;
			}
		}
	}
	return CMD_OK;
}

/* ---- loading traces, with progress on a terminal (cli/progress.c) */

int cli_load_model(struct cli_common *c, struct gpa_model *m, char **args, size_t nargs)
{
	return cli_load_model_ex(c, m, args, nargs, 0, 0);
}

int cli_load_model_ex(struct cli_common *c, struct gpa_model *m, char **args, size_t nargs,
		      unsigned threads, unsigned drop)
{
	struct cli_progress pr;
	struct gpa_load_opts lo = {.progress = {cli_progress_fn, &pr}, .drop = drop};
	char err[512], **paths = NULL;
	size_t npaths = 0;
	int ret;

	ret = gpa_expand_inputs((const char *const *)args, nargs, &paths, &npaths, err,
				sizeof(err));
	if (ret) {
		cli_error_ret(ret, err);
		return ret;
	}
	lo.threads = threads;
	ret = threads ? 0 : cli_common_threads(c, &lo.threads);
	if (ret) {
		for (size_t i = 0; i < npaths; i++) {
			free(paths[i]);
		}
		free(paths);
		return ret;
	}
	cli_progress_start(&pr, c->quiet);
	ret = gpa_model_load(m, (const char *const *)paths, npaths, &lo, err, sizeof(err));
	cli_progress_end(&pr);
	for (size_t i = 0; i < npaths; i++) {
		free(paths[i]);
	}
	free(paths);
	if (ret) {
		cli_error_ret(ret, err);
		return ret;
	}
	for (size_t i = 0; i < m->procs.n; i++) {
		const struct gpa_proc *p = &m->procs.v[i];
		if (p->truncated) {
			cli_warn("%s: truncated at offset %" PRIu64 "; kept the %" PRIu64
				 " records before the cut", p->path, p->truncated_at, p->records);
		}
		if (p->corrupt_chunks) {
			cli_warn("%s: corrupt at offset %" PRIu64 ": %" PRIu64 " chunk%s skipped",
				 p->path, p->corrupt_at, p->corrupt_chunks,
				 p->corrupt_chunks == 1 ? "" : "s");
		}
	}
	ret = cli_check_related(c, m);
	if (ret) {
		gpa_model_release(m);
		return ret;
	}
	cli_sanity_warn(m, NULL);
	return 0;
}

int cli_refuse_unrelated(int ret, const char *why)
{
	if (ret == 1) {
		cli_error("%s; give --allow-unrelated to analyse them together", why);
		return -GP_ERR_FORMAT;
	}
	if (ret < 0) {
		cli_error_ret(ret, "out of memory");
	}
	return ret;
}

int cli_check_related(const struct cli_common *c, const struct gpa_model *m)
{
	char err[1024];

	if (c && c->allow_unrelated) {
		return 0;
	}
	return cli_refuse_unrelated(gpa_related_model(m, err, sizeof(err)), err);
}

static int warn_sentence(void *data, const char *sentence)
{
	if (data) {
		cli_warn("%s: %s", (const char *)data, sentence);
	} else {
		cli_warn("%s", sentence);
	}
	return 0;
}

void cli_sanity_warn(const struct gpa_model *m, const char *path)
{
	struct gpa_sanity s;

	gpa_sanity_check(m, &s);
	gpa_sanity_warnings(m, &s, warn_sentence, (void *)path);
}

int cli_load_steps(struct cli_common *c, struct gpa_model *m, char **args, size_t nargs,
		   const char *step_regex, struct gpa_steps *steps)
{
	char err[512];
	int ret;

	if (cli_load_model(c, m, args, nargs)) {
		return CMD_ERROR;
	}
	ret = gpa_steps_find(m, step_regex, steps, err, sizeof(err));
	if (ret) {
		cli_error_ret(ret, err);
		gpa_model_release(m);
		return cli_exit_code(ret, 0);
	}
	return CMD_OK;
}

const struct cli_enum_value cli_text_json[] = {{"text", 0}, {"json", 1}, {NULL, 0}};

/* Extensions of files some program reads as something else than text (.gpz: cli_check_outputs). */
static const char *const foreign_ext[] = {"png", "jpg", "jpeg", "gif", "bmp", "webp", "pdf",
					  "tif", "tiff", "svg", "html", "htm", "json", "md",
					  "csv", "sqlite", "pftrace", "xml", "folded", "gz"};

int cli_output_format(const struct cli_command *cmd, const char *path,
		      const struct cli_out_ext *exts, int *format)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	const char *dot = path ? strrchr(slash ? slash : path, '.') : NULL;
	struct gp_strbuf sb = GP_STRBUF_INIT;
	bool foreign = false;
	int ret;

	if (!dot || dot == path || dot[-1] == '/' || !dot[1]) {
		return CMD_OK; /* "-", no extension: whatever the format */
	}
	for (const struct cli_out_ext *e = exts; e->ext; e++) {
		if (strcasecmp(dot + 1, e->ext)) {
			continue;
		}
		if (*format < 0) {
			*format = e->format;
			return CMD_OK;
		}
		if (*format == e->format) {
			return CMD_OK;
		}
		for (const struct cli_out_ext *g = exts; g->ext; g++) {
			if (g->format == *format) {
				return cli_cmd_usage_error(cmd, "cannot write '%s' as %s: .%s is "
							   "the %s format's name here",
							   path, g->name, e->ext, e->name);
			}
		}
		foreign = true;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(foreign_ext) && !foreign; i++) {
		foreign = !strcasecmp(dot + 1, foreign_ext[i]);
	}
	if (!foreign) {
		return CMD_OK; /* .txt, .out, .log: a name, not a format */
	}
	for (const struct cli_out_ext *e = exts; e->ext; e++) {
		gp_strbuf_addf(&sb, "%s%s (.%s)", e == exts ? "" : e[1].ext ? ", " : " and ", e->name,
			       e->ext);
	}
	ret = cli_cmd_usage_error(cmd, "cannot write '%s': the formats written here are %s; "
				  "name the output so",
				  path, sb.failed ? "others" : sb.buf);
	gp_strbuf_release(&sb);
	return ret;
}
