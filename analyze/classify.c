/* SPDX-License-Identifier: MIT */
/*
 * classify.c - colour categories of kernel names for flame graphs: an
 * ordered list of PCRE2 rules, the user's first, then the built-in ones.
 */
#include "base/compat.h"
#include "analyze/flame.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>

struct rule {
	pcre2_code *re;
	uint8_t cat;
};

struct gpa_classifier {
	GP_VEC(struct rule) rules;
	pcre2_match_data *md;
};

static const char *const cat_names[GPA_CAT__COUNT] = {
	"other", "gemm", "attention", "communication", "elementwise", "copy",
};

/*
 * The built-in rules, in order: attention before GEMM (fused attention
 * kernels mention their MMA tiles). No communication rule: which kernels
 * communicate is the shared classification's answer (analyze/commclass.h),
 * which the flame graph asks before these rules.
 */
static const char builtin_rules[] =
	"attention (?i)flash|attention|attn|fmha|sdpa|xformers|(^|[^a-z])mha\n"
	"gemm (?i)gemm|matmul|cutlass|cublas|xmma|wgmma|hmma|(^|[^a-z])mma|sm[0-9]+_xmma|ampere_|volta_|turing_|hopper_\n"
	"copy (?i)^\\[CUDA mem|memcpy|memset\n"
	"elementwise (?i)elementwise|vectorized|unrolled|triton_poi|pointwise|fill|gelu|relu|silu|sigmoid|tanh|dropout|(^|[^a-z])(add|mul|sub|div)|multi_tensor_apply|adam\n";

const char *gpa_category_name(unsigned cat)
{
	return cat < GPA_CAT__COUNT ? cat_names[cat] : NULL;
}

int gpa_category_parse(const char *name)
{
	for (unsigned i = 0; i < GPA_CAT__COUNT; i++) {
		if (!strcmp(name, cat_names[i])) {
			return (int)i;
		}
	}
	if (!strcmp(name, "comm")) {
		return GPA_CAT_COMM;
	}
	return -1;
}

/* Adds the rules of text; errors say "name: line N: what". */
static int add_rules(struct gpa_classifier *c, const char *text, const char *name, char *errbuf,
		     size_t errlen)
{
	const char *p = text;
	unsigned line = 0;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char cat[32];
		size_t i = 0, k;

		line++;
		while (i < len && (p[i] == ' ' || p[i] == '\t')) {
			i++;
		}
		if (i < len && p[i] != '#' && p[i] != '\r') {
			k = i;
			while (k < len && p[k] != ' ' && p[k] != '\t') {
				k++;
			}
			if (k - i >= sizeof(cat)) {
				snprintf(errbuf, errlen, "%s: line %u: unknown category", name, line);
				return -GP_ERR_FORMAT;
			}
			memcpy(cat, p + i, k - i);
			cat[k - i] = '\0';
			int v = gpa_category_parse(cat);
			if (v < 0) {
				snprintf(errbuf, errlen,
					 "%s: line %u: unknown category '%s' (gemm, attention, "
					 "communication, elementwise, copy, other)",
					 name, line, cat);
				return -GP_ERR_FORMAT;
			}
			while (k < len && (p[k] == ' ' || p[k] == '\t')) {
				k++;
			}
			size_t end = len;
			while (end > k && (p[end - 1] == '\r' || p[end - 1] == ' ')) {
				end--;
			}
			if (end == k) {
				snprintf(errbuf, errlen, "%s: line %u: no pattern after '%s'", name,
					 line, cat);
				return -GP_ERR_FORMAT;
			}
			int errcode;
			PCRE2_SIZE erroff;
			pcre2_code *re = pcre2_compile((PCRE2_SPTR)(p + k), end - k, PCRE2_UTF,
						       &errcode, &erroff, NULL);
			if (!re && errcode == PCRE2_ERROR_HEAP_FAILED) {
				snprintf(errbuf, errlen, "out of memory");
				return -GP_ERR_NOMEM;
			}
			if (!re) {
				PCRE2_UCHAR msg[160];
				pcre2_get_error_message(errcode, msg, sizeof(msg));
				snprintf(errbuf, errlen, "%s: line %u: bad pattern at offset %zu: %s",
					 name, line, (size_t)erroff, (char *)msg);
				return -GP_ERR_FORMAT;
			}
			struct rule r = {re, (uint8_t)v};
			if (gp_vec_push(&c->rules, r)) {
				pcre2_code_free(re);
				return -GP_ERR_NOMEM;
			}
		}
		if (!eol) {
			break;
		}
		p = eol + 1;
	}
	return 0;
}

int gpa_classifier_new(const char *text, const char *name, struct gpa_classifier **out,
		       char *errbuf, size_t errlen)
{
	struct gpa_classifier *c = calloc(1, sizeof(*c));
	int ret;

	*out = NULL;
	if (!c) {
		return -GP_ERR_NOMEM;
	}
	ret = text ? add_rules(c, text, name ? name : "rules", errbuf, errlen) : 0;
	if (!ret) {
		ret = add_rules(c, builtin_rules, "built-in rules", errbuf, errlen);
	}
	if (!ret) {
		c->md = pcre2_match_data_create(4, NULL);
		ret = c->md ? 0 : -GP_ERR_NOMEM;
	}
	if (ret) {
		gpa_classifier_free(c);
		return ret;
	}
	*out = c;
	return 0;
}

void gpa_classifier_free(struct gpa_classifier *c)
{
	if (!c) {
		return;
	}
	for (size_t i = 0; i < c->rules.n; i++) {
		pcre2_code_free(c->rules.v[i].re);
	}
	gp_vec_free(&c->rules);
	pcre2_match_data_free(c->md);
	free(c);
}

enum gpa_category gpa_classify(const struct gpa_classifier *c, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < c->rules.n; i++) {
		if (pcre2_match(c->rules.v[i].re, (PCRE2_SPTR)name, len, 0, 0, c->md, NULL) >= 0) {
			return (enum gpa_category)c->rules.v[i].cat;
		}
	}
	return GPA_CAT_OTHER;
}
