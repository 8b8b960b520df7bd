/* SPDX-License-Identifier: MIT */
/*
 * op-models.c - FLOPs and bytes of a PyTorch operator from its recorded
 * inputs (docs/ops.md states each formula and its source). Bytes are the
 * minimum traffic: every input tensor read once, every output written once,
 * at each tensor's element size. An operator without a model gets none:
 * no FLOPs are guessed.
 */
#include "base/compat.h"
#include "analyze/ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IN 32
#define MAX_DIMS 8

/* One recorded input: a tensor (nd >= 0) or anything else (nd -1). */
struct in {
	int nd;
	int64_t d[MAX_DIMS];
	char type[32];
	char conc[48]; /* the "Concrete Inputs" text of a scalar or list */
};

struct sig {
	int n;
	struct in in[MAX_IN];
	bool dims, types;
};

/* Past one JSON value at p (string, number, literal or array), or NULL. */
static const char *skip_value(const char *p)
{
	int depth = 0;

	do {
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1]) {
					p++;
				}
			}
			if (!*p) {
				return NULL;
			}
			p++;
		} else if (*p == '[') {
			depth++;
			p++;
		} else if (*p == ']') {
			if (!depth) {
				return NULL;
			}
			depth--;
			p++;
		} else if (*p == ',' && depth) {
			p++;
		} else if (*p && *p != ' ' && *p != ',') {
			while (*p && *p != ',' && *p != ']' && *p != ' ') {
				p++;
			}
		} else {
			return NULL;
		}
	} while (depth);
	return p;
}

/* A string element at p into dst (escapes kept as written): past it, or NULL. */
static const char *read_str(const char *p, char *dst, size_t cap)
{
	const char *q = skip_value(p);
	size_t n;

	if (!q || *p != '"') {
		return q;
	}
	n = (size_t)(q - p - 2);
	n = n < cap - 1 ? n : cap - 1;
	memcpy(dst, p + 1, n);
	dst[n] = 0;
	return q;
}

/* One "Input Dims" element: [d0,d1,...] of numbers, else not a tensor. */
static const char *read_dims(const char *p, struct in *in)
{
	const char *q = skip_value(p);

	in->nd = -1;
	if (!q || *p != '[') {
		return q;
	}
	int nd = 0;
	const char *s = p + 1;
	while (*s != ']') {
		char *end;
		long long v = strtoll(s, &end, 10);
		if (end == s || v < 0 || nd == MAX_DIMS) {
			return q; /* a list of tensors or more dims than kept: not read */
		}
		in->d[nd++] = v;
		s = *end == ',' ? end + 1 : end;
		if (*end != ',' && *end != ']') {
			return q;
		}
	}
	in->nd = nd;
	return q;
}

/* Section letter's array at p ('[' expected): its elements into s. Past it, or NULL. */
static const char *read_section(const char *p, char letter, struct sig *s)
{
	int i = 0;

	if (*p != '[') {
		return NULL;
	}
	p++;
	while (*p && *p != ']') {
		const char *q;
		struct in *in = &s->in[i < MAX_IN ? i : MAX_IN - 1];
		if (letter == 'D') {
			q = read_dims(p, in);
		} else if (letter == 'T') {
			q = read_str(p, in->type, sizeof(in->type));
		} else if (letter == 'C') {
			q = read_str(p, in->conc, sizeof(in->conc));
		} else {
			q = skip_value(p);
		}
		if (!q) {
			return NULL;
		}
		i++;
		p = *q == ',' ? q + 1 : q;
	}
	if (*p != ']') {
		return NULL;
	}
	if (letter == 'D' || s->n < i) {
		s->n = i < MAX_IN ? i : MAX_IN;
	}
	return p + 1;
}

static bool parse_sig(const char *t, struct sig *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < MAX_IN; i++) {
		s->in[i].nd = -1;
	}
	while (*t) {
		char letter = t[0];
		if (!letter || t[1] != '=') {
			return false;
		}
		t = read_section(t + 2, letter, s);
		if (!t || (*t && *t != ' ')) {
			return false;
		}
		s->dims |= letter == 'D';
		s->types |= letter == 'T';
		t += *t == ' ';
	}
	return s->dims;
}

/* ------------------------------------------------------------ data types */

/* The type given to every tensor of a signature without a T section (NVTX sizes). */
#define UNTYPED "\x01"

