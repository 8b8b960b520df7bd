/* SPDX-License-Identifier: MIT */
/*
 * warnings.c - the report's warnings beyond the overview's: what the efficiency
 * sections estimated, the same lines in text, Markdown, JSON and HTML.
 */
#include "base/compat.h"
#include "analyze/comm.h"
#include "analyze/mfu.h"
#include "analyze/occupancy.h"
#include "report/summary.h"

#include <inttypes.h>
#include <stdio.h>

/*
 * What the efficiency sections had to estimate or could not know, shown
 * under the warnings in every format: device limits taken from the compute
 * capability, launches without an occupancy, a peak estimated from SMs x
 * clock, an unknown link peak. Returns how many lines it wrote into est.
 */
size_t gpr_report_estimates(const struct gpr_report_parts *p, char est[GPR_ESTIMATES_MAX][256])
{
	size_t n = 0;

	if (p->occ) {
		size_t def = 0;
		for (size_t i = 0; i < p->occ->groups.n; i++) {
			def += p->occ->groups.v[i].dev_defaults;
		}
		if (def) {
			snprintf(est[n++], sizeof(est[0]),
				 "Occupancy of %zu kernel configuration%s uses the default limits of "
				 "the compute capability: the trace does not record the device's.",
				 def, def == 1 ? "" : "s");
		}
		if (p->occ->unknown_launches) {
			snprintf(est[n++], sizeof(est[0]),
				 "No occupancy for %" PRIu64 " launch%s: launch configuration or "
				 "compute capability not recorded.",
				 p->occ->unknown_launches, p->occ->unknown_launches == 1 ? "" : "es");
		}
	}
	/* (Without any peak the MFU options are refused before a page is made.) */
	if (p->mfu && (p->mfu->has_flops || p->mfu->has_bytes) &&
	    p->mfu->peaks.source == GPA_PEAK_ESTIMATE) {
		snprintf(est[n++], sizeof(est[0]),
			 "Utilization is against a peak estimated from SMs x clock: the device "
			 "is not in the table (gpuprof devices; --device-file).");
	}
	if (p->comm && p->comm->ops && !p->comm->peak_known) {
		snprintf(est[n++], sizeof(est[0]),
			 "Communication: link peak unknown, busbw is not compared with it.");
	}
	return n;
}

