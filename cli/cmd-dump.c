/* SPDX-License-Identifier: MIT */
/*
 * gpuprof dump - every record of a trace as text or JSON Lines, for
 * developers and scripts. It shows the file as stored: chunk by chunk.
 */
#include "base/compat.h"
#include "analyze/file-info.h"
#include "cli/cli.h"
#include "import/import.h"
#include "trace/trace.h"

struct dump_opts {
	bool json;
	bool all_fields;
	bool kinds[GPT_KIND__MAX]; /* all false: every kind */
	bool filter;
};

static int parse_kinds(struct cli_ctx *ctx, const struct cli_option *opt, const char *list);

static const struct cli_option dump_options[] = {
	CLI_OPT_GROUP("options:\n", 24, 2),
	CLI_OPT_ENUMV('f', "format", "FORMAT", struct dump_opts, json, cli_text_json,
		      "unknown format '%s' (text or json)", "text (default) or json (JSON Lines)"),
	/* The earlier spelling of --format json, kept working. */
	{.type = CLI_OPT_SET, 0, "json", NULL, NULL, CLI_FIELD_(struct dump_opts, json),
	 .value = 1, .flags = CLI_OPTF_HIDDEN},
	CLI_OPT_CB(0, "kind", "LIST", parse_kinds, "only these record kinds (comma-separated)"),
	/* JSON Lines always print every field */
	{.type = CLI_OPT_SET, 0, "all-fields", NULL, "text: print zero fields too",
	 CLI_FIELD_(struct dump_opts, all_fields), .value = 1, .conflicts = "json"},
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};

const struct cli_command cmd_dump_opts = {
	.usage =
	"usage: gpuprof dump [--format json] [--kind KIND[,KIND...]] [--all-fields] FILE\n"
	"\n"
	"Prints every record of the trace, in file order, one per line. A PyTorch\n"
	"profiler (Kineto) JSON or Nsight Systems SQLite file is imported first and\n"
	"its converted records are shown, as every analysis reads them. Text lines\n"
	"are '<kind> field=value ...' with the fields that are not zero (all of them\n"
	"with --all-fields), preceded by a '# chunk' line per chunk; strings are\n"
	"resolved and quoted as JSON strings. --format json (or --json) prints JSON\n"
	"Lines instead: {\"kind\":\"kernel\",\"start\":...} with every field; a string\n"
	"id the file never defined is null. Times are nanoseconds on the trace clock.\n"
	"\n"
	"Record kinds: process device context stream thread clock loss kernel memcpy\n"
	"memset api sync nvtx nccl extcorr overhead metric memory graph name\n"
	"stack_node stack module nccl_channel.\n"
	"\n"
	"A file cut short is dumped to its last whole chunk with a warning.\n"
	"\n",
	.options = dump_options,
};

static int parse_kinds(struct cli_ctx *ctx, const struct cli_option *opt, const char *list)
{
	struct dump_opts *o = ctx->base;
	char *copy = strdup(list), *save = NULL;

	(void)opt;
	if (!copy) {
		return CMD_USAGE;
	}
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct gpt_kind_info *ki = gpt_kind_by_name(t);
		if (!ki) {
			cli_opt_usage_error(ctx, "unknown record kind '%s'", t);
			free(copy);
			return CMD_USAGE;
		}
		o->kinds[ki->kind] = true;
		o->filter = true;
	}
	free(copy);
	return 0;
}

static void put_value(struct gp_strbuf *sb, const struct gpt_reader *r, const struct gpt_field *f,
		      uint64_t v, bool json)
{
	if (f->type == GPT_TY_str) {
		const char *s = gpt_reader_string(r, (uint32_t)v);
		if (s) {
			gp_strbuf_add_json_str(sb, s, strlen(s));
		} else if (json) {
			gp_strbuf_adds(sb, "null");
		} else {
			gp_strbuf_addf(sb, "<missing string %" PRIu64 ">", v);
		}
	} else if (gpt_field_is_signed(f)) {
		gp_strbuf_addf(sb, "%" PRId64, (int64_t)v);
	} else {
		gp_strbuf_addf(sb, "%" PRIu64, v);
	}
}