/* Element size of a recorded type name; 0 unknown or not a tensor type. */
static int elem_size(const char *t)
{
	if (t[0] == UNTYPED[0] && !t[1]) {
		return 1; /* sizes without types: FLOPs count, bytes are dropped */
	}
	static const struct {
		const char *name;
		int size;
	} types[] = {
		{"float", 4}, {"double", 8}, {"c10::Half", 2}, {"c10::BFloat16", 2},
		{"c10::Float8_e4m3fn", 1}, {"c10::Float8_e5m2", 1}, {"c10::Float8_e4m3fnuz", 1},
		{"c10::Float8_e5m2fnuz", 1}, {"c10::Float8_e8m0fnu", 1}, {"int", 4},
		{"long int", 8}, {"long", 8}, {"short int", 2}, {"short", 2}, {"signed char", 1},
		{"unsigned char", 1}, {"bool", 1}, {"c10::complex<float>", 8},
		{"c10::complex<double>", 16}, {"c10::complex<c10::Half>", 4},
	};
	for (size_t i = 0; i < GP_ARRAY_SIZE(types); i++) {
		if (!strcmp(t, types[i].name)) {
			return types[i].size;
		}
	}
	return 0;
}

/* The peak a compute type runs at (enum gpa_dtype); -1 none in the table. */
static int peak_dtype(const char *t)
{
	if (!strcmp(t, "c10::BFloat16") || !strcmp(t, "c10::Half")) {
		return GPA_DT_BF16;
	}
	if (!strncmp(t, "c10::Float8", 11)) {
		return GPA_DT_FP8;
	}
	if (!strcmp(t, "float")) {
		return GPA_DT_TF32; /* tensor-core FP32 (TF32): the table has no FP32 vector rate */
	}
	if (!strcmp(t, "double")) {
		return GPA_DT_FP64_TC;
	}
	if (!strcmp(t, "signed char") || !strcmp(t, "unsigned char")) {
		return GPA_DT_INT8;
	}
	return -1;
}

/* Elements of tensor input i; -1 when it is not a tensor. */
static double numel(const struct sig *s, int i)
{
	if (i >= s->n || s->in[i].nd < 0) {
		return -1;
	}
	double n = 1;
	for (int k = 0; k < s->in[i].nd; k++) {
		n *= (double)s->in[i].d[k];
	}
	return n;
}

/* Bytes of tensor input i (0 when not a tensor; -1 when its type is unknown). */
static double tbytes(const struct sig *s, int i)
{
	double n = numel(s, i);
	int es;

	if (n < 0) {
		return 0;
	}
	es = elem_size(s->in[i].type);
	return es ? n * es : -1;
}

static bool is_tensor(const struct sig *s, int i)
{
	return i < s->n && s->in[i].nd >= 0 && elem_size(s->in[i].type);
}

static int64_t dim(const struct sig *s, int i, int k)
{
	int nd = s->in[i].nd;
	return k < 0 ? s->in[i].d[nd + k] : s->in[i].d[k];
}

static bool conc_true(const struct sig *s, int i)
{
	return i >= 0 && i < s->n && !strcmp(s->in[i].conc, "True");
}

/* A "[a, b]" (or "a") concrete list into v (up to n); the count read, 0 none. */
static int conc_list(const struct sig *s, int i, int64_t *v, int n)
{
	const char *p;
	int k = 0;

	if (i < 0 || i >= s->n) {
		return 0;
	}
	p = s->in[i].conc;
	p += *p == '[';
	while (*p && *p != ']' && k < n) {
		char *end;
		long long x = strtoll(p, &end, 10);
		if (end == p) {
			return 0;
		}
		v[k++] = x;
		p = end;
		while (*p == ',' || *p == ' ') {
			p++;
		}
	}
	return k;
}

static int none(struct gpa_op_perf *o, const char *why)
{
	o->kind = GPA_OPK_NONE;
	o->flops = o->bytes = 0;
	o->why = why;
	return 0;
}

/* Fills the common part: kind, dtype from tensor input i. */
static void set_kind(struct gpa_op_perf *o, enum gpa_op_kind k, const struct sig *s, int i)
{
	o->kind = k;
	o->dtype = i < s->n ? peak_dtype(s->in[i].type) : -1;
	snprintf(o->dtype_name, sizeof(o->dtype_name), "%s", i < s->n ? s->in[i].type : "");
}

/* ------------------------------------------------------------ GEMM family */

/*
 * A[.., M, K] x B[.., K, N] with batch = the product of A's leading dims
 * (B broadcasts); bias: the index of a bias/input tensor added (beta), -1
 * none; out_es: the output element size (A's when 0).
 */
static int gemm(struct gpa_op_perf *o, const struct sig *s, int a, int b, int bias, int out_es)
{
	if (!is_tensor(s, a) || !is_tensor(s, b) || s->in[a].nd < 1 || s->in[b].nd < 1) {
		return none(o, "GEMM inputs not recorded as tensors");
	}
	double batch = 1, m, k, n;
	int na = s->in[a].nd, nb = s->in[b].nd;
	if (na == 1) {
		m = 1;
		k = (double)dim(s, a, 0);
	} else {
		m = (double)dim(s, a, -2);
		k = (double)dim(s, a, -1);
		for (int i = 0; i < na - 2; i++) {
			batch *= (double)s->in[a].d[i];
		}
	}
	n = nb == 1 ? 1 : (double)dim(s, b, -1);
	if ((double)(nb == 1 ? dim(s, b, 0) : dim(s, b, -2)) != k) {
		return none(o, "GEMM inner dimensions differ");
	}
	double bb = 1;
	for (int i = 0; i < nb - 2; i++) {
		bb *= (double)s->in[b].d[i];
	}
	batch = batch > bb ? batch : bb;
	set_kind(o, GPA_OPK_GEMM, s, a);
	o->flops = 2 * batch * m * n * k;
	double out = batch * m * n * (out_es ? out_es : elem_size(s->in[a].type));
	o->bytes = tbytes(s, a) + tbytes(s, b) + out;
	if (bias >= 0 && is_tensor(s, bias)) {
		o->flops += batch * m * n;
		o->bytes += tbytes(s, bias);
	}
	return 1;
}

