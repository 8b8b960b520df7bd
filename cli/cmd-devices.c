/* SPDX-License-Identifier: MIT */
/*
 * gpuprof devices - the GPU peak table the MFU figures use, with the rows
 * of a device file first.
 */
#include "base/compat.h"
#include "analyze/mfu.h"
#include "cli/cli.h"
#include "report/report.h"
#include "report/mfu.h"

#include <stdlib.h>

struct devices_opts {
	enum gpr_format format;
	struct cli_mfu mfu; /* its device file */
};

static const struct cli_option devices_options[] = {
	CLI_OPT_GROUP("\noptions:\n", 24, 6),
	CLI_OPT_ENUMP('f', "format", "FORMAT", struct devices_opts, format, gpr_format_parse,
		      "unknown format '%s'", "text (default), json, csv, markdown"),
	CLI_OPT_STR(0, "device-file", "FILE", struct devices_opts, mfu.device_file,
		    "more devices, listed first"),
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};

const struct cli_command cmd_devices_opts = {
	.usage = "usage: gpuprof devices [--format FORMAT] [--device-file FILE]\n"
		 "\n"
		 "Lists the GPU peak table: SMs, dense TFLOP/s per datatype, memory, NVLink and\n"
		 "PCIe, and the document each row's figures come from; rows marked 'verify'\n"
		 "have figures whose sources disagree. With --device-file, the file's rows come\n"
		 "first. See docs/mfu.md.\n",
	.options = devices_options,
	.flags = CLI_NO_COMMON,
};

/* The table, the device file's rows first, into out; false when out of memory. */
static bool render(const struct devices_opts *o, struct gp_strbuf *out)
{
	size_t nb;
	const struct gpa_devrow *b = gpa_devices_builtin(&nb);
	struct gpa_devrow *all = calloc(nb + o->mfu.nrows, sizeof(*all));
	struct gpr_table t;
	struct gpr_display d; /* devices takes no --timeunit or --wide: the width alone */
	bool ok = false;

	if (!all) {
		return false;
	}
	if (o->mfu.nrows) {
		memcpy(all, o->mfu.rows, o->mfu.nrows * sizeof(*all));
	}
	memcpy(all + o->mfu.nrows, b, nb * sizeof(*all));
	cli_display_resolve(NULL, &d);
	if (o->format == GPR_FORMAT_JSON) {
		gp_strbuf_adds(out, "{\"schema\":\"gpuprof-devices/2\"");
	}
	if (!gpr_devices_table(&t, all, nb + o->mfu.nrows) &&
	    !gpr_table_section(&t, o->format, &d, "GPU peak table (dense TFLOP/s; INT8 TOPS)",
			       "devices", true, out)) {
		if (o->format == GPR_FORMAT_JSON) {
			gp_strbuf_adds(out, "}\n");
		}
		ok = !out->failed;
	}
	free(all);
	return ok;
}

int cmd_devices(int argc, char **argv)
{
	struct devices_opts o = {.format = GPR_FORMAT_TEXT};
	struct gp_strbuf out = GP_STRBUF_INIT;
	int nargs, status;

	cli_mfu_init(&o.mfu);
	status = cli_parse_options(&cmd_devices_opts, &o, NULL, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (nargs) {
		return cli_cmd_usage_error(&cmd_devices_opts, "unexpected argument '%s'", argv[0]);
	}
	if (cli_mfu_load_file(&o.mfu)) {
		return CMD_ERROR;
	}
	status = CMD_ERROR;
	if (!render(&o, &out)) {
		cli_error("out of memory");
	} else if (cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
	gp_strbuf_release(&out);
	cli_mfu_release(&o.mfu);
	return status;
}
