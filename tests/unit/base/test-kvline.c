/* SPDX-License-Identifier: MIT */
/*
 * test-kvline.c - the key=value line tokenizer of user files (base/kvline.c).
 */
#include "base/compat.h"
#include "base/base.h"
#include "tests/unit/test.h"

TEST(kv_next_pairs_quotes_comments)
{
	char line[] = "  name=\"NVIDIA H100\" sms=132\tbw=3350 # a comment";
	char *s = line, *key, *val, why[128];

	CHECK_EQ_I(gp_kv_next(&s, &key, &val, "f", 1, why, sizeof(why)), 1);
	CHECK_STR(key, "name");
	CHECK_STR(val, "NVIDIA H100");
	CHECK_EQ_I(gp_kv_next(&s, &key, &val, "f", 1, why, sizeof(why)), 1);
	CHECK_STR(key, "sms");
	CHECK_STR(val, "132");
	CHECK_EQ_I(gp_kv_next(&s, &key, &val, "f", 1, why, sizeof(why)), 1);
	CHECK_STR(key, "bw");
	CHECK_STR(val, "3350");
	CHECK_EQ_I(gp_kv_next(&s, &key, &val, "f", 1, why, sizeof(why)), 0);
}

TEST(kv_next_errors)
{
	char bare[] = "key=1 word";
	char quote[] = "name=\"open";
	char *s = bare, *key, *val, why[128];

	CHECK_EQ_I(gp_kv_next(&s, &key, &val, "f", 1, why, sizeof(why)), 1);
	CHECK_EQ_I(gp_kv_next(&s, &key, &val, "f", 1, why, sizeof(why)), -GP_ERR_FORMAT);
	CHECK_STR(key, "word");
	CHECK_STR(why, "f:1: expected key=value, got 'word'");
	s = quote;
	CHECK_EQ_I(gp_kv_next(&s, &key, &val, "f", 2, why, sizeof(why)), -GP_ERR_FORMAT);
	CHECK_STR(why, "f:2: unterminated quote");
}

TEST(kv_line_splits_and_checks)
{
	static const char text[] = "a=1\r\n\nb=2";
	char line[GP_KV_LINE_MAX + 1], err[128];
	size_t pos = 0, ln = 0;

	CHECK_EQ_I(gp_kv_line("f", text, sizeof(text) - 1, &pos, &ln, line, err, sizeof(err)), 1);
	CHECK_STR(line, "a=1");
	CHECK_EQ_I(gp_kv_line("f", text, sizeof(text) - 1, &pos, &ln, line, err, sizeof(err)), 1);
	CHECK_STR(line, "");
	CHECK_EQ_I(gp_kv_line("f", text, sizeof(text) - 1, &pos, &ln, line, err, sizeof(err)), 1);
	CHECK_STR(line, "b=2");
	CHECK_EQ_U(ln, 3);
	CHECK_EQ_I(gp_kv_line("f", text, sizeof(text) - 1, &pos, &ln, line, err, sizeof(err)), 0);

	static const char nul[] = "a=1\0b";
	pos = ln = 0;
	CHECK_EQ_I(gp_kv_line("dev.txt", nul, sizeof(nul) - 1, &pos, &ln, line, err, sizeof(err)),
		   -GP_ERR_FORMAT);
	CHECK_STR(err, "dev.txt:1: NUL byte in line");
	CHECK_EQ_I(gp_kv_error(err, sizeof(err), "p", 7, "unknown key", "zz"), -GP_ERR_FORMAT);
	CHECK_STR(err, "p:7: unknown key 'zz'");
}