/* linear(x[.., K], W[N, K], bias): x @ W^T. */
static int linear(struct gpa_op_perf *o, const struct sig *s)
{
	if (!is_tensor(s, 0) || !is_tensor(s, 1) || s->in[1].nd != 2 || s->in[0].nd < 1) {
		return none(o, "linear inputs not recorded as tensors");
	}
	double k = (double)dim(s, 0, -1), n = (double)dim(s, 1, 0), m = numel(s, 0) / (k ? k : 1);
	if ((double)dim(s, 1, 1) != k) {
		return none(o, "GEMM inner dimensions differ");
	}
	set_kind(o, GPA_OPK_GEMM, s, 0);
	o->flops = 2 * m * n * k;
	o->bytes = tbytes(s, 0) + tbytes(s, 1) + m * n * elem_size(s->in[0].type);
	if (is_tensor(s, 2)) {
		o->flops += m * n;
		o->bytes += tbytes(s, 2);
	}
	return 1;
}

/* The element size of a ScalarType code as recorded in Concrete Inputs; 0 unknown. */
static int scalar_type_size(const char *c)
{
	switch (atoi(c)) {
	case 5: return 2;  /* Half */
	case 6: return 4;  /* Float */
	case 15: return 2; /* BFloat16 */
	case 23: case 24: case 25: case 26: return 1; /* Float8 variants */
	default: return 0;
	}
}

/* _scaled_mm(A, B, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum). */
static int scaled_mm(struct gpa_op_perf *o, const struct sig *s)
{
	int out_es = s->n > 6 ? scalar_type_size(s->in[6].conc) : 0;

	if (!out_es) {
		return none(o, "_scaled_mm: output type not recorded");
	}
	if (!gemm(o, s, 0, 1, 4, out_es)) {
		return 0;
	}
	o->bytes += (tbytes(s, 2) > 0 ? tbytes(s, 2) : 0) + (tbytes(s, 3) > 0 ? tbytes(s, 3) : 0);
	return 1;
}

/* ------------------------------------------------------------ convolution */

/* Where an op keeps its convolution arguments (-1: not an argument). */
struct conv_layout {
	const char *name;
	int bias, stride, pad, dil, transposed, groups;
};

static const struct conv_layout conv_layouts[] = {
	{"aten::convolution", 2, 3, 4, 5, 6, 8},
	{"aten::_convolution", 2, 3, 4, 5, 6, 8},
	{"aten::conv1d", 2, 3, 4, 5, -1, 6},
	{"aten::conv2d", 2, 3, 4, 5, -1, 6},
	{"aten::conv3d", 2, 3, 4, 5, -1, 6},
	{"aten::cudnn_convolution", -1, 3, 2, 4, -1, 5},
	{"aten::miopen_convolution", 2, 4, 3, 5, -1, 6},
	{"aten::mkldnn_convolution", 2, 4, 3, 5, -1, 6},
};

