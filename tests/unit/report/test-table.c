/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "report/report.h"
#include "tests/unit/test.h"

static const struct gpr_col cols[] = {
	{"Time (%)", GPR_COL_NUM},
	{"Total Time (ns)", GPR_COL_NUM},
	{"Name", 0},
};

static void fill(struct gpr_table *t)
{
	gpr_table_init(t, cols, 3);
	gpr_table_cell(t, "75.0");
	gpr_table_cellf(t, "%d", 300);
	gpr_table_cell(t, "void k<int, 2>(float*)");
	gpr_table_cell(t, "25.0");
	gpr_table_cellf(t, "%d", 100);
	gpr_table_cell(t, "say \"hi\", |x|\nnext");
}

static char *render(enum gpr_format f)
{
	struct gpr_table t;
	struct gp_strbuf sb = GP_STRBUF_INIT;

	fill(&t);
	CHECK_EQ_U(gpr_table_rows(&t), 2);
	CHECK_EQ_I(gpr_table_render(&t, f, &sb), 0);
	gpr_table_release(&t);
	return gp_strbuf_detach(&sb, NULL);
}

TEST(table_text_aligns)
{
	char *s = render(GPR_FORMAT_TEXT);
	/* Numbers right-aligned under their headers, text left-aligned. */
	CHECK_CONTAINS(s, "Time (%)  Total Time (ns)  Name\n");
	CHECK_CONTAINS(s, "--------  ---------------  ");
	CHECK_CONTAINS(s, "    75.0              300  void k<int, 2>(float*)\n");
	free(s);
}

TEST(table_csv_quotes)
{
	char *s = render(GPR_FORMAT_CSV);
	CHECK_STR(s, "Time (%),Total Time (ns),Name\n"
		     "75.0,300,\"void k<int, 2>(float*)\"\n"
		     "25.0,100,\"say \"\"hi\"\", |x|\nnext\"\n");
	free(s);
}

TEST(table_json_types)
{
	char *s = render(GPR_FORMAT_JSON);
	CHECK_STR(s, "[{\"Time (%)\":75.0,\"Total Time (ns)\":300,\"Name\":\"void k<int, 2>(float*)\"},"
		     "{\"Time (%)\":25.0,\"Total Time (ns)\":100,\"Name\":\"say \\\"hi\\\", |x|\\nnext\"}]");
	free(s);
}

TEST(table_markdown_escapes)
{
	char *s = render(GPR_FORMAT_MARKDOWN);
	CHECK_CONTAINS(s, "| Time (%) | Total Time (ns) | Name |\n| ---: | ---: | --- |\n");
	CHECK_CONTAINS(s, "| 25.0 | 100 | say \"hi\", \\|x\\| next |\n");
	CHECK_CONTAINS(s, "void k\\<int, 2>(float\\*)");
	free(s);
}

TEST(table_rejects_ragged_rows)
{
	struct gpr_table t;
	struct gp_strbuf sb = GP_STRBUF_INIT;

	gpr_table_init(&t, cols, 3);
	gpr_table_cell(&t, "1");
	CHECK_EQ_I(gpr_table_render(&t, GPR_FORMAT_TEXT, &sb), -GP_ERR_API);
	gpr_table_release(&t);
	gp_strbuf_release(&sb);
}

TEST(format_helpers)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;

	gpr_fmt_ns(&sb, 1234567890123ULL);
	CHECK_STR(sb.buf, "1234.567890123 s");
	gp_strbuf_reset(&sb);
	gpr_fmt_count(&sb, 1234567);
	CHECK_STR(sb.buf, "1,234,567");
	gp_strbuf_reset(&sb);
	gpr_fmt_bytes(&sb, 1536);
	CHECK_STR(sb.buf, "1.50 KiB");
	gp_strbuf_reset(&sb);
	gpr_fmt_cuda_version(&sb, 12040);
	CHECK_STR(sb.buf, "12.4");
	CHECK_EQ_I(gpr_format_parse("md"), GPR_FORMAT_MARKDOWN);
	CHECK_EQ_I(gpr_format_parse("xml"), -1);
	gp_strbuf_release(&sb);
}
