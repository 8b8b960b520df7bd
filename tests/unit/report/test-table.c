/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "report/report.h"
#include "tests/unit/test.h"

static const struct gpr_col cols[] = {
	{"Time (%)", GPR_COL_NUM, "time_pct"},
	{"Total Time (ns)", GPR_COL_NUM, "total_time_ns"},
	{"Name", 0, "name"},
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

static char *render(enum gpr_format f, const struct gpr_display *d)
{
	struct gpr_table t;
	struct gp_strbuf sb = GP_STRBUF_INIT;

	fill(&t);
	CHECK_EQ_U(gpr_table_rows(&t), 2);
	CHECK_EQ_I(gpr_table_render(&t, f, d, &sb), 0);
	gpr_table_release(&t);
	return gp_strbuf_detach(&sb, NULL);
}

TEST(table_text_aligns)
{
	struct gpr_display d = {.exact = true};
	char *s = render(GPR_FORMAT_TEXT, NULL);
	/* Times in scaled units, the header without its unit; text left-aligned. */
	CHECK_CONTAINS(s, "Time (%)  Total Time  Name\n");
	CHECK_CONTAINS(s, "--------  ----------  ");
	CHECK_CONTAINS(s, "    75.0      300 ns  void k<int, 2>(float*)\n");
	free(s);
	/* Exact: integer nanoseconds under the header that says so. */
	s = render(GPR_FORMAT_TEXT, &d);
	CHECK_CONTAINS(s, "Time (%)  Total Time (ns)  Name\n");
	CHECK_CONTAINS(s, "--------  ---------------  ");
	CHECK_CONTAINS(s, "    75.0              300  void k<int, 2>(float*)\n");
	free(s);
}

/*
 * Two callers with different displays in one process (two library handles,
 * two renderings of one command) do not see each other's settings: each
 * rendering reads only the display it is given, whatever came between.
 */
TEST(displays_do_not_interfere)
{
	struct gpr_display exact = {.exact = true}, ms = {.scale = 1000000, .width = 40};
	struct gp_strbuf a = GP_STRBUF_INIT, b = GP_STRBUF_INIT;
	char *first = render(GPR_FORMAT_TEXT, &exact);
	char *other = render(GPR_FORMAT_TEXT, &ms);
	char *again = render(GPR_FORMAT_TEXT, &exact);
	char *plain = render(GPR_FORMAT_TEXT, NULL);

	CHECK_STR(first, again);
	CHECK_CONTAINS(first, "Total Time (ns)");
	CHECK_CONTAINS(other, "Total Time (ms)");
	CHECK_CONTAINS(other, "0.000300");
	CHECK_CONTAINS(plain, "300 ns");
	CHECK(strcmp(first, other) != 0);
	gpr_fmt_ns(&a, &ms, 1500000);
	gpr_fmt_ns(&b, &exact, 1500000);
	gp_strbuf_adds(&a, "|");
	gpr_fmt_ns(&a, NULL, 1500000);
	CHECK_STR(a.buf, "1.500000 ms|1.500 ms");
	CHECK_STR(b.buf, "1500000 ns");
	free(first);
	free(other);
	free(again);
	free(plain);
	gp_strbuf_release(&a);
	gp_strbuf_release(&b);
}

static const struct gpr_col wide_cols[] = {
	{"Key", 0, "key"},
	{"Count", GPR_COL_NUM | GPR_COL_COUNT, "count"},
	{"Bytes", GPR_COL_NUM | GPR_COL_BYTES, "bytes"},
	{"Name", GPR_COL_NAME, "name"},
	{"Note", GPR_COL_ELIDE, "note"},
};

/* The longest line of s in code points. */
static size_t longest_line(const char *s)
{
	size_t best = 0, w = 0;

	for (; *s; s++) {
		if (*s == '\n') {
			best = w > best ? w : best;
			w = 0;
		} else {
			w += ((unsigned char)*s & 0xc0) != 0x80;
		}
	}
	return w > best ? w : best;
}

TEST(table_text_fits_width)
{
	struct gpr_display d = {.width = 80};
	struct gp_strbuf sb = GP_STRBUF_INIT;
	struct gpr_table t;
	char note[200];

	memset(note, 'n', sizeof(note) - 1);
	note[sizeof(note) - 1] = '\0';
	gpr_table_init(&t, wide_cols, GP_ARRAY_SIZE(wide_cols));
	gpr_table_cell(&t, "a");
	gpr_table_cell(&t, "1234567");
	gpr_table_cell(&t, "3221225472");
	gpr_table_cell(&t, "void ns::very_long_kernel_name_that_goes_on<int, 4, "
			   "ns::Policy<float>>(ns::Params const*, int, int)");
	gpr_table_cell(&t, note);
	CHECK_EQ_I(gpr_table_render(&t, GPR_FORMAT_TEXT, &d, &sb), 0);
	CHECK_CONTAINS(sb.buf, "1,234,567");
	CHECK_CONTAINS(sb.buf, "3.00 GiB");
	/* The identifying part of the name: scope and function, nothing else. */
	CHECK_CONTAINS(sb.buf, "ns::very_long_kernel_name_that_goes_on\n");
	CHECK_CONTAINS(sb.buf, "n\xe2\x80\xa6n");
	CHECK(longest_line(sb.buf) <= 80);
	/* CSV keeps every cell whole. */
	gp_strbuf_reset(&sb);
	CHECK_EQ_I(gpr_table_render(&t, GPR_FORMAT_CSV, &d, &sb), 0);
	CHECK_CONTAINS(sb.buf, note);
	CHECK_CONTAINS(sb.buf, ",1234567,3221225472,");
	/* --wide: whole, however long the line. */
	d.wide = true;
	gp_strbuf_reset(&sb);
	CHECK_EQ_I(gpr_table_render(&t, GPR_FORMAT_TEXT, &d, &sb), 0);
	CHECK_CONTAINS(sb.buf, note);
	CHECK(longest_line(sb.buf) > 200);
	gpr_table_release(&t);
	gp_strbuf_release(&sb);
}

TEST(table_text_folds_many_columns)
{
	static const struct gpr_col many[] = {
		{"Row", 0, "row"},
		{"Column one", 0, "one"},
		{"Column two", 0, "two"},
		{"Column three", 0, "three"},
		{"Column four", 0, "four"},
		{"Column five", 0, "five"},
	};
	struct gpr_display d = {.width = 40};
	struct gp_strbuf sb = GP_STRBUF_INIT;
	struct gpr_table t;

	gpr_table_init(&t, many, GP_ARRAY_SIZE(many));
	for (size_t i = 0; i < GP_ARRAY_SIZE(many); i++) {
		gpr_table_cellf(&t, "v%zu", i);
	}
	CHECK_EQ_I(gpr_table_render(&t, GPR_FORMAT_TEXT, &d, &sb), 0);
	CHECK(longest_line(sb.buf) <= 40);
	/* Every block repeats the key column. */
	CHECK_CONTAINS(sb.buf, "Row  Column one  Column two\n");
	CHECK_CONTAINS(sb.buf, "\nRow  Column five\n");
	gpr_table_release(&t);
	gp_strbuf_release(&sb);
}

TEST(table_csv_quotes)
{
	char *s = render(GPR_FORMAT_CSV, NULL);
	CHECK_STR(s, "Time (%),Total Time (ns),Name\n"
		     "75.0,300,\"void k<int, 2>(float*)\"\n"
		     "25.0,100,\"say \"\"hi\"\", |x|\nnext\"\n");
	free(s);
}

TEST(table_json_types)
{
	char *s = render(GPR_FORMAT_JSON, NULL);
	/* Keyed by each column's JSON key, never by its heading. */
	CHECK_STR(s, "[{\"time_pct\":75.0,\"total_time_ns\":300,\"name\":\"void k<int, 2>(float*)\"},"
		     "{\"time_pct\":25.0,\"total_time_ns\":100,\"name\":\"say \\\"hi\\\", |x|\\nnext\"}]");
	free(s);
}

TEST(table_markdown_escapes)
{
	char *s = render(GPR_FORMAT_MARKDOWN, NULL);
	CHECK_CONTAINS(s, "| Time (%) | Total Time | Name |\n| ---: | ---: | --- |\n");
	CHECK_CONTAINS(s, "| 25.0 | 100 ns | say \"hi\", \\|x\\| next |\n");
	CHECK_CONTAINS(s, "void k\\<int, 2>(float\\*)");
	free(s);
}

TEST(table_rejects_ragged_rows)
{
	struct gpr_table t;
	struct gp_strbuf sb = GP_STRBUF_INIT;

	gpr_table_init(&t, cols, 3);
	gpr_table_cell(&t, "1");
	CHECK_EQ_I(gpr_table_render(&t, GPR_FORMAT_TEXT, NULL, &sb), -GP_ERR_API);
	gpr_table_release(&t);
	gp_strbuf_release(&sb);
}

TEST(format_helpers)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;

	static const struct {
		double ns;
		const char *s;
	} times[] = {
		{0, "0 ns"},	       {850, "850 ns"},		{999, "999 ns"},
		{1000, "1.000 \xc2\xb5s"},   {15199, "15.2 \xc2\xb5s"},	{999960, "1.000 ms"},
		{5000, "5.000 \xc2\xb5s"},   {431751801, "431.8 ms"}, {1234000001, "1.234 s"},
		{-2500, "-2.500 \xc2\xb5s"}, {508512.5, "508.5 \xc2\xb5s"}, {3e12, "3000.0 s"},
	};
	struct gpr_display exact = {.exact = true};

	for (size_t i = 0; i < GP_ARRAY_SIZE(times); i++) {
		gp_strbuf_reset(&sb);
		gpr_fmt_time_human(&sb, times[i].ns);
		CHECK_STR(sb.buf, times[i].s);
	}
	gp_strbuf_reset(&sb);
	gpr_fmt_ns(&sb, NULL, 1234567890123ULL);
	CHECK_STR(sb.buf, "1234.6 s");
	gp_strbuf_reset(&sb);
	gpr_fmt_ns(&sb, NULL, 5000);
	CHECK_STR(sb.buf, "5 \xc2\xb5s"); /* a round figure in a sentence */
	gp_strbuf_reset(&sb);
	gpr_fmt_secs(&sb, 1234567890123ULL);
	CHECK_STR(sb.buf, "1234.567890123 s");
	gp_strbuf_reset(&sb);
	gpr_fmt_ns(&sb, &exact, 1234567890123ULL);
	CHECK_STR(sb.buf, "1234567890123 ns");
	gp_strbuf_reset(&sb);
	gpr_fmt_count(&sb, 1234567);
	CHECK_STR(sb.buf, "1,234,567");
	gp_strbuf_reset(&sb);
	gpr_fmt_bytes(&sb, 1536);
	CHECK_STR(sb.buf, "1.50 KiB");
	gp_strbuf_reset(&sb);
	gpr_fmt_cuda_version(&sb, 12040);
	CHECK_STR(sb.buf, "12.4");
	gp_strbuf_reset(&sb);
	gpr_fmt_name_fit(&sb, "void at::native::(anonymous namespace)::softmax<float, 4>(float*, int)", 60);
	CHECK_STR(sb.buf, "at::native::(anonymous namespace)::softmax");
	gp_strbuf_reset(&sb);
	gpr_fmt_name_fit(&sb, "_ZN5flash16flash_bwd_kernelEv", 11);
	CHECK_STR(sb.buf, "_ZN5f\xe2\x80\xa6nelEv");
	CHECK_EQ_I(gpr_format_parse("md"), GPR_FORMAT_MARKDOWN);
	CHECK_EQ_I(gpr_format_parse("xml"), -1);
	gp_strbuf_release(&sb);
}

