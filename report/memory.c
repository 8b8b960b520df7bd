/* SPDX-License-Identifier: MIT */
/*
 * memory.c - rendering of the memory analysis (analyze/memory.c,
 * docs/memory.md): per device, the peak and what held it, the steps,
 * leaks, memory-management calls, and on request every event's totals.
 */
#include "base/compat.h"
#include "analyze/memory.h"
#include "report/memory.h"
#include "report/report.h"

#include <string.h>

static const struct {
	const char *name;
	unsigned bit;
	const char *title;
} tables[] = {
	{"devices", GPR_MEM_DEVICES, "Memory per device"},
	{"owners", GPR_MEM_OWNERS, "Live at each peak, by allocating range"},
	{"steps", GPR_MEM_STEPS, "Memory per step"},
	{"leaks", GPR_MEM_LEAKS, "Growth across steps"},
	{"calls", GPR_MEM_CALLS, "Memory-management calls"},
	{"timeline", GPR_MEM_TIMELINE, "Allocated and reserved after each event"},
};

int gpr_memory_table_parse(const char *name)
{
	for (size_t i = 0; i < GP_ARRAY_SIZE(tables); i++) {
		if (!strcmp(name, tables[i].name)) {
			return (int)tables[i].bit;
		}
	}
	return -1;
}

void gpr_memory_device_name(struct gp_strbuf *sb, const struct gpa_model *m,
			    const struct gpa_mem_pool *p)
{
	if (m->procs.n > 1) {
		gp_strbuf_addf(sb, "pid %u ", m->procs.v[p->proc].pid);
	}
	if (p->host) {
		gp_strbuf_adds(sb, "cpu");
	} else {
		gp_strbuf_addf(sb, "%s:%u", p->dev_type == 6 ? "hip" : "cuda", p->dev_id);
	}
}

static void cell_dev(struct gpr_table *t, const struct gpa_model *m, const struct gpa_mem_pool *p)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;

	gpr_memory_device_name(&sb, m, p);
	if (sb.failed) {
		t->failed = true; /* never a blank name for want of memory */
	}
	gpr_table_cell(t, sb.buf ? sb.buf : "");
	gp_strbuf_release(&sb);
}

static void cell_u64(struct gpr_table *t, uint64_t v)
{
	gpr_table_cellf(t, "%" PRIu64, v);
}

/* A time as ns from the start of the trace (its first timed record; negative before it). */
static int64_t rel(const struct gpa_model *m, uint64_t ts)
{
	return ts >= m->t0 ? (int64_t)(ts - m->t0) : -(int64_t)(m->t0 - ts);
}

static void cell_rel(struct gpr_table *t, const struct gpa_model *m, uint64_t ts)
{
	gpr_table_cellf(t, "%" PRId64, rel(m, ts));
}

static const struct gpr_col dev_cols[] = {
	{"Device", 0, "device"},
	{"Events", GPR_COL_NUM | GPR_COL_COUNT, "events"},
	{"Peak Allocated", GPR_COL_NUM | GPR_COL_BYTES, "peak_allocated_bytes"},
	{"Peak At (ns)", GPR_COL_NUM | GPR_COL_NS, "peak_at_ns"},
	{"Phase", 0, "phase"},
	{"Reserved At Peak", GPR_COL_NUM | GPR_COL_BYTES, "reserved_at_peak_bytes"},
	{"Reserved - Allocated", GPR_COL_NUM | GPR_COL_BYTES, "reserved_minus_allocated_bytes"},
	{"Max Reserved", GPR_COL_NUM | GPR_COL_BYTES, "max_reserved_bytes"},
	{"Capacity", GPR_COL_NUM | GPR_COL_BYTES, "capacity_bytes"},
	{"Totals", 0, "totals"},
};

static void dev_rows(struct gpr_table *t, const struct gpa_model *m, const struct gpa_memory *r)
{
	for (size_t i = 0; i < r->pools.n; i++) {
		const struct gpa_mem_pool *p = &r->pools.v[i];
		cell_dev(t, m, p);
		cell_u64(t, p->events);
		cell_u64(t, p->peak);
		cell_rel(t, m, p->peak_ts);
		gpr_table_cell(t, gpa_mem_phase_name(p->peak_phase));
		if (p->has_reserved) {
			cell_u64(t, p->peak_reserved);
			cell_u64(t, p->peak_reserved > p->peak ? p->peak_reserved - p->peak : 0);
			cell_u64(t, p->max_reserved);
		} else {
			gpr_table_cell(t, "");
			gpr_table_cell(t, "");
			gpr_table_cell(t, "");
		}
		if (p->capacity) {
			cell_u64(t, p->capacity);
		} else {
			gpr_table_cell(t, "");
		}
		gpr_table_cell(t, p->rebuilt ? "rebuilt" : "source");
	}
}

