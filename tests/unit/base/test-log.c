/* SPDX-License-Identifier: MIT */
/*
 * test-log.c - the logging sink (base/log.c): levels, tags, the level names
 * GPUPROF_LOG takes, and arguments left unevaluated below the level.
 */
#define GP_LOG_TAG "tests/log"
#include "base/compat.h"
#include "base/base.h"
#include "tests/unit/test.h"

struct capture {
	int n;
	enum gp_log_level level;
	char tag[32], msg[128];
};

static void capture_sink(enum gp_log_level level, const char *tag, const char *msg, void *data)
{
	struct capture *c = data;

	c->n++;
	c->level = level;
	snprintf(c->tag, sizeof(c->tag), "%s", tag);
	snprintf(c->msg, sizeof(c->msg), "%s", msg);
}

static int side_effects;

static int counted(void)
{
	return ++side_effects;
}

TEST(log_levels_and_tags)
{
	struct capture c = {0};

	gp_log_set_sink(capture_sink, &c, GP_LOG_DEBUG);
	gp_debug("chunk %d skipped", 3);
	CHECK_EQ_I(c.n, 1);
	CHECK_EQ_I(c.level, GP_LOG_DEBUG);
	CHECK_STR(c.tag, "tests/log");
	CHECK_STR(c.msg, "chunk 3 skipped");
	gp_trace("not at debug: %d", counted());
	CHECK_EQ_I(c.n, 1);
	CHECK_EQ_I(side_effects, 0);
	gp_log_set_sink(capture_sink, &c, GP_LOG_WARN);
	gp_debug("off: %d", counted());
	CHECK_EQ_I(c.n, 1);
	CHECK_EQ_I(side_effects, 0);
	CHECK(!gp_log_enabled(GP_LOG_INFO));
	CHECK(gp_log_enabled(GP_LOG_WARN));
	gp_log_set_sink(NULL, NULL, GP_LOG_TRACE);
	CHECK(!gp_log_enabled(GP_LOG_ERROR));
}

TEST(log_level_names)
{
	static const char *const names[] = {"error", "warn", "info", "debug", "trace"};
	enum gp_log_level level = GP_LOG_WARN;

	for (int i = 0; i < 5; i++) {
		CHECK(gp_log_level_parse(names[i], &level));
		CHECK_EQ_I(level, i);
	}
	level = GP_LOG_DEBUG;
	CHECK(!gp_log_level_parse("warning", &level));
	CHECK(!gp_log_level_parse("", &level));
	CHECK(!gp_log_level_parse("DEBUG", &level));
	CHECK_EQ_I(level, GP_LOG_DEBUG);
}