/* FLOPs of one forward pass: 2 x N x Cout x out spatial x Cin/groups x kernel. */
static int conv(struct gpa_op_perf *o, const struct sig *s, const struct conv_layout *l)
{
	int64_t st[3] = {1, 1, 1}, pd[3] = {0, 0, 0}, dl[3] = {1, 1, 1}, g = 1;

	if (!is_tensor(s, 0) || !is_tensor(s, 1) || s->in[0].nd < 3 ||
	    s->in[0].nd != s->in[1].nd || s->in[0].nd > 5) {
		return none(o, "convolution inputs not recorded as tensors");
	}
	int sp = s->in[0].nd - 2;
	if (conc_list(s, l->stride, st, sp) != sp || conc_list(s, l->pad, pd, sp) != sp ||
	    conc_list(s, l->dil, dl, sp) != sp || conc_list(s, l->groups, &g, 1) != 1 || g < 1) {
		return none(o, "convolution stride, padding, dilation or groups not recorded");
	}
	if (conc_true(s, l->transposed)) {
		return none(o, "transposed convolution: no model");
	}
	double n = (double)s->in[0].d[0], cin = (double)s->in[0].d[1];
	double cout = (double)s->in[1].d[0], kern = 1, out_sp = 1;
	for (int i = 0; i < sp; i++) {
		/* in doubles: the values are untrusted and may be huge */
		double in = (double)s->in[0].d[2 + i], k = (double)s->in[1].d[2 + i];
		if (st[i] < 1 || pd[i] < 0 || dl[i] < 1) {
			return none(o, "convolution stride, padding or dilation out of range");
		}
		double out = floor((in + 2 * (double)pd[i] - (double)dl[i] * (k - 1) - 1) /
				   (double)st[i]) + 1;
		if (out < 1) {
			return none(o, "convolution output would be empty");
		}
		kern *= k;
		out_sp *= out;
	}
	if ((double)s->in[1].d[1] * (double)g != cin) {
		return none(o, "convolution weight does not match the input channels");
	}
	set_kind(o, GPA_OPK_CONV, s, 0);
	o->flops = 2 * n * cout * out_sp * (cin / (double)g) * kern;
	o->bytes = tbytes(s, 0) + tbytes(s, 1) + n * cout * out_sp * elem_size(s->in[0].type);
	if (l->bias >= 0 && is_tensor(s, l->bias)) {
		o->flops += n * cout * out_sp;
		o->bytes += tbytes(s, l->bias);
	}
	return 1;
}

/*
 * convolution_backward(grad_out, input, weight, bias_sizes, stride, padding,
 * dilation, transposed, output_padding, groups, output_mask): one forward's
 * GEMM FLOPs for each of grad_input and grad_weight the mask asks for.
 */
static int conv_backward(struct gpa_op_perf *o, const struct sig *s)
{
	int64_t g = 1;
	const char *mask = s->n > 10 ? s->in[10].conc : "";

	if (!is_tensor(s, 0) || !is_tensor(s, 1) || !is_tensor(s, 2) || s->in[0].nd < 3 ||
	    s->in[2].nd != s->in[0].nd || conc_list(s, 9, &g, 1) != 1 || g < 1 ||
	    strncmp(mask, "[", 1)) {
		return none(o, "convolution_backward inputs not recorded");
	}
	if (conc_true(s, 7)) {
		return none(o, "transposed convolution: no model");
	}
	const char *second = strchr(mask, ',');
	bool gi = !strncmp(mask, "[True", 5), gw = second && !strncmp(second, ", True", 6);
	double n = (double)s->in[0].d[0], cout = (double)s->in[0].d[1], out_sp = 1, kern = 1;
	for (int i = 2; i < s->in[0].nd; i++) {
		out_sp *= (double)s->in[0].d[i];
		kern *= (double)s->in[2].d[i];
	}
	double fwd = 2 * n * cout * out_sp * ((double)s->in[2].d[1]) * kern;
	set_kind(o, GPA_OPK_CONV, s, 0);
	o->flops = fwd * ((gi ? 1 : 0) + (gw ? 1 : 0));
	o->bytes = tbytes(s, 0) + tbytes(s, 1) + tbytes(s, 2) + (gi ? tbytes(s, 1) : 0) +
		   (gw ? tbytes(s, 2) : 0);
	(void)g;
	return 1;
}

/* ------------------------------------------------------------ attention */

/*
 * Where an attention op keeps q, k, v (layout: 0 [B, H, L, E], 1 [B, L, H, E]),
 * its is_causal flag (or custom_mask_type, mask 1), and whether it is the
 * backward (q at index 1, grad_out at 0).
 */
struct attn_layout {
	const char *name;
	int q, causal;
	bool blhe, mask_type, backward;
};

static const struct attn_layout attn_layouts[] = {
	{"aten::_scaled_dot_product_flash_attention", 0, 4, false, false, false},
	{"aten::_scaled_dot_product_efficient_attention", 0, 6, false, false, false},
	{"aten::_scaled_dot_product_cudnn_attention", 0, 6, false, false, false},
	{"aten::scaled_dot_product_attention", 0, 5, false, false, false},
	{"aten::_flash_attention_forward", 0, 8, true, false, false},
	{"aten::_efficient_attention_forward", 0, 9, true, true, false},
	{"aten::_scaled_dot_product_flash_attention_backward", 1, 11, false, false, true},
	{"aten::_scaled_dot_product_efficient_attention_backward", 1, 11, false, false, true},
	{"aten::_scaled_dot_product_cudnn_attention_backward", 1, 10, false, false, true},
	{"aten::_flash_attention_backward", 1, 11, true, false, true},
	{"aten::_efficient_attention_backward", 1, 14, true, true, true},
	/* the flash-attn package's custom ops (flash_attn_func): q, k, v [B, L, H, E] */
	{"flash_attn::_flash_attn_forward", 0, 5, true, false, false},
	{"flash_attn::_flash_attn_backward", 1, 11, true, false, true},
};