static const struct gpr_col owner_cols[] = {
	{"Device", 0, "device"},
	{"Allocated By", GPR_COL_NAME, "allocated_by"},
	{"Phase", 0, "phase"},
	{"Bytes", GPR_COL_NUM | GPR_COL_BYTES, "bytes"},
	{"Share", GPR_COL_NUM, "share_pct"},
	{"Allocations", GPR_COL_NUM | GPR_COL_COUNT, "allocations"},
};

static void owner_rows(struct gpr_table *t, const struct gpa_model *m, const struct gpa_mem_pool *p,
		       const struct gpa_mem_owner *o, size_t n, uint64_t whole)
{
	for (size_t k = 0; k < n; k++) {
		cell_dev(t, m, p);
		gpr_table_cell(t, o[k].name ? gpa_model_str(m, o[k].name) : "(no range)");
		gpr_table_cell(t, gpa_mem_phase_name(o[k].phase));
		cell_u64(t, o[k].bytes);
		gpr_table_cell_pct(t, o[k].bytes, whole);
		cell_u64(t, o[k].count);
	}
}

static void owners_table(struct gpr_table *t, const struct gpa_model *m, const struct gpa_memory *r)
{
	for (size_t i = 0; i < r->pools.n; i++) {
		const struct gpa_mem_pool *p = &r->pools.v[i];
		owner_rows(t, m, p, p->owners.v, p->owners.n, p->peak);
		if (p->peak > p->live_seen) {
			cell_dev(t, m, p);
			gpr_table_cell(t, "(allocated before the trace, or not matched)");
			gpr_table_cell(t, "unknown");
			cell_u64(t, p->peak - p->live_seen);
			gpr_table_cell_pct(t, p->peak - p->live_seen, p->peak);
			gpr_table_cell(t, "");
		}
	}
}

static const struct gpr_col step_cols[] = {
	{"Device", 0, "device"},
	{"Step", GPR_COL_NUM, "step"},
	{"Peak Allocated", GPR_COL_NUM | GPR_COL_BYTES, "peak_allocated_bytes"},
	{"Peak At (ns)", GPR_COL_NUM | GPR_COL_NS, "peak_at_ns"},
	{"Live At End", GPR_COL_NUM | GPR_COL_BYTES, "live_at_end_bytes"},
	{"Allocations", GPR_COL_NUM | GPR_COL_COUNT, "allocations"},
	{"Allocated Bytes", GPR_COL_NUM | GPR_COL_BYTES, "allocated_bytes"},
	{"Freed In Step", GPR_COL_NUM | GPR_COL_COUNT, "freed_in_step"},
	{"Freed In Step Bytes", GPR_COL_NUM | GPR_COL_BYTES, "freed_in_step_bytes"},
};

static void step_rows(struct gpr_table *t, const struct gpa_model *m, const struct gpa_memory *r)
{
	for (size_t i = 0; i < r->pools.n; i++) {
		const struct gpa_mem_pool *p = &r->pools.v[i];
		for (size_t k = 0; k < p->steps.n; k++) {
			const struct gpa_mem_step *s = &p->steps.v[k];
			cell_dev(t, m, p);
			gpr_table_cellf(t, "%" PRId64, s->number);
			if (s->has_events) {
				cell_u64(t, s->peak);
				cell_rel(t, m, s->peak_ts);
			} else {
				gpr_table_cell(t, "");
				gpr_table_cell(t, "");
			}
			cell_u64(t, s->end_live);
			cell_u64(t, s->allocs);
			cell_u64(t, s->alloc_bytes);
			cell_u64(t, s->churn);
			cell_u64(t, s->churn_bytes);
		}
	}
}

static const struct gpr_col leak_cols[] = {
	{"Device", 0, "device"},
	{"Growth Per Step", GPR_COL_NUM | GPR_COL_BYTES, "growth_per_step_bytes"},
	{"Allocated By", GPR_COL_NAME, "allocated_by"},
	{"Phase", 0, "phase"},
	{"Bytes Still Live", GPR_COL_NUM | GPR_COL_BYTES, "still_live_bytes"},
	{"Allocations", GPR_COL_NUM | GPR_COL_COUNT, "allocations"},
};

