/* SPDX-License-Identifier: MIT */
/*
 * occupancy.c - tables of an occupancy result (docs/occupancy.md): per
 * kernel group, per step, and the document `gpuprof occupancy` prints.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/occupancy-calc.h"
#include "analyze/occupancy.h"
#include "analyze/steps.h"
#include "report/report.h"
#include "report/occupancy.h"

#include <inttypes.h>

static const struct gpr_col group_cols[] = {
	{"Kernel", GPR_COL_LEFT | GPR_COL_NAME, "kernel"},
	{"Device", GPR_COL_NUM, "device"},
	{"Launches", GPR_COL_NUM | GPR_COL_COUNT, "launches"},
	{"GPU Time (ns)", GPR_COL_NUM, "gpu_time_ns"},
	{"Grid", GPR_COL_LEFT | GPR_COL_DETAIL, "grid"},
	{"Block", GPR_COL_LEFT, "block"},
	{"Regs", GPR_COL_NUM | GPR_COL_DETAIL, "regs"},
	{"Smem (B)", GPR_COL_NUM | GPR_COL_DETAIL, "smem_bytes"},
	{"Blocks/SM", GPR_COL_NUM | GPR_COL_DETAIL, "blocks_per_sm"},
	{"Warps/SM", GPR_COL_NUM | GPR_COL_DETAIL, "warps_per_sm"},
	{"Occupancy (%)", GPR_COL_NUM, "occupancy_pct"},
	{"Limiter", GPR_COL_LEFT, "limiter"},
	{"Limits", GPR_COL_LEFT | GPR_COL_DETAIL, "limits"},
	{"Grid-limited (%)", GPR_COL_NUM | GPR_COL_DETAIL, "grid_limited_pct"},
	{"Waves", GPR_COL_NUM | GPR_COL_DETAIL, "waves"},
	{"Tail (%)", GPR_COL_NUM | GPR_COL_DETAIL, "tail_pct"},
	{"Source (%)", GPR_COL_NUM | GPR_COL_DETAIL, "source_pct"},
	{"What-if", GPR_COL_LEFT, "what_if"},
};

static const struct gpr_col step_cols[] = {
	{"Step", GPR_COL_LEFT, "step"},
	{"Kernels", GPR_COL_NUM | GPR_COL_COUNT, "kernels"},
	{"GPU Time (ns)", GPR_COL_NUM, "gpu_time_ns"},
	{"Occupancy, time-weighted (%)", GPR_COL_NUM, "occupancy_time_weighted_pct"},
};

static void cell_bp(struct gpr_table *t, uint32_t bp)
{
	gpr_table_cellf(t, "%u.%02u", bp / 100, bp % 100);
}

static void whatif(struct gp_strbuf *sb, const struct gpa_occ_group *g)
{
	const struct gpa_occ_whatif *w = &g->whatif;
	bool any = false;

	if (w->regs_for_more) {
		gp_strbuf_addf(sb, "regs<=%u: %u blocks", w->regs_for_more, w->regs_blocks);
		any = true;
	}
	if (w->has_smem_for_more) {
		gp_strbuf_addf(sb, "%ssmem<=%u B: %u blocks", any ? "; " : "", w->smem_for_more,
			       w->smem_blocks);
		any = true;
	}
	if (w->best_block_size && w->best_bp > g->bp) {
		gp_strbuf_addf(sb, "%sblock %u: %u.%02u%%", any ? "; " : "", w->best_block_size,
			       w->best_bp / 100, w->best_bp % 100);
	}
}

int gpr_occupancy_table(struct gpr_table *t, unsigned which, const struct gpa_model *m,
			const struct gpa_steps *steps, const struct gpa_occupancy *occ, size_t top)
{
	char lim[64];

	if (which == GPR_OCC_STEPS) {
		gpr_table_init(t, step_cols, GP_ARRAY_SIZE(step_cols));
		for (size_t i = 0; i < occ->steps.n; i++) {
			const struct gpa_occ_step *s = &occ->steps.v[i];
			const struct gpa_step *st = &steps->v.v[s->step];
			if (st->name) {
				gpr_table_cell(t, gpa_model_str(m, st->name));
			} else {
				gpr_table_cellf(t, "#%" PRId64, st->number);
			}
			gpr_table_cellf(t, "%" PRIu64, s->kernels);
			gpr_table_cellf(t, "%" PRIu64, s->gpu_ns);
			if (s->known_ns) {
				cell_bp(t, s->weighted_bp);
			} else {
				gpr_table_cell(t, "");
			}
		}
		return t->failed ? -GP_ERR_NOMEM : 0;
	}
	if (which != GPR_OCC_KERNELS) {
		gpr_table_init(t, group_cols, 0);
		return -GP_ERR_API;
	}
	gpr_table_init(t, group_cols, GP_ARRAY_SIZE(group_cols));
	for (size_t i = 0; i < occ->groups.n && i < top; i++) {
		const struct gpa_occ_group *g = &occ->groups.v[i];
		const struct gpa_func *f = &m->funcs.v[g->func];
		const struct gpa_shape *sh = &m->shapes.v[g->shape];
		gpr_table_cell(t, gpa_model_str(m, f->demangled ? f->demangled : f->name));
		gpr_table_cellf(t, "%u", m->devs.v[g->dev].id);
		gpr_table_cellf(t, "%" PRIu64, g->launches);
		gpr_table_cellf(t, "%" PRIu64, g->gpu_ns);
		gpr_table_cellf(t, "%dx%dx%d", sh->grid_x, sh->grid_y, sh->grid_z);
		gpr_table_cellf(t, "%dx%dx%d", sh->block_x, sh->block_y, sh->block_z);
		gpr_table_cellf(t, "%u", sh->regs);
		gpr_table_cellf(t, "%" PRId64, (int64_t)sh->static_smem + sh->dynamic_smem);
		if (g->status) {
			for (int k = 0; k < 3; k++) {
				gpr_table_cell(t, "");
			}
			gpr_table_cell(t, g->status == -GPA_OCC_EUNKNOWN ? "unknown device"
									 : "no launch configuration");
			gpr_table_cell(t, "");
			gpr_table_cell(t, "");
			gpr_table_cell(t, "");
			gpr_table_cell(t, "");
		} else {
			gpr_table_cellf(t, "%u", g->res.blocks);
			gpr_table_cellf(t, "%u", g->res.active_warps);
			cell_bp(t, g->bp);
			gpa_occ_limiter_str(g->res.limiters, lim, sizeof(lim));
			gpr_table_cell(t, lim);
			gpr_table_cell(t, g->dev_defaults ? "CC defaults" : "recorded");
			if (g->waves_milli || g->tail_bp) {
				cell_bp(t, g->grid_bp);
				gpr_table_cellf(t, "%u.%03u", g->waves_milli / 1000, g->waves_milli % 1000);
				cell_bp(t, g->tail_bp);
			} else {
				gpr_table_cell(t, "");
				gpr_table_cell(t, "");
				gpr_table_cell(t, "");
			}
		}
		if (sh->src_occupancy_bp) {
			cell_bp(t, sh->src_occupancy_bp);
		} else {
			gpr_table_cell(t, "");
		}
		struct gp_strbuf sb = GP_STRBUF_INIT;
		if (!g->status) {
			whatif(&sb, g);
		}
		gpr_table_cell(t, sb.buf ? sb.buf : "");
		gp_strbuf_release(&sb);
	}
	return t->failed ? -GP_ERR_NOMEM : 0;
}

void gpr_occupancy_headline(struct gp_strbuf *out, const struct gpa_occupancy *occ)
{
	gp_strbuf_addf(out, "%" PRIu64 " kernel launches in %zu groups; theoretical occupancy ",
		       occ->launches, occ->groups.n);
	if (occ->known_ns) {
		gp_strbuf_addf(out, "%u.%02u%%", occ->weighted_bp / 100, occ->weighted_bp % 100);
	} else {
		gp_strbuf_adds(out, "unknown");
	}
	gp_strbuf_adds(out, " weighted by GPU time");
	if (occ->unknown_launches) {
		gp_strbuf_addf(out, "; %" PRIu64 " launches without a known occupancy",
			       occ->unknown_launches);
	}
	gp_strbuf_adds(out, ".\n");
}

int gpr_occupancy_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
			 const struct gpa_model *m, const struct gpa_steps *steps,
			 const struct gpa_occupancy *occ, size_t top)
{
	int ret = 0;
	bool first = true;

	switch (fmt) {
	case GPR_FORMAT_TEXT: {
		size_t from = out->len;
		gp_strbuf_adds(out, "Theoretical occupancy: ");
		gpr_occupancy_headline(out, occ);
		gpr_text_wrap_lines(out, d, from, 2);
		break;
	}
	case GPR_FORMAT_MARKDOWN:
		gp_strbuf_adds(out, "## Theoretical occupancy\n\n");
		gpr_occupancy_headline(out, occ);
		break;
	case GPR_FORMAT_JSON:
		gp_strbuf_addf(out,
			       "{\"schema\":\"gpuprof-occupancy/2\",\"launches\":%" PRIu64
			       ",\"groups\":%zu,\"unknown_launches\":%" PRIu64
			       ",\"gpu_time_ns\":%" PRIu64 ",\"weighted_occupancy_pct\":",
			       occ->launches, occ->groups.n, occ->unknown_launches, occ->gpu_ns);
		if (occ->known_ns) {
			gp_strbuf_addf(out, "%u.%02u", occ->weighted_bp / 100, occ->weighted_bp % 100);
		} else {
			gp_strbuf_adds(out, "null");
		}
		first = false;
		break;
	case GPR_FORMAT_CSV:
		break;
	default:
		return -GP_ERR_API;
	}
	struct gpr_table t;
	ret = gpr_occupancy_table(&t, GPR_OCC_KERNELS, m, steps, occ, top);
	if (ret) {
		gpr_table_release(&t);
		return ret;
	}
	ret = gpr_table_section(&t, fmt, d, "Kernels by GPU time", "kernels", first, out);
	if (!ret && occ->steps.n) {
		ret = gpr_occupancy_table(&t, GPR_OCC_STEPS, m, steps, occ, top);
		if (ret) {
			gpr_table_release(&t);
			return ret;
		}
		ret = gpr_table_section(&t, fmt, d, "Per step", "steps", false, out);
	}
	if (!ret && fmt == GPR_FORMAT_JSON) {
		gp_strbuf_adds(out, "}\n");
	}
	return ret ? ret : (out->failed ? -GP_ERR_NOMEM : 0);
}