/*
 * Variable-length attention (flash_attn_varlen_func, or the aten ops given
 * packed q [total, H, E] and cumulative sequence offsets): its FLOPs are
 * Σ over sequences of Lq·Lk, which need the offsets' values (cu_seqlens);
 * a profiler records their shape only, so the FLOPs stay unknown rather
 * than being taken from the packed total as one sequence.
 */
#define VARLEN_WHY                                                                                 \
	"variable-length attention: its FLOPs need each sequence's length (cu_seqlens), whose "    \
	"values the trace does not record"

/*
 * Forward: S = QK^T (2·B·H·L·S·E) and O = PV (2·B·H·L·S·Ev); causal: half
 * of that (the masked half of S is skipped). Backward: 2.5 times the
 * forward (five products instead of two: S recomputed, dV, dP, dQ, dK).
 */
static int attention(struct gpa_op_perf *o, const struct sig *s, const struct attn_layout *l)
{
	int q = l->q, k = q + 1, v = q + 2;

	if (is_tensor(s, q) && s->in[q].nd == 3) {
		return none(o, VARLEN_WHY); /* q [total, H, E]: sequences packed, cum_seq given */
	}
	if (!is_tensor(s, q) || !is_tensor(s, k) || !is_tensor(s, v) || s->in[q].nd != 4 ||
	    s->in[k].nd != 4 || s->in[v].nd != 4) {
		return none(o, "attention q, k, v not recorded as 4-d tensors");
	}
	int hd = l->blhe ? 2 : 1, sd = l->blhe ? 1 : 2;
	double b = (double)s->in[q].d[0], h = (double)s->in[q].d[hd];
	double lq = (double)s->in[q].d[sd], lk = (double)s->in[k].d[sd];
	double e = (double)s->in[q].d[3], ev = (double)s->in[v].d[3];
	bool causal = l->mask_type ? (l->causal < s->n && atoi(s->in[l->causal].conc) != 0)
				   : conc_true(s, l->causal);
	set_kind(o, GPA_OPK_ATTN, s, q);
	o->flops = 2 * b * h * lq * lk * (e + ev) * (causal ? 0.5 : 1);
	double out = b * h * lq * ev * elem_size(s->in[q].type);
	o->bytes = tbytes(s, q) + tbytes(s, k) + tbytes(s, v) + out;
	if (l->backward) {
		/* reads grad_out, q, k, v, out; writes dq, dk, dv */
		o->flops *= 2.5;
		o->bytes = 2 * (tbytes(s, q) + tbytes(s, k) + tbytes(s, v)) + 2 * out;
	}
	return 1;
}

/* ------------------------------------------------------------ memory-bound ops */

/* Norm forward: 5 FLOPs per element (mean, centre, square-accumulate, scale by rstd), +2 affine. */
static int norm(struct gpa_op_perf *o, const struct sig *s, bool backward)
{
	double n = numel(s, 0), bytes = 0;

	if (!is_tensor(s, 0)) {
		return none(o, "norm input not recorded as a tensor");
	}
	bool affine = false;
	for (int i = 0; i < s->n; i++) {
		double b = tbytes(s, i);
		if (b > 0) {
			bytes += b;
			affine |= i > 0 && numel(s, i) < n;
		}
	}
	set_kind(o, GPA_OPK_NORM, s, 0);
	o->flops = n * (5 + (affine ? 2 : 0)) * (backward ? 2 : 1);
	/* outputs: the normalized tensor (forward) or grad_input (backward) */
	o->bytes = bytes + tbytes(s, 0);
	return 1;
}

/* Softmax: 5 FLOPs per element (max, subtract, exp, sum, divide); backward 4. */
static int softmax(struct gpa_op_perf *o, const struct sig *s, bool backward)
{
	if (!is_tensor(s, 0)) {
		return none(o, "softmax input not recorded as a tensor");
	}
	set_kind(o, GPA_OPK_SOFTMAX, s, 0);
	o->flops = numel(s, 0) * (backward ? 4 : 5);
	o->bytes = backward ? tbytes(s, 0) + tbytes(s, 1) + tbytes(s, 0) : 2 * tbytes(s, 0);
	if (!backward && conc_true(s, 2)) {
		o->bytes = tbytes(s, 0) + numel(s, 0) * 4; /* half_to_float: a float output */
	}
	return 1;
}

/* embedding(weight[V, D], indices): rows gathered, no FLOPs. */
static int embedding(struct gpa_op_perf *o, const struct sig *s)
{
	if (!is_tensor(s, 0) || !is_tensor(s, 1) || s->in[0].nd != 2) {
		return none(o, "embedding inputs not recorded as tensors");
	}
	set_kind(o, GPA_OPK_EMBEDDING, s, 0);
	o->flops = 0;
	o->bytes = tbytes(s, 1) + 2 * numel(s, 1) * (double)s->in[0].d[1] *
					  elem_size(s->in[0].type);
	return 1;
}