static void leak_rows(struct gpr_table *t, const struct gpa_model *m, const struct gpa_memory *r)
{
	for (size_t i = 0; i < r->pools.n; i++) {
		const struct gpa_mem_pool *p = &r->pools.v[i];
		if (!p->leak) {
			continue;
		}
		for (size_t k = 0; k < (p->leak_sites.n ? p->leak_sites.n : 1); k++) {
			const struct gpa_mem_owner *o = p->leak_sites.n ? &p->leak_sites.v[k] : NULL;
			cell_dev(t, m, p);
			cell_u64(t, p->leak_per_step);
			gpr_table_cell(t, !o ? "(not known)" : o->name ? gpa_model_str(m, o->name)
								    : "(no range)");
			gpr_table_cell(t, gpa_mem_phase_name(o ? o->phase : 0));
			if (o) {
				cell_u64(t, o->bytes);
				cell_u64(t, o->count);
			} else {
				gpr_table_cell(t, "");
				gpr_table_cell(t, "");
			}
		}
	}
}

static const struct gpr_col call_cols[] = {
	{"Calls", GPR_COL_NUM | GPR_COL_COUNT, "calls"},
	{"Total Time (ns)", GPR_COL_NUM | GPR_COL_NS, "total_time_ns"},
	{"Longest (ns)", GPR_COL_NUM | GPR_COL_NS, "longest_ns"},
	{"Longest Call", GPR_COL_NAME, "longest_call"},
	{"GPU Idle On Memory Management (ns)", GPR_COL_NUM | GPR_COL_NS,
	 "gpu_idle_on_memory_management_ns"},
};

static const struct gpr_col tl_cols[] = {
	{"Time (ns)", GPR_COL_NUM | GPR_COL_NS, "time_ns"}, {"Device", 0, "device"},
	{"Op", 0, "op"},                  {"Bytes", GPR_COL_NUM, "bytes"},
	{"Allocated", GPR_COL_NUM, "allocated_bytes"}, {"Reserved", GPR_COL_NUM, "reserved_bytes"},
};

static void tl_rows(struct gpr_table *t, const struct gpa_model *m, const struct gpa_memory *r)
{
	for (size_t i = 0; i < gpa_mem_rows(m) && !t->failed; i++) {
		cell_rel(t, m, gpa_mem_ts(m, i));
		cell_dev(t, m, &r->pools.v[gpa_memory_pool_at(r, i)]);
		gpr_table_cell(t, gpa_mem_op(m, i) == GPT_MEMORY_ALLOC ? "alloc" : "free");
		cell_u64(t, gpa_mem_bytes(m, i));
		cell_u64(t, gpa_memory_alloc_at(r, i));
		if (gpa_mem_flags(m, i) & GPT_MEMORY_HAS_RESERVED) {
			cell_u64(t, gpa_mem_total_res(m, i));
		} else {
			gpr_table_cell(t, "");
		}
	}
}

int gpr_memory_table(struct gpr_table *t, unsigned table, const struct gpa_model *m,
		     const struct gpa_memory *r)
{
	switch (table) {
	case GPR_MEM_DEVICES:
		gpr_table_init(t, dev_cols, GP_ARRAY_SIZE(dev_cols));
		dev_rows(t, m, r);
		break;
	case GPR_MEM_OWNERS:
		gpr_table_init(t, owner_cols, GP_ARRAY_SIZE(owner_cols));
		owners_table(t, m, r);
		break;
	case GPR_MEM_STEPS:
		gpr_table_init(t, step_cols, GP_ARRAY_SIZE(step_cols));
		step_rows(t, m, r);
		break;
	case GPR_MEM_LEAKS:
		gpr_table_init(t, leak_cols, GP_ARRAY_SIZE(leak_cols));
		leak_rows(t, m, r);
		break;
	case GPR_MEM_CALLS:
		gpr_table_init(t, call_cols, GP_ARRAY_SIZE(call_cols));
		cell_u64(t, r->mm_calls);
		cell_u64(t, r->mm_ns);
		cell_u64(t, r->mm_longest);
		gpr_table_cell(t, r->mm_calls ? gpa_model_str(m, r->mm_longest_name) : "");
		if (r->gap_known) {
			cell_u64(t, r->gap_memory_ns);
		} else {
			gpr_table_cell(t, "");
		}
		break;
	case GPR_MEM_TIMELINE:
		gpr_table_init(t, tl_cols, GP_ARRAY_SIZE(tl_cols));
		tl_rows(t, m, r);
		break;
	default:
		gpr_table_init(t, dev_cols, GP_ARRAY_SIZE(dev_cols));
		return -GP_ERR_API;
	}
	return t->failed ? -GP_ERR_NOMEM : 0;
}

