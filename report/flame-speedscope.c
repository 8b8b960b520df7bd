/* SPDX-License-Identifier: MIT */
/*
 * flame-speedscope.c - flame trees as speedscope files (the file-format
 * spec of speedscope: shared frames, "sampled" and "evented" profiles).
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/flame.h"
#include "report/report.h"
#include "report/flame-graph.h"
#include "report/flame.h"

#include <stdio.h>

#ifndef GP_VERSION
#define GP_VERSION "unknown"
#endif

/* Frame index of each node's name, names numbered in first-use order. */
static int frame_index(const struct gpa_flame *f, uint32_t **node_frame, struct gp_strbuf *out,
		       struct gp_strbuf *tmp)
{
	uint32_t *by_name = malloc((f->names.len + 1) * sizeof(*by_name));
	uint32_t *nf = malloc((f->nodes.n + 1) * sizeof(*nf));
	uint32_t next = 0;

	if (!by_name || !nf) {
		free(by_name);
		free(nf);
		return -GP_ERR_NOMEM;
	}
	memset(by_name, 0xff, (f->names.len + 1) * sizeof(*by_name));
	gp_strbuf_adds(out, "\"shared\":{\"frames\":[");
	for (size_t i = 1; i < f->nodes.n; i++) {
		uint32_t nm = f->nodes.v[i].name;
		if (by_name[nm] == UINT32_MAX) {
			const char *s = gpa_flame_name(f, (uint32_t)i);
			by_name[nm] = next++;
			gp_strbuf_adds(out, next > 1 ? ",\n{\"name\":" : "\n{\"name\":");
			gp_strbuf_reset(tmp);
			gpr_flame_add_utf8_(tmp, s, strlen(s));
			gp_strbuf_add_json_str(out, tmp->buf, tmp->len);
			gp_strbuf_addch(out, '}');
		}
		nf[i] = by_name[nm];
	}
	gp_strbuf_adds(out, "]},\n");
	free(by_name);
	*node_frame = nf;
	return 0;
}

/* The next node in depth-first (tree) order after i; 0 at the end. */
static uint32_t dfs_next(const struct gpa_flame_node *v, uint32_t i)
{
	if (v[i].child != GPA_NONE) {
		return v[i].child;
	}
	while (i && v[i].next == GPA_NONE) {
		i = v[i].parent;
	}
	return i ? v[i].next : 0;
}

/* Samples in tree order, as the folded lines: the same stacks, the same order. */
static void sampled(struct gp_strbuf *out, const struct gpa_flame *f, const uint32_t *nf)
{
	const struct gpa_flame_node *v = f->nodes.v;
	bool first = true;

	gp_strbuf_adds(out, "\"profiles\":[{\"type\":\"sampled\",\"name\":");
	gp_strbuf_adds(out, f->weight == GPA_FLAME_API_TIME     ? "\"CUDA API time\""
			    : f->weight == GPA_FLAME_WALL_SHARE ? "\"GPU wall-time share\""
								 : "\"GPU time\"");
	gp_strbuf_addf(out, ",\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":%" PRIu64
			    ",\n\"samples\":[",
		       v[0].total);
	for (uint32_t i = dfs_next(v, 0); i; i = dfs_next(v, i)) {
		if (!v[i].self) {
			continue;
		}
		/* The path, root side first: collect it backwards. */
		uint32_t stack[4100]; /* deeper than any tree path (flame.c) */
		size_t n = 0;
		for (uint32_t k = i; k && n < GP_ARRAY_SIZE(stack); k = v[k].parent) {
			stack[n++] = nf[k];
		}
		gp_strbuf_adds(out, first ? "\n[" : ",\n[");
		first = false;
		while (n--) {
			gp_strbuf_addf(out, "%" PRIu32 "%s", stack[n], n ? "," : "");
		}
		gp_strbuf_addch(out, ']');
	}
	gp_strbuf_adds(out, "],\n\"weights\":[");
	first = true;
	for (uint32_t i = dfs_next(v, 0); i; i = dfs_next(v, i)) {
		if (v[i].self) {
			gp_strbuf_addf(out, "%s%" PRIu64, first ? "" : ",", v[i].self);
			first = false;
		}
	}
	gp_strbuf_adds(out, "]}]");
}

struct op_ref {
	uint32_t proc, dev, stream;
	uint32_t g;
	uint64_t start;
};

static int by_stream(const void *a, const void *b)
{
	const struct op_ref *x = a, *y = b;

	if (x->dev != y->dev) {
		return x->dev < y->dev ? -1 : 1;
	}
	if (x->stream != y->stream) {
		return x->stream < y->stream ? -1 : 1;
	}
	if (x->start != y->start) {
		return x->start < y->start ? -1 : 1;
	}
	return x->g < y->g ? -1 : x->g > y->g;
}