/* The broadcast element count of the tensor inputs [0, n); the largest element size. */
static double broadcast(const struct sig *s, int n, int *es, double *in_bytes)
{
	int64_t out[MAX_DIMS] = {0};
	int nd = 0;

	*es = 0;
	*in_bytes = 0;
	for (int i = 0; i < n && i < s->n; i++) {
		if (!is_tensor(s, i)) {
			continue;
		}
		const struct in *t = &s->in[i];
		*in_bytes += tbytes(s, i);
		*es = elem_size(t->type) > *es ? elem_size(t->type) : *es;
		if (t->nd > nd) {
			memmove(out + (t->nd - nd), out, sizeof(out[0]) * (size_t)nd);
			for (int k = 0; k < t->nd - nd; k++) {
				out[k] = 1;
			}
			nd = t->nd;
		}
		for (int k = 0; k < t->nd; k++) {
			int64_t *d = &out[nd - t->nd + k];
			*d = t->d[k] > *d ? t->d[k] : *d;
		}
	}
	double e = 1;
	for (int k = 0; k < nd; k++) {
		e *= (double)out[k];
	}
	return e;
}

/* PyTorch's type categories: bool 0, integers 1, floating 2, complex 3; -1 not a tensor type. */
static int category(const char *t)
{
	int es = elem_size(t);

	if (!es || t[0] == UNTYPED[0]) {
		return -1;
	}
	if (!strcmp(t, "bool")) {
		return 0;
	}
	if (strstr(t, "complex")) {
		return 3;
	}
	if (!strcmp(t, "float") || !strcmp(t, "double") || !strncmp(t, "c10::", 5)) {
		return 2;
	}
	return 1;
}

/*
 * The element size of an elementwise result over tensor inputs [0, nin), as
 * PyTorch promotes (torch.result_type): tensors with dimensions decide; a
 * 0-dim tensor (a Python scalar wrapped as a "double" or "long int" of no
 * dimensions) counts only when its category is higher, and then gives the
 * default type of that category (float 4, complex 8, integer 8). Within a
 * category the wider type wins; BF16 with FP16 is FP32. 0 when unknown.
 */
static int result_size(const struct sig *s, int nin)
{
	int cat[2] = {-1, -1}, size[2] = {0, 0};
	bool bf16 = false, half = false;

	for (int i = 0; i < nin && i < s->n; i++) {
		if (!is_tensor(s, i) || category(s->in[i].type) < 0) {
			continue;
		}
		int z = s->in[i].nd == 0, c = category(s->in[i].type), es = elem_size(s->in[i].type);
		if (c > cat[z]) {
			cat[z] = c;
			size[z] = es;
		} else if (c == cat[z] && es > size[z]) {
			size[z] = es;
		}
		if (!z) {
			bf16 |= !strcmp(s->in[i].type, "c10::BFloat16");
			half |= !strcmp(s->in[i].type, "c10::Half");
		}
	}
	if (cat[0] < 0) {
		return size[1]; /* only 0-dim tensors: they promote among themselves */
	}
	if (cat[1] > cat[0]) {
		return cat[1] == 2 ? 4 : 8;
	}
	return bf16 && half && size[0] == 2 ? 4 : size[0];
}

/*
 * Elementwise: 1 FLOP per output element (none for copies); inputs read,
 * output written at the type PyTorch gives it: an in-place op (name_) writes
 * its first input's type, an out= tensor (a tensor input after the operands
 * with one element per output element) its own, true division of integers
 * FP32, and otherwise the promoted type of the operands (result_size).
 */
static int elementwise(struct gpa_op_perf *o, const struct sig *s, const char *name,
		       enum gpa_op_kind kind, int nin, bool boolean_out)
{
	int es;
	double in_bytes, n = broadcast(s, nin, &es, &in_bytes);
	size_t len = strlen(name);
	bool in_place = len > 2 && name[len - 1] == '_' && name[len - 2] != '_';

	if (!es) {
		return none(o, "no tensor input recorded");
	}
	set_kind(o, kind, s, 0);
	int out_es = result_size(s, nin);
	if (in_place && is_tensor(s, 0)) {
		out_es = elem_size(s->in[0].type);
	}
	for (int i = nin; i < s->n && !in_place; i++) {
		if (is_tensor(s, i) && s->in[i].nd > 0 && numel(s, i) == n) {
			out_es = elem_size(s->in[i].type); /* out= */
			break;
		}
	}
	if (!strcmp(name, "aten::div") && out_es && category(s->in[0].type) < 2 &&
	    (nin < 2 || category(s->in[1].type) < 2)) {
		out_es = 4; /* true division of integers gives the default float type */
	}
	o->flops = kind == GPA_OPK_COPY ? 0 : n;
	o->bytes = in_bytes + n * (boolean_out ? 1 : out_es ? out_es : es);
	if (!strncmp(name, "aten::fill", 10) || !strncmp(name, "aten::zero", 10)) {
		/* fill_(self, value), zero_(self): self is written, never read */
		o->flops = 0;
		o->bytes = n * (out_es ? out_es : es);
	}
	if (kind == GPA_OPK_COPY) {
		/* copy_(dst, src): src read, dst written */
		o->bytes = tbytes(s, 1) > 0 ? tbytes(s, 1) + tbytes(s, 0) : 2 * tbytes(s, 0);
	}
	return 1;
}

