/* SPDX-License-Identifier: MIT */
/*
 * Tests of the flame-graph writers: exact folded text, differential
 * columns, SVG that parses as XML with every name intact (C++ templates,
 * quotes, non-ASCII, bytes that are not UTF-8), speedscope structure.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/flame.h"
#include "report/report.h"
#include "report/flame-graph.h"
#include "tests/unit/test.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>

#define U(x) ((uint64_t)(x) * 1000u)
#define TID 100

static const char *const weird = "void ns::k<a&b, \"q\", 'c'>(x<y>) \xc3\xa9\xe2\x82\xac";

static uint32_t S(struct gpt_writer *w, const char *s)
{
	uint32_t id = 0;
	CHECK_EQ_I(gpt_writer_intern_cstr(w, s, &id), 0);
	return id;
}

static void launch(struct gpt_writer *w, uint64_t a, uint64_t s, uint64_t e, uint32_t corr,
		   const char *name)
{
	struct gpt_api ap = {.start = U(a), .end = U(a + 1), .tid = TID, .domain = GPT_API_RUNTIME,
			     .name = S(w, "cudaLaunchKernel"), .correlation = corr};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_API, &ap), 0);
	struct gpt_kernel k = {.start = U(s), .end = U(e), .device = 0, .stream = 1,
			       .correlation = corr, .name = S(w, name), .grid_x = 1, .grid_y = 1,
			       .grid_z = 1, .block_x = 32, .block_y = 1, .block_z = 1};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_KERNEL, &k), 0);
}

/* step [0, 1000) > fwd [10, 500); a GEMM in fwd, the weird kernel and a bad-UTF-8 one in step. */
static int load(struct gpa_model *m, struct gpa_flame *f, unsigned flags)
{
	char path[512], err[256] = "";
	struct gpt_writer *w = NULL;
	const char *paths[] = {path};
	struct gpa_flame_opts o;

	snprintf(path, sizeof(path), "%s/flame.gpz", test_tmpdir());
	CHECK_EQ_I(gpt_writer_open(path, NULL, &w), 0);
	struct gpt_process p = {.pid = 7, .rank = 3, .phase = 1};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_PROCESS, &p), 0);
	struct gpt_nvtx n1 = {.start = 0, .end = U(1000), .type = GPT_NVTX_PUSH_POP,
			      .message = S(w, "step"), .start_tid = TID, .end_tid = TID};
	struct gpt_nvtx n2 = {.start = U(10), .end = U(500), .type = GPT_NVTX_PUSH_POP,
			      .message = S(w, "fwd"), .start_tid = TID, .end_tid = TID};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_NVTX, &n1), 0);
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_NVTX, &n2), 0);
	launch(w, 20, 100, 400, 1, "ampere_sgemm_128x64_tn");
	launch(w, 600, 700, 800, 2, weird);
	launch(w, 610, 800, 801, 3, "bad\xff\xfeutf8");
	CHECK_EQ_I(gpt_writer_close(w), 0);
	if (gpa_model_load(m, paths, 1, NULL, err, sizeof(err))) {
		TFAIL("load: %s", err);
		return -1;
	}
	gpa_flame_opts_init(&o);
	o.flags = flags;
	if (gpa_flame_build(m, &o, f, err, sizeof(err))) {
		TFAIL("build: %s", err);
		gpa_model_release(m);
		return -1;
	}
	return 0;
}

TEST(flame_folded_exact)
{
	struct gpa_model m;
	struct gpa_flame f, d;
	struct gp_strbuf out = GP_STRBUF_INIT;
	char want[1024];

	REQUIRE(!load(&m, &f, 0));
	REQUIRE(!gpr_flame_folded(&out, &f));
	snprintf(want, sizeof(want),
		 "rank 3;tid 100;step;bad\xff\xfeutf8 1000\n"
		 "rank 3;tid 100;step;fwd;ampere_sgemm_128x64_tn 300000\n"
		 "rank 3;tid 100;step;%s 100000\n",
		 weird);
	CHECK_STR(out.buf, want);

	/* Differential: before = the tree itself, after = half of it per step. */
	gp_strbuf_reset(&out);
	REQUIRE(!gpa_flame_diff(&f, 1, &f, 2, &d));
	REQUIRE(!gpr_flame_folded(&out, &d));
	snprintf(want, sizeof(want),
		 "rank 3;tid 100;step;bad\xff\xfeutf8 1000 500\n"
		 "rank 3;tid 100;step;fwd;ampere_sgemm_128x64_tn 300000 150000\n"
		 "rank 3;tid 100;step;%s 100000 50000\n",
		 weird);
	CHECK_STR(out.buf, want);
	/* A speedscope file cannot show a differential tree. */
	CHECK_EQ_I(gpr_flame_speedscope(&out, &d, NULL, GPR_SPEEDSCOPE_SAMPLED, NULL), -GP_ERR_API);
	gpa_flame_release(&d);
	gp_strbuf_release(&out);
	gpa_flame_release(&f);
	gpa_model_release(&m);
}

