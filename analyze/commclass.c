/* SPDX-License-Identifier: MIT */
/*
 * commclass.c - which kernels and copies are communication (commclass.h has
 * the order of evidence; docs/comm.md the rules). Name rules are matched
 * once per kernel function, the CPU-op rule once per range name.
 */
#include "base/compat.h"
#include "analyze/commclass.h"
#include "analyze/model.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>

/*
 * Built-in kernel-name rules by library. The first is NCCL's own family
 * (checked against linked records); the others stand alone.
 */
static const struct {
	const char *family, *re;
} builtin[] = {
	{"nccl", "(?i)(^|[^a-z])(nccl|rccl)"},
	{"nvshmem", "(?i)nvshmem"},
	{"mscclpp", "(?i)mscclpp"},
	/* DeepEP: every kernel of its intranode, internode and low-latency namespaces. */
	{"deepep", "(?i)deep_?ep|(^|::|[0-9])(intra|inter)node(_ll)?(::|[0-9])"},
	/* PyTorch symmetric memory: multimem and one-/two-shot all-reduce, all-gather. */
	{"symm-mem", "(?i)multimem_|symm_?mem|(one|two)_?shot_?all_?(reduce|gather)"},
	/* vLLM and SGLang custom all-reduce, TensorRT-LLM / FlashInfer fused all-reduce. */
	{"custom-allreduce",
	 "(?i)cross_device_reduce|custom_?all_?reduce|allreduce_fusion|lamport|"
	 "(one|two)_?shot_?all_?reduce|quick_?all_?reduce"},
};
#define NBUILTIN (sizeof(builtin) / sizeof(builtin[0]))

struct rules {
	pcre2_code *re[NBUILTIN];
	pcre2_code **user;
	size_t nuser;
	pcre2_code *cpu_op, *host_op;
	pcre2_match_data *md;
};

static pcre2_code *compile(const char *pat, char *errbuf, size_t errlen)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code,
				       &off, NULL);

	if (!re && errbuf && code == PCRE2_ERROR_HEAP_FAILED) {
		snprintf(errbuf, errlen, "out of memory");
	} else if (!re && errbuf) {
		PCRE2_UCHAR msg[128];
		pcre2_get_error_message(code, msg, sizeof(msg));
		snprintf(errbuf, errlen, "bad kernel rule '%s': %s at offset %zu", pat,
			 (const char *)msg, (size_t)off);
	}
	return re;
}

static void rules_free(struct rules *r)
{
	for (size_t i = 0; i < NBUILTIN; i++) {
		pcre2_code_free(r->re[i]);
	}
	for (size_t i = 0; i < r->nuser; i++) {
		pcre2_code_free(r->user[i]);
	}
	free(r->user);
	pcre2_code_free(r->cpu_op);
	pcre2_code_free(r->host_op);
	pcre2_match_data_free(r->md);
}

static int rules_init(struct rules *r, const struct gpa_commclass_opts *o, char *errbuf,
		      size_t errlen)
{
	size_t nu = o ? o->nkernel_rules : 0;

	memset(r, 0, sizeof(*r));
	r->md = pcre2_match_data_create(4, NULL);
	r->user = calloc(nu ? nu : 1, sizeof(*r->user));
	if (!r->md || !r->user) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < nu; i++) {
		r->user[i] = compile(o->kernel_rules[i], errbuf, errlen);
		if (!r->user[i]) {
			return strcmp(errbuf, "out of memory") ? -GP_ERR_API : -GP_ERR_NOMEM;
		}
		r->nuser++;
	}
	for (size_t i = 0; i < NBUILTIN; i++) {
		r->re[i] = compile(builtin[i].re, NULL, 0);
		if (!r->re[i]) {
			return -GP_ERR_NOMEM; /* built in: only memory can fail */
		}
	}
	r->cpu_op = compile(GPA_COMM_CPU_OP_PATTERN, NULL, 0);
	r->host_op = compile(GPA_COMM_HOST_OP_PATTERN, NULL, 0);
	return r->cpu_op && r->host_op ? 0 : -GP_ERR_NOMEM;
}

static bool match(const struct rules *r, pcre2_code *re, const char *s)
{
	return s && *s && pcre2_match(re, (PCRE2_SPTR)s, strlen(s), 0, 0, r->md, NULL) >= 0;
}

/* Bits of a function's name rules: the built-in rule (1 + its index, 0 none), a user rule. */
#define FAM_BUILTIN 0x0f
#define FAM_USER 0x10
#define FAM_UNSET 0xff

static uint8_t name_rules(const struct rules *r, const char *s)
{
	uint8_t k = 0;

	for (size_t i = 0; i < NBUILTIN && !k; i++) {
		if (match(r, r->re[i], s)) {
			k = (uint8_t)(1 + i);
		}
	}
	for (size_t i = 0; i < r->nuser; i++) {
		if (match(r, r->user[i], s)) {
			return k | FAM_USER;
		}
	}
	return k;
}

/*
 * Whether the launch call api ran inside a communication CPU op: the
 * innermost enclosing range that is not a Python frame decides, when it is a
 * PyTorch CPU op or annotation. NVTX ranges do not: in nsys exports the
 * innermost NVTX range of a launch is not reliable evidence (kernels of the
 * model's forward show up inside NCCL's own ncclGroupEnd range). by_str
 * caches per range name: 0 unknown, 1 no, 2 yes.
 */