/* Reductions (sum, mean, amax, ...; dims in input 1): 1 FLOP per input element. */
static int reduction(struct gpa_op_perf *o, const struct sig *s)
{
	int64_t dims[MAX_DIMS];
	double in = numel(s, 0), out = 1;

	if (!is_tensor(s, 0)) {
		return none(o, "reduction input not recorded as a tensor");
	}
	int nd = conc_list(s, 1, dims, MAX_DIMS);
	if (nd) {
		for (int k = 0; k < s->in[0].nd; k++) {
			bool reduced = false;
			for (int j = 0; j < nd; j++) {
				int64_t d = dims[j] < 0 ? dims[j] + s->in[0].nd : dims[j];
				reduced |= d == k;
			}
			out *= reduced ? 1 : (double)s->in[0].d[k];
		}
	}
	set_kind(o, GPA_OPK_REDUCE, s, 0);
	o->flops = in;
	o->bytes = tbytes(s, 0) + out * elem_size(s->in[0].type);
	return 1;
}

/* ------------------------------------------------------------ dispatch */

static bool name_in(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(name, list[i])) {
			return true;
		}
	}
	return false;
}

/* "aten::add_" -> "aten::add" into buf. */
static const char *base_name(const char *name, char *buf, size_t cap)
{
	size_t n = strlen(name);

	if (n < 2 || n >= cap || name[n - 1] != '_' || name[n - 2] == '_') {
		return name;
	}
	memcpy(buf, name, n - 1);
	buf[n - 1] = 0;
	return buf;
}

static const char *const unary_ops[] = {
	"aten::relu", "aten::gelu", "aten::silu", "aten::sigmoid", "aten::tanh", "aten::exp",
	"aten::log", "aten::neg", "aten::abs", "aten::sqrt", "aten::rsqrt", "aten::reciprocal",
	"aten::clamp", "aten::clamp_min", "aten::clamp_max", "aten::sin", "aten::cos",
	"aten::erf", "aten::hardtanh", "aten::leaky_relu", "aten::elu", "aten::softplus",
	"aten::threshold_backward", "aten::gelu_backward", "aten::silu_backward",
	"aten::sigmoid_backward", "aten::tanh_backward", "aten::fill", "aten::zero",
	"aten::pow", "aten::square", "aten::dropout", "aten::native_dropout",
};
static const char *const binary_ops[] = {
	"aten::add", "aten::sub", "aten::mul", "aten::div", "aten::maximum", "aten::minimum",
	"aten::rsub", "aten::addcmul", "aten::addcdiv", "aten::lerp", "aten::where",
};
static const char *const compare_ops[] = {
	"aten::eq", "aten::ne", "aten::lt", "aten::le", "aten::gt", "aten::ge",
};
static const char *const reduce_ops[] = {
	"aten::sum", "aten::mean", "aten::amax", "aten::amin", "aten::max", "aten::min",
	"aten::prod", "aten::argmax", "aten::argmin", "aten::var", "aten::std", "aten::norm",
	"aten::linalg_vector_norm", "aten::any", "aten::all",
};
static const char *const norm_ops[] = {
	"aten::native_layer_norm", "aten::native_batch_norm", "aten::cudnn_batch_norm",
	"aten::miopen_batch_norm", "aten::native_group_norm", "aten::_fused_rms_norm",
	"aten::rms_norm", "aten::_batch_norm_with_update", "aten::layer_norm",
};
static const char *const norm_bwd_ops[] = {
	"aten::native_layer_norm_backward", "aten::native_batch_norm_backward",
	"aten::cudnn_batch_norm_backward", "aten::miopen_batch_norm_backward",
	"aten::native_group_norm_backward", "aten::_fused_rms_norm_backward",
	"aten::batch_norm_backward",
};

static int gemm_family(const char *n, const struct sig *s, struct gpa_op_perf *o)
{
	if (!strcmp(n, "aten::mm") || !strcmp(n, "aten::bmm") || !strcmp(n, "aten::matmul")) {
		return gemm(o, s, 0, 1, -1, 0);
	}
	if (!strcmp(n, "aten::addmm") || !strcmp(n, "aten::baddbmm")) {
		return gemm(o, s, 1, 2, 0, 0);
	}
	if (!strcmp(n, "aten::linear")) {
		return linear(o, s);
	}
	if (!strcmp(n, "aten::_scaled_mm")) {
		return scaled_mm(o, s);
	}
	/* gpuprof's own recordings of cuBLAS/cuBLASLt calls: A, B, then the output C */
	if (!strcmp(n, "cublasGemmEx") || !strcmp(n, "cublasGemmStridedBatchedEx") ||
	    !strcmp(n, "cublasSgemm_v2") || !strcmp(n, "cublasHgemm") ||
	    !strcmp(n, "cublasLtMatmul")) {
		int es = s->n > 2 ? elem_size(s->in[2].type) : 0;
		return es ? gemm(o, s, 0, 1, -1, es) : none(o, "GEMM output type not known");
	}
	return -1;
}