/* The text of the first <title> under #frames that starts with prefix, or NULL. */
static char *find_title(xmlNode *n, const char *prefix)
{
	for (; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, "title")) {
			xmlChar *t = xmlNodeGetContent(n);
			if (t && !strncmp((const char *)t, prefix, strlen(prefix))) {
				return (char *)t;
			}
			xmlFree(t);
		}
		char *r = find_title(n->children, prefix);
		if (r) {
			return r;
		}
	}
	return NULL;
}

TEST(flame_svg_escapes_and_parses)
{
	struct gpa_model m;
	struct gpa_flame f;
	struct gpr_flame_svg_opts o;
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[128] = "", want[512];

	REQUIRE(!load(&m, &f, 0));
	gpr_flame_svg_opts_init(&o);
	o.title = "a <title> & \"more\"";
	REQUIRE(!gpr_flame_svg(&out, &f, &o, err, sizeof(err)));
	xmlDoc *doc = xmlReadMemory(out.buf, (int)out.len, "flame.svg", NULL, XML_PARSE_NONET);
	REQUIRE(doc != NULL);
	xmlNode *root = xmlDocGetRootElement(doc);
	CHECK_STR((const char *)root->name, "svg");
	char *t = find_title(root, "void ns::");
	snprintf(want, sizeof(want), "%s (100,000 ns, ", weird);
	CHECK(t && !strncmp(t, want, strlen(want)));
	CHECK_CONTAINS(t, "1 launch)");
	xmlFree(t);
	t = find_title(root, "bad");
	CHECK_STR(t, "bad\xef\xbf\xbd\xef\xbf\xbdutf8 (1,000 ns, 0.25%, 1 launch)");
	xmlFree(t);
	t = find_title(root, "all");
	CHECK_STR(t, "all (401,000 ns, 100.00%, 3 launches)");
	xmlFree(t);
	xmlFreeDoc(doc);
	CHECK(strstr(out.buf, "a &lt;title&gt; &amp; &quot;more&quot;") != NULL);
	CHECK(strstr(out.buf, "<![CDATA[") != NULL);
	/* The GEMM leaf gets a GEMM colour (red), not the default. */
	CHECK(strstr(out.buf, "init(evt)") != NULL);

	/* Frames narrower than min_width are left out: the 1 us kernel is 2.9 px wide. */
	size_t with = out.len;
	gp_strbuf_reset(&out);
	o.min_width = 5;
	REQUIRE(!gpr_flame_svg(&out, &f, &o, err, sizeof(err)));
	CHECK(out.len < with);
	CHECK(!strstr(out.buf, "utf8 ("));
	CHECK(strstr(out.buf, "ampere_sgemm_128x64_tn (") != NULL);
	o.width = 5;
	CHECK_EQ_I(gpr_flame_svg(&out, &f, &o, err, sizeof(err)), -GP_ERR_API);
	gp_strbuf_release(&out);
	gpa_flame_release(&f);
	gpa_model_release(&m);
}

TEST(flame_speedscope_shapes)
{
	struct gpa_model m;
	struct gpa_flame f;
	struct gp_strbuf out = GP_STRBUF_INIT;

	REQUIRE(!load(&m, &f, GPA_FLAME_KEEP_OPS));
	REQUIRE(!gpr_flame_speedscope(&out, &f, &m, GPR_SPEEDSCOPE_SAMPLED, "x\"y"));
	CHECK_CONTAINS(out.buf, "\"$schema\":\"https://www.speedscope.app/file-format-schema.json\"");
	CHECK_CONTAINS(out.buf, "\"name\":\"x\\\"y\"");
	CHECK_CONTAINS(out.buf, "\"type\":\"sampled\"");
	CHECK_CONTAINS(out.buf, "\"endValue\":401000");
	CHECK_CONTAINS(out.buf, "\"weights\":[1000,300000,100000]");
	gp_strbuf_reset(&out);
	REQUIRE(!gpr_flame_speedscope(&out, &f, &m, GPR_SPEEDSCOPE_EVENTED, NULL));
	CHECK_CONTAINS(out.buf, "\"type\":\"evented\",\"name\":\"rank 3 device 0 stream 1\"");
	CHECK_CONTAINS(out.buf, "\"type\":\"O\"");
	CHECK_CONTAINS(out.buf, "\"type\":\"C\"");
	gp_strbuf_release(&out);
	gpa_flame_release(&f);
	gpa_model_release(&m);
}