/* The sentences above the tables: what the trace has and what it says. */
static void summary_lines(struct gp_strbuf *out, const struct gpa_model *m,
			  const struct gpa_memory *r)
{
	if (!r->pools.n) {
		gp_strbuf_adds(out, "No memory events in the trace: record allocations (PyTorch "
				    "profiler with profile_memory=True, nsys --cuda-memory-usage=true).\n");
		return;
	}
	bool any_dev = false;
	for (size_t i = 0; i < r->pools.n; i++) {
		any_dev |= !r->pools.v[i].host;
	}
	for (size_t i = 0; i < r->pools.n; i++) {
		const struct gpa_mem_pool *p = &r->pools.v[i];
		if (p->host && any_dev) {
			continue; /* host memory beside the GPUs': a table row, not a headline */
		}
		gp_strbuf_adds(out, "Peak ");
		gpr_memory_device_name(out, m, p);
		gp_strbuf_adds(out, ": ");
		gpr_fmt_bytes(out, p->peak);
		if (p->capacity) {
			gp_strbuf_adds(out, " of ");
			gpr_fmt_bytes(out, p->capacity);
		}
		gp_strbuf_adds(out, " allocated at ");
		gpr_fmt_time_human(out, (double)rel(m, p->peak_ts));
		if (p->peak_phase) {
			gp_strbuf_addf(out, ", in %s", gpa_mem_phase_name(p->peak_phase));
		}
		if (p->owners.n && p->owners.v[0].bytes) {
			gp_strbuf_addf(out, ", driven by %s (",
				       p->owners.v[0].name ? gpa_model_str(m, p->owners.v[0].name)
							   : "allocations outside any range");
			gpr_fmt_pct(out, p->owners.v[0].bytes, p->peak);
			gp_strbuf_adds(out, "%)");
		}
		if (p->has_reserved) {
			gp_strbuf_adds(out, "; reserved ");
			gpr_fmt_bytes(out, p->peak_reserved);
		}
		gp_strbuf_adds(out, p->rebuilt ? " (totals rebuilt from the events: bytes allocated "
						  "before the trace are not counted)"
					       : "");
		gp_strbuf_adds(out, ".\n");
		if (p->leak) {
			gp_strbuf_adds(out, "  Live bytes at step end rise every step: ");
			gpr_fmt_bytes(out, p->leak_per_step);
			gp_strbuf_adds(out, " per step.\n");
		}
	}
}

int gpr_memory_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
		      unsigned mask, const struct gpa_model *m, const struct gpa_memory *r)
{
	bool first = true;
	int ret = 0;

	if (fmt == GPR_FORMAT_JSON) {
		gp_strbuf_addf(out, "{\"schema\":\"gpuprof-memory/2\",\"events\":%" PRIu64
				    ",\"devices_with_events\":%zu",
			       r->events, r->pools.n);
	} else if (fmt == GPR_FORMAT_TEXT || fmt == GPR_FORMAT_MARKDOWN) {
		size_t from = out->len;
		summary_lines(out, m, r);
		if (fmt == GPR_FORMAT_TEXT) {
			gpr_text_wrap_lines(out, d, from, 2);
		}
		if (!r->pools.n && !(mask & GPR_MEM_CALLS)) {
			return out->failed ? -GP_ERR_NOMEM : 0;
		}
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(tables) && !ret; i++) {
		struct gpr_table t;
		if (!(mask & tables[i].bit)) {
			continue;
		}
		ret = gpr_memory_table(&t, tables[i].bit, m, r);
		if (ret || t.failed) {
			ret = ret ? ret : -GP_ERR_NOMEM;
			gpr_table_release(&t);
			break;
		}
		if ((fmt == GPR_FORMAT_TEXT || fmt == GPR_FORMAT_MARKDOWN) && !gpr_table_rows(&t)) {
			gpr_table_release(&t);
			continue;
		}
		ret = gpr_table_section(&t, fmt, d, tables[i].title, tables[i].name, first, out);
		first = false;
	}
	if (fmt == GPR_FORMAT_JSON) {
		gp_strbuf_adds(out, "}\n");
	}
	return ret ? ret : out->failed ? -GP_ERR_NOMEM : 0;
}