static bool launched_by_comm_op(const struct gpa_model *m, const struct rules *r, uint32_t api,
				uint8_t *by_str)
{
	uint32_t n = api == GPA_NONE ? GPA_NONE : gpa_api_nvtx(m, api);

	while (n != GPA_NONE && (gpa_nvtx_origin(m, n) == GPA_RANGE_PYTHON ||
				 gpa_nvtx_origin(m, n) == GPA_RANGE_GPU_ANNOTATION)) {
		n = gpa_nvtx_parent(m, n);
	}
	if (n == GPA_NONE || (gpa_nvtx_origin(m, n) != GPA_RANGE_CPU_OP &&
			      gpa_nvtx_origin(m, n) != GPA_RANGE_ANNOTATION)) {
		return false;
	}
	uint32_t s = gpa_nvtx_name(m, n);
	if (!by_str[s]) {
		by_str[s] = match(r, r->cpu_op, gpa_model_str(m, s)) ? 2 : 1;
	}
	return by_str[s] == 2;
}

/* The name rules of function f: its recorded name's, else its demangled name's. */
static uint8_t func_rules(const struct gpa_model *m, const struct rules *r, uint32_t f)
{
	const struct gpa_func *fn = &m->funcs.v[f];
	uint8_t k = name_rules(r, gpa_model_str(m, fn->name));

	if (fn->demangled) {
		uint8_t d = name_rules(r, gpa_model_str(m, fn->demangled));
		k = (uint8_t)(((k & FAM_BUILTIN) ? (k & FAM_BUILTIN) : (d & FAM_BUILTIN)) |
			      ((k | d) & FAM_USER));
	}
	return k;
}

/* Whether range n is a collective library's CPU op or annotation; by_str caches per name. */
static bool is_host_coll(const struct gpa_model *m, const struct rules *r, uint32_t n,
			 uint8_t *by_str)
{
	uint8_t o = gpa_nvtx_origin(m, n);
	uint32_t s = gpa_nvtx_name(m, n);

	if (o != GPA_RANGE_CPU_OP && o != GPA_RANGE_ANNOTATION) {
		return false;
	}
	if (!by_str[s]) {
		by_str[s] = match(r, r->host_op, gpa_model_str(m, s)) ? 2 : 1;
	}
	return by_str[s] == 2;
}

/* Collectives a library recorded on the host: the outermost matching range of a nest. */
static void host_collectives(const struct gpa_model *m, const struct rules *r, uint8_t *by_str,
			     struct gpa_commclass *out)
{
	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		if (!is_host_coll(m, r, (uint32_t)i, by_str)) {
			continue;
		}
		bool nested = false;
		for (uint32_t p = gpa_nvtx_parent(m, i); p != GPA_NONE && !nested;
		     p = gpa_nvtx_parent(m, p)) {
			nested = is_host_coll(m, r, p, by_str);
		}
		if (!nested) {
			out->host_name = out->host_colls++ ? out->host_name : gpa_nvtx_name(m, i);
		}
	}
}

int gpa_commclass_compute(const struct gpa_model *m, const struct gpa_commclass_opts *o,
			  struct gpa_commclass *out, char *errbuf, size_t errlen)
{
	const uint32_t *kop = m->nccl ? m->nccl->kern_op : NULL;
	uint8_t *fam = NULL, *linked = NULL, *by_str = NULL;
	struct rules r;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = rules_init(&r, o, errbuf, errlen);
	if (ret) {
		goto out;
	}
	ret = -GP_ERR_NOMEM;
	out->kern = calloc(gpa_kern_rows(m) ? gpa_kern_rows(m) : 1, 1);
	out->copy = calloc(gpa_copy_rows(m) ? gpa_copy_rows(m) : 1, 1);
	fam = malloc(m->funcs.n ? m->funcs.n : 1);
	linked = calloc(m->procs.n ? m->procs.n : 1, 1);
	by_str = calloc(m->strs.off.n + 2, 1);
	if (!out->kern || !out->copy || !fam || !linked || !by_str) {
		goto out;
	}
	memset(fam, FAM_UNSET, m->funcs.n ? m->funcs.n : 1);
	for (size_t k = 0; kop && k < gpa_kern_rows(m); k++) {
		if (kop[k] != GPA_NONE) {
			linked[gpa_dev_proc(m, gpa_kern_dev(m, k))] = 1;
		}
	}
	for (size_t k = 0; k < gpa_kern_rows(m); k++) {
		uint8_t why = GPA_COMM_NOT;
		uint32_t f = gpa_kern_func(m, k);
		if (kop && kop[k] != GPA_NONE) {
			why = GPA_COMM_RECORD;
		} else if (launched_by_comm_op(m, &r, gpa_kern_api(m, k), by_str)) {
			why = GPA_COMM_CPU_OP;
		} else {
			if (fam[f] == FAM_UNSET) {
				fam[f] = func_rules(m, &r, f);
			}
			uint8_t b = fam[f] & FAM_BUILTIN;
			/* Where kernels link to NCCL records, an NCCL-named one must link too. */
			bool nccl_unlinked = b == 1 && linked[gpa_dev_proc(m, gpa_kern_dev(m, k))];
			if (b && !nccl_unlinked) {
				why = GPA_COMM_NAME;
			} else if (fam[f] & FAM_USER) {
				why = GPA_COMM_USER;
			}
		}
		out->kern[k] = why;
		out->n[why]++;
	}
	for (size_t c = 0; c < gpa_copy_rows(m); c++) {
		out->copy[c] = gpa_copy_copy_kind(m, c) == GPT_COPY_KIND_PTOP ? GPA_COMM_PEER : 0;
		out->n[out->copy[c]] += out->copy[c] != 0;
	}
	memset(by_str, 0, m->strs.off.n + 2);
	host_collectives(m, &r, by_str, out);
	ret = 0;
out:
	rules_free(&r);
	free(fam);
	free(linked);
	free(by_str);
	return ret;
}

void gpa_commclass_release(struct gpa_commclass *c)
{
	free(c->kern);
	free(c->copy);
	memset(c, 0, sizeof(*c));
}