TEST(names_fit_tell_rows_apart)
{
	static const char *const names[] = {
		"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<float, 128>>(Params)",
		"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<half, 64>>(Params)",
		"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<float, 128>>(Params)",
		"## backward pass of the whole decoder layer stack ##",
		"## forward pass of the whole decoder layer stack ##",
		"short",
	};
	char *out[GP_ARRAY_SIZE(names)];

	CHECK_EQ_I(gpr_fmt_names_fit(out, names, GP_ARRAY_SIZE(names), 40), 0);
	/* the same name reads the same; different names read differently, within 40 columns */
	CHECK_STR(out[0], out[2]);
	CHECK(strcmp(out[0], out[1]) != 0);
	CHECK(strcmp(out[3], out[4]) != 0);
	CHECK_STR(out[5], "short");
	CHECK(strncmp(out[3], "## backward", 11) == 0); /* a range's name, not a signature */
	for (size_t i = 0; i < GP_ARRAY_SIZE(names); i++) {
		CHECK(gpr_text_width(out[i]) <= 40);
	}
	/* the part kept is the part that differs, after the kernel's own name */
	CHECK(strstr(out[0], "float") != NULL);
	CHECK(strstr(out[1], "half") != NULL);
	CHECK(strncmp(out[1], "device_kernel\xe2\x80\xa6", 16) == 0);
	for (size_t i = 0; i < GP_ARRAY_SIZE(names); i++) {
		free(out[i]);
	}
}

TEST(text_wrap_at_spaces)
{
	struct gpr_display d = {.width = 20};
	struct gp_strbuf sb = GP_STRBUF_INIT;

	gp_strbuf_adds(&sb, "keep\n");
	gp_strbuf_adds(&sb, "  one two three four five six");
	gpr_text_wrap(&sb, &d, 5, 4);
	CHECK_STR(sb.buf, "keep\n  one two three four\n    five six");
	gp_strbuf_release(&sb);
}
