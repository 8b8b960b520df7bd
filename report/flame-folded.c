/* SPDX-License-Identifier: MIT */
/*
 * flame-folded.c - flame trees as folded stacks (flamegraph.pl, inferno,
 * difffolded.pl), walked depth first in the tree's name order.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/flame.h"
#include "report/report.h"
#include "report/flame-graph.h"

int gpr_flame_folded(struct gp_strbuf *out, const struct gpa_flame *f)
{
	const struct gpa_flame_node *v = f->nodes.v;
	struct gp_strbuf path = GP_STRBUF_INIT;
	GP_VEC(size_t) plen = {0};
	uint32_t i;
	int ret = 0;

	if (!f->nodes.n || gp_vec_push(&plen, (size_t)0)) {
		return f->nodes.n ? -GP_ERR_NOMEM : 0;
	}
	i = v[0].child;
	while (i != GPA_NONE) {
		unsigned d = v[i].depth;
		if (gp_vec_reserve(&plen, d + 1)) {
			ret = -GP_ERR_NOMEM;
			break;
		}
		path.len = plen.v[d - 1];
		if (path.alloc) {
			path.buf[path.len] = '\0';
		}
		if (d > 1) {
			gp_strbuf_addch(&path, ';');
		}
		gp_strbuf_adds(&path, gpa_flame_name(f, i));
		plen.v[d] = path.len;
		if (f->diff ? (v[i].self || v[i].self0) : v[i].self > 0) {
			gp_strbuf_add(out, path.buf, path.len);
			if (f->diff) {
				gp_strbuf_addf(out, " %" PRIu64 " %" PRIu64 "\n", v[i].self0, v[i].self);
			} else {
				gp_strbuf_addf(out, " %" PRIu64 "\n", v[i].self);
			}
		}
		if (v[i].child != GPA_NONE) {
			i = v[i].child;
			continue;
		}
		while (i && v[i].next == GPA_NONE) {
			i = v[i].parent;
		}
		i = i ? v[i].next : GPA_NONE;
	}
	if (path.failed || out->failed) {
		ret = -GP_ERR_NOMEM;
	}
	gp_strbuf_release(&path);
	gp_vec_free(&plen);
	return ret;
}