static int evented(struct gp_strbuf *out, const struct gpa_flame *f, const struct gpa_model *m,
		   const uint32_t *nf)
{
	const struct gpa_flame_node *v = f->nodes.v;
	struct op_ref *ops = malloc((gpa_gpu_rows(m) + 1) * sizeof(*ops));
	size_t n = 0;

	if (!ops) {
		return -GP_ERR_NOMEM;
	}
	for (size_t g = 0; g < gpa_gpu_rows(m); g++) {
		if (f->op_node[g] != GPA_NONE) {
			ops[n++] = (struct op_ref){gpa_dev_proc(m, gpa_gpu_dev(m, g)), gpa_gpu_dev(m, g),
						   gpa_gpu_stream(m, g), (uint32_t)g, gpa_gpu_start(m, g)};
		}
	}
	gp_qsort(ops, n, sizeof(*ops), by_stream);
	gp_strbuf_adds(out, "\"profiles\":[");
	for (size_t i = 0; i < n;) {
		size_t j = i;
		uint64_t at = 0, first_at;
		const struct gpa_proc *p = &m->procs.v[ops[i].proc];
		while (j < n && ops[j].dev == ops[i].dev && ops[j].stream == ops[i].stream) {
			j++;
		}
		gp_strbuf_adds(out, i ? ",\n{" : "\n{");
		gp_strbuf_adds(out, "\"type\":\"evented\",\"name\":\"");
		if (p->rank >= 0) {
			gp_strbuf_addf(out, "rank %" PRId32, p->rank);
		} else {
			gp_strbuf_addf(out, "pid %" PRIu32, p->pid);
		}
		gp_strbuf_addf(out, " device %" PRIu32 " stream %" PRIu32 "\",", m->devs.v[ops[i].dev].id,
			       ops[i].stream);
		first_at = gpa_gpu_start(m, ops[i].g) - m->t0;
		gp_strbuf_addf(out, "\"unit\":\"nanoseconds\",\"startValue\":%" PRIu64 ",\"events\":[",
			       first_at);
		at = first_at;
		for (size_t k = i; k < j; k++) {
			uint32_t g = ops[k].g;
			uint64_t s = gpa_gpu_start(m, g) - m->t0, e = gpa_gpu_end(m, g) - m->t0;
			uint32_t stack[4100]; /* deeper than any tree path (flame.c) */
			size_t d = 0;
			for (uint32_t x = f->op_node[g]; x && d < GP_ARRAY_SIZE(stack); x = v[x].parent) {
				stack[d++] = nf[x];
			}
			/* Overlapping ops on one stream (clock skew) are moved, never reordered. */
			at = s > at ? s : at;
			for (size_t q = d; q-- > 0;) {
				gp_strbuf_addf(out, "%s{\"type\":\"O\",\"frame\":%" PRIu32 ",\"at\":%" PRIu64 "}",
					       k == i && q == d - 1 ? "\n" : ",\n", stack[q], at);
			}
			at = e > at ? e : at;
			for (size_t q = 0; q < d; q++) {
				gp_strbuf_addf(out, ",\n{\"type\":\"C\",\"frame\":%" PRIu32 ",\"at\":%" PRIu64 "}",
					       stack[q], at);
			}
		}
		gp_strbuf_addf(out, "],\"endValue\":%" PRIu64 "}", at);
		i = j;
	}
	gp_strbuf_adds(out, "]");
	free(ops);
	return 0;
}

int gpr_flame_speedscope(struct gp_strbuf *out, const struct gpa_flame *f,
			 const struct gpa_model *m, enum gpr_speedscope_type type, const char *name)
{
	struct gp_strbuf tmp = GP_STRBUF_INIT;
	uint32_t *nf = NULL;
	int ret;

	if (f->diff || !f->nodes.n || (type == GPR_SPEEDSCOPE_EVENTED && (!m || !f->op_node))) {
		return -GP_ERR_API;
	}
	gp_strbuf_adds(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n");
	gp_strbuf_adds(out, "\"exporter\":\"gpuprof@" GP_VERSION "\",\"name\":");
	gpr_flame_add_utf8_(&tmp, name ? name : "gpuprof flame graph", strlen(name ? name : "gpuprof flame graph"));
	gp_strbuf_add_json_str(out, tmp.buf, tmp.len);
	gp_strbuf_adds(out, ",\"activeProfileIndex\":0,\n");
	ret = frame_index(f, &nf, out, &tmp);
	gp_strbuf_release(&tmp);
	if (ret) {
		return ret;
	}
	if (type == GPR_SPEEDSCOPE_EVENTED) {
		ret = evented(out, f, m, nf);
	} else {
		sampled(out, f, nf);
	}
	gp_strbuf_adds(out, "}\n");
	free(nf);
	if (!ret && out->failed) {
		ret = -GP_ERR_NOMEM;
	}
	return ret;
}