int gpa_op_perf(const char *name, const char *sig, struct gpa_op_perf *out)
{
	struct sig *s;
	char buf[96];
	int ret = -1;

	memset(out, 0, sizeof(*out));
	out->dtype = -1;
	if (!sig || !*sig) {
		return none(out, "no recorded shapes (record_shapes=False)");
	}
	s = malloc(sizeof(*s));
	if (!s) {
		return none(out, "out of memory");
	}
	if (!parse_sig(sig, s)) {
		free(s);
		return none(out, "recorded shapes not readable");
	}
	/* sizes alone (PyTorch's NVTX ranges): every tensor of one unknown type, bytes dropped */
	for (int i = 0; i < s->n; i++) {
		if (!s->types && s->in[i].nd >= 0) {
			snprintf(s->in[i].type, sizeof(s->in[i].type), "%s", UNTYPED);
		} else if (s->in[i].type[0] == UNTYPED[0]) {
			s->in[i].type[0] = 0; /* the marker is never a recorded type */
		}
	}
	const char *n = base_name(name, buf, sizeof(buf));
	ret = gemm_family(name, s, out);
	for (size_t i = 0; ret < 0 && i < GP_ARRAY_SIZE(conv_layouts); i++) {
		ret = strcmp(name, conv_layouts[i].name) ? -1 : conv(out, s, &conv_layouts[i]);
	}
	for (size_t i = 0; ret < 0 && i < GP_ARRAY_SIZE(attn_layouts); i++) {
		ret = strcmp(name, attn_layouts[i].name) ? -1 : attention(out, s, &attn_layouts[i]);
	}
	if (ret >= 0) {
		/* modelled, or its model's reason */
	} else if (strstr(name, "attn") && strstr(name, "varlen")) {
		ret = none(out, VARLEN_WHY);
	} else if (!strcmp(name, "aten::convolution_backward")) {
		ret = conv_backward(out, s);
	} else if (name_in(name, norm_ops, GP_ARRAY_SIZE(norm_ops))) {
		ret = norm(out, s, false);
	} else if (name_in(name, norm_bwd_ops, GP_ARRAY_SIZE(norm_bwd_ops))) {
		ret = norm(out, s, true);
	} else if (!strcmp(name, "aten::_softmax") || !strcmp(name, "aten::_log_softmax")) {
		ret = softmax(out, s, false);
	} else if (!strcmp(name, "aten::_softmax_backward_data") ||
		   !strcmp(name, "aten::_log_softmax_backward_data")) {
		ret = softmax(out, s, true);
	} else if (!strcmp(name, "aten::embedding")) {
		ret = embedding(out, s);
	} else if (!strcmp(name, "aten::copy_")) {
		ret = elementwise(out, s, name, GPA_OPK_COPY, 2, false);
	} else if (name_in(n, unary_ops, GP_ARRAY_SIZE(unary_ops))) {
		ret = elementwise(out, s, name, GPA_OPK_UNARY, 1, false);
	} else if (name_in(n, binary_ops, GP_ARRAY_SIZE(binary_ops))) {
		ret = elementwise(out, s, name, GPA_OPK_BINARY, !strcmp(n, "aten::where") ? 3 : 2,
				  false);
	} else if (name_in(n, compare_ops, GP_ARRAY_SIZE(compare_ops))) {
		ret = elementwise(out, s, name, GPA_OPK_BINARY, 2, true);
	} else if (name_in(n, reduce_ops, GP_ARRAY_SIZE(reduce_ops))) {
		ret = reduction(out, s);
	} else {
		ret = none(out, "no performance model for this operator");
	}
	if (ret > 0) {
		if (out->bytes < 0 || out->flops < 0) {
			ret = none(out, "a tensor's type is not one the model knows");
		} else if (!s->types && out->flops <= 0) {
			ret = none(out, "sizes without data types: no bytes for data movement");
		} else if (!s->types) {
			out->untyped = true;
			out->bytes = 0;
			out->dtype = -1;
			out->dtype_name[0] = 0;
		}
	}
	free(s);
	return ret;
}

const char *gpa_op_kind_name(enum gpa_op_kind k)
{
	static const char *const names[GPA_OPK__COUNT] = {
		"time only", "gemm", "conv", "attention", "norm", "softmax", "embedding",
		"unary", "binary", "reduction", "copy",
	};
	return (unsigned)k < GPA_OPK__COUNT ? names[k] : "?";
}