static void dump_record(struct gp_strbuf *sb, const struct gpt_reader *r,
			const struct gpt_kind_info *ki, const void *rec, const struct dump_opts *o)
{
	if (o->json) {
		gp_strbuf_addf(sb, "{\"kind\":\"%s\"", ki->name);
	} else {
		gp_strbuf_adds(sb, ki->name);
	}
	for (size_t i = 0; i < ki->nfields; i++) {
		const struct gpt_field *f = &ki->fields[i];
		uint64_t v = gpt_field_get(f, rec);
		if (!v && gpt_field_is_ring_only(ki, f)) {
			continue; /* never in a file but a crafted one */
		}
		if (o->json) {
			gp_strbuf_addf(sb, ",\"%s\":", f->name);
		} else {
			if (!v && !o->all_fields) {
				continue;
			}
			gp_strbuf_addf(sb, " %s=", f->name);
		}
		put_value(sb, r, f, v, o->json);
	}
	gp_strbuf_adds(sb, o->json ? "}\n" : "\n");
}

int cmd_dump(int argc, char **argv)
{
	struct cli_common common = {0};
	struct dump_opts opts = {0};
	struct gp_strbuf sb = GP_STRBUF_INIT;
	struct gpt_reader *r = NULL;
	struct gpt_reader_status st;
	struct gpt_chunk ch;
	int nargs, ret, status;

	status = cli_parse_options(&cmd_dump_opts, &opts, &common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (opts.json && opts.all_fields) {
		return cli_cmd_usage_error(&cmd_dump_opts, "options '--format json' and '--all-fields' "
					   "cannot be used together");
	}
	status = CMD_OK;
	if (nargs != 1) {
		return cli_cmd_usage_error(&cmd_dump_opts,
					   nargs ? "dump takes one file" : "no trace file given");
	}
	/* A Kineto or nsys file is imported first, as every analysis reads it. */
	char err[512];
	ret = gpa_input_open(argv[0], &r, NULL, err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		gpt_reader_free(r);
		return CMD_ERROR;
	}
	unsigned threads;
	if (cli_common_threads(&common, &threads)) {
		gpt_reader_free(r);
		return CMD_ERROR;
	}
	(void)gpt_reader_set_threads(r, threads); /* out of memory: read on one thread */
	bool write_failed = false;
	while (!write_failed && (ret = gpt_reader_next(r, &ch)) > 0) {
		const uint8_t *rec = ch.records;
		if (opts.filter && !opts.kinds[ch.kind]) {
			continue;
		}
		if (!opts.json) {
			gp_strbuf_addf(&sb, "# chunk %" PRIu32 ": %" PRIu32 " %s records at offset %" PRIu64
					    "\n",
				       ch.index, ch.count, ch.info->name, ch.offset);
		}
		for (uint32_t i = 0; i < ch.count && !write_failed; i++, rec += ch.info->size) {
			dump_record(&sb, r, ch.info, rec, &opts);
			if (sb.len > (1u << 20)) {
				write_failed = sb.failed || !cli_write_stdout(sb.buf, sb.len);
				gp_strbuf_reset(&sb);
			}
		}
	}
	if (!write_failed) {
		if (sb.failed) {
			cli_error("out of memory");
			write_failed = true;
		} else {
			write_failed = !cli_write_stdout(sb.buf, sb.len);
		}
	}
	if (write_failed) {
		status = CMD_ERROR;
	} else if (ret < 0) {
		cli_error("%s", gpt_reader_last_error(r));
		status = CMD_ERROR;
	}
	gpt_reader_get_status(r, &st);
	size_t np;
	const struct gpt_problem *p = gpt_reader_problems(r, &np);
	for (size_t i = 0; i < np; i++) {
		if (p[i].err == -GP_ERR_TRUNCATED) {
			cli_warn("%s: chunk %" PRIu32 " at offset %" PRIu64 ": %s", argv[0],
				 p[i].chunk_index, p[i].offset, p[i].reason);
		} else {
			cli_error("%s: chunk %" PRIu32 " at offset %" PRIu64 ": %s", argv[0],
				  p[i].chunk_index, p[i].offset, p[i].reason);
			status = CMD_ERROR;
		}
	}
	if (st.problems > np) {
		cli_error("%s: %" PRIu64 " corrupt chunks in all", argv[0], st.problems);
		status = CMD_ERROR;
	}
	/* A damaged file that gave no record at all: an error, as every analysis says. */
	uint64_t nrec = 0;
	for (size_t k = 0; k < GPT_KIND__MAX; k++) {
		nrec += st.records[k];
	}
	if (!nrec && (st.truncated || st.problems) && status == CMD_OK) {
		cli_error("%s: no records could be read", argv[0]);
		status = CMD_ERROR;
	}
	gpt_reader_free(r);
	gp_strbuf_release(&sb);
	return status;
}
