/* SPDX-License-Identifier: MIT */
/*
 * comm-rules.c - --comm-kernel, shared by every command that tells
 * communication apart (cli.h): the user's kernel-name rules, given to the
 * one classification (analyze/commclass.h).
 */
#include "base/compat.h"
#include "analyze/commclass.h"
#include "cli/cli.h"

static int add_rule(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	struct cli_comm_rules *o = ctx->base;

	(void)opt;
	if (o->n == CLI_COMM_RULES_MAX) {
		return cli_opt_usage_error(ctx, "more than %d --comm-kernel rules",
					   CLI_COMM_RULES_MAX);
	}
	o->rules[o->n++] = arg;
	return 0;
}

const struct cli_option cli_comm_options[] = {
	{.type = CLI_OPT_REGEX, 0, "comm-kernel", "REGEX",
	 "kernels matching this PCRE2 pattern communicate\n"
	 "(repeatable; docs/comm.md)",
	 .flags = CLI_OPTF_REASON_FIRST, .err = "kernel rule", .cb = add_rule},
	CLI_OPT_END(),
};

int cli_commclass(const struct gpa_model *m, const struct cli_comm_rules *r,
		  struct gpa_commclass *out)
{
	struct gpa_commclass_opts co = {r->rules, r->n};
	char err[512];
	int ret = gpa_commclass_compute(m, &co, out, err, sizeof(err));

	if (ret) {
		cli_error_ret(ret, err);
		return cli_exit_code(ret, 0);
	}
	return CMD_OK;
}

static void *commclass_main(void *arg)
{
	struct cli_commclass_job *j = arg;
	struct gpa_commclass_opts co = {j->r->rules, j->r->n};

	j->ret = gpa_commclass_compute(j->m, &co, j->out, j->err, sizeof(j->err));
	return NULL;
}

void cli_commclass_start(struct cli_commclass_job *j, struct cli_common *c,
			 const struct gpa_model *m, const struct cli_comm_rules *r,
			 struct gpa_commclass *out)
{
	unsigned threads = 1;

	*j = (struct cli_commclass_job){.m = m, .r = r, .out = out};
	j->threaded = cli_common_threads(c, &threads) == 0 && threads > 1 &&
		      pthread_create(&j->th, NULL, commclass_main, j) == 0;
	if (!j->threaded) {
		commclass_main(j);
	}
}

int cli_commclass_finish(struct cli_commclass_job *j, bool say)
{
	if (j->threaded) {
		pthread_join(j->th, NULL);
		j->threaded = false;
	}
	if (j->ret) {
		if (say) {
			cli_error_ret(j->ret, j->err);
		}
		return cli_exit_code(j->ret, 0);
	}
	return CMD_OK;
}
