/* SPDX-License-Identifier: MIT */
/*
 * job.h - the job report of many ranks (report/job.c, docs/cluster.md).
 */
#ifndef GPR_JOB_H
#define GPR_JOB_H

#include "report/report.h"

struct gpa_job;
enum {
	GPR_JOB_STEPS = 1,   /* step time per rank and per step */
	GPR_JOB_COMM = 2,    /* stragglers, collective skew */
	GPR_JOB_IDLE = 4,    /* idle by cause per rank */
	GPR_JOB_KERNELS = 8, /* kernels against the same kernels on the peers */
	GPR_JOB_ALL = 15,
};
/* Renders the parts of a job as text, Markdown or JSON. Returns 0 or -GP_ERR_NOMEM. */
int gpr_job_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
		   unsigned parts, const struct gpa_job *j);

#endif /* GPR_JOB_H */
