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

/*
 * One recorded input: a tensor (nd >= 0) or anything else (nd -1); its
 * strides ("Input Strides") when recorded with one per dimension (ns == nd),
 * else ns -1.
 */
struct in {
	int nd, ns;
	int64_t d[MAX_DIMS];
	int64_t st[MAX_DIMS];
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

/* A [n0,n1,...] list of non-negative numbers at p into v: its count, -1 anything else. */
static int read_ints(const char *p, int64_t *v)
{
	int n = 0;
	const char *s = p + 1;

	if (*p != '[') {
		return -1;
	}
	while (*s != ']') {
		char *end;
		long long x = strtoll(s, &end, 10);
		if (end == s || x < 0 || n == MAX_DIMS) {
			return -1; /* a list of tensors or more dims than kept: not read */
		}
		v[n++] = x;
		s = *end == ',' ? end + 1 : end;
		if (*end != ',' && *end != ']') {
			return -1;
		}
	}
	return n;
}

/* One "Input Dims" (dims) or "Input Strides" element: past it, or NULL. */
static const char *read_dims(const char *p, struct in *in, bool strides)
{
	const char *q = skip_value(p);

	if (!q) {
		return q;
	}
	if (strides) {
		in->ns = read_ints(p, in->st);
	} else {
		in->nd = read_ints(p, in->d);
	}
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
		if (letter == 'D' || letter == 'S') {
			q = read_dims(p, in, letter == 'S');
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
		s->in[i].nd = s->in[i].ns = -1;
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

/* n elements of tensor input i's type in bytes: 0 when not a tensor (n < 0), -1 type unknown. */
static double of_type(const struct sig *s, int i, double n)
{
	int es;

	if (n < 0) {
		return 0;
	}
	es = elem_size(s->in[i].type);
	return es ? n * es : -1;
}

/* Bytes of tensor input i, all its elements (0 when not a tensor; -1 when its type is unknown). */
static double tbytes(const struct sig *s, int i)
{
	return of_type(s, i, numel(s, i));
}

/*
 * Elements tensor input i occupies in memory: a dimension of stride 0 (an
 * expand view, a broadcast operand made explicit) repeats the same elements,
 * so it counts once; any other stride (a transposed, sliced or channels_last
 * tensor) reads each element once. numel() without recorded strides.
 */
static double distinct(const struct sig *s, int i)
{
	double n = numel(s, i);

	if (n <= 0 || s->in[i].ns != s->in[i].nd) {
		return n;
	}
	n = 1;
	for (int k = 0; k < s->in[i].nd; k++) {
		n *= s->in[i].st[k] ? (double)s->in[i].d[k] : 1;
	}
	return n;
}

/* Bytes read from tensor input i: its distinct elements (0 not a tensor, -1 unknown type). */
static double rbytes(const struct sig *s, int i)
{
	return of_type(s, i, distinct(s, i));
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
	o->bytes = rbytes(s, a) + rbytes(s, b) + out;
	if (bias >= 0 && is_tensor(s, bias)) {
		o->flops += batch * m * n;
		o->bytes += rbytes(s, bias);
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
	o->bytes = rbytes(s, 0) + rbytes(s, 1) + m * n * elem_size(s->in[0].type);
	if (is_tensor(s, 2)) {
		o->flops += m * n;
		o->bytes += rbytes(s, 2);
	}
	return 1;
}

/* The element size of a c10::ScalarType code as recorded in Concrete Inputs; 0 unknown. */
static int scalar_type_size(const char *c)
{
	static const signed char size[] = {
		1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 0, 0, 0, 2, /* Byte .. BFloat16 */
		0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1,                 /* .. the Float8 variants */
	};
	char *end;
	long v = strtol(c, &end, 10);

	if (end == c || *end || v < 0 || v >= (long)sizeof(size)) {
		return 0;
	}
	return size[v];
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
	o->bytes += (rbytes(s, 2) > 0 ? rbytes(s, 2) : 0) + (rbytes(s, 3) > 0 ? rbytes(s, 3) : 0);
	return 1;
}

/* ------------------------------------------------------------ convolution */

/* A convolution's groups when the op has no groups argument. */
#define GROUPS_ONE (-1)       /* one group */
#define GROUPS_DEPTHWISE (-2) /* one per input channel */

/*
 * Where an op keeps its convolution arguments (native_functions.yaml), -1
 * not an argument (its default: stride and dilation 1, padding and
 * output_padding 0): bias, stride, padding, dilation, the transposed flag,
 * groups (or GROUPS_*), output_padding, a tensor added to the output (z), and
 * whether the op is always transposed.
 */
struct conv_layout {
	const char *name;
	int bias, stride, pad, dil, transposed, groups, outpad, z;
	bool always_transposed;
};

static const struct conv_layout conv_layouts[] = {
	{"aten::convolution", 2, 3, 4, 5, 6, 8, 7, -1, false},
	{"aten::_convolution", 2, 3, 4, 5, 6, 8, 7, -1, false},
	{"aten::conv1d", 2, 3, 4, 5, -1, 6, -1, -1, false},
	{"aten::conv2d", 2, 3, 4, 5, -1, 6, -1, -1, false},
	{"aten::conv3d", 2, 3, 4, 5, -1, 6, -1, -1, false},
	{"aten::conv_transpose1d", 2, 3, 4, 7, -1, 6, 5, -1, true},
	{"aten::conv_transpose2d", 2, 3, 4, 7, -1, 6, 5, -1, true},
	{"aten::conv_transpose3d", 2, 3, 4, 7, -1, 6, 5, -1, true},
	{"aten::cudnn_convolution", -1, 3, 2, 4, -1, 5, -1, -1, false},
	{"aten::cudnn_convolution_transpose", -1, 4, 2, 5, -1, 6, 3, -1, true},
	{"aten::cudnn_convolution_relu", 2, 3, 4, 5, -1, 6, -1, -1, false},
	{"aten::cudnn_convolution_add_relu", 4, 5, 6, 7, -1, 8, -1, 2, false},
	{"aten::miopen_convolution", 2, 4, 3, 5, -1, 6, -1, -1, false},
	{"aten::miopen_depthwise_convolution", 2, 4, 3, 5, -1, 6, -1, -1, false},
	{"aten::miopen_convolution_transpose", 2, 5, 3, 6, -1, 7, 4, -1, true},
	{"aten::mkldnn_convolution", 2, 4, 3, 5, -1, 6, -1, -1, false},
	{"aten::_conv_depthwise2d", 3, 4, 5, 6, -1, GROUPS_DEPTHWISE, -1, -1, false},
	{"aten::conv_depthwise3d", 3, 4, 5, 6, -1, GROUPS_DEPTHWISE, -1, -1, false},
	{"aten::_slow_conv2d_forward", 3, 4, 5, -1, -1, GROUPS_ONE, -1, -1, false},
	{"aten::slow_conv_dilated2d", 3, 4, 5, 6, -1, GROUPS_ONE, -1, -1, false},
	{"aten::slow_conv_dilated3d", 3, 4, 5, 6, -1, GROUPS_ONE, -1, -1, false},
	{"aten::slow_conv_transpose2d", 3, 4, 5, 7, -1, GROUPS_ONE, 6, -1, true},
	{"aten::slow_conv_transpose3d", 3, 4, 5, 7, -1, GROUPS_ONE, 6, -1, true},
};

/* A per-dimension argument at index i (sp values), or def in each when i < 0: false unreadable. */
static bool conv_arg(const struct sig *s, int i, int64_t *v, int sp, int64_t def)
{
	if (i < 0) {
		for (int k = 0; k < sp; k++) {
			v[k] = def;
		}
		return true;
	}
	return conc_list(s, i, v, sp) == sp;
}

/*
 * Output spatial size along one dimension: forward ⌊(in + 2p − d(k−1) − 1)/s⌋ + 1;
 * transposed (in − 1)·s − 2p + d(k−1) + output_padding + 1. In doubles: the
 * values are untrusted and may be huge.
 */
static double conv_out(double in, double k, int64_t st, int64_t pd, int64_t dl, int64_t op,
		       bool transposed)
{
	if (transposed) {
		return (in - 1) * (double)st - 2 * (double)pd + (double)dl * (k - 1) + (double)op +
		       1;
	}
	return floor((in + 2 * (double)pd - (double)dl * (k - 1) - 1) / (double)st) + 1;
}

/*
 * FLOPs of one pass: a forward convolution is 2 × N × C_out × out spatial ×
 * C_in/groups × kernel (weight [C_out, C_in/g, k…]). A transposed one (weight
 * [C_in, C_out/g, k…]) is the gradient of a forward convolution from its
 * output back to its input, so it costs that forward's FLOPs on the swapped
 * shapes: 2 × N × C_in × in spatial × C_out/groups × kernel.
 */
static int conv(struct gpa_op_perf *o, const struct sig *s, const struct conv_layout *l)
{
	int64_t st[3], pd[3], dl[3], op[3], g = 1;

	if (!is_tensor(s, 0) || !is_tensor(s, 1) || s->in[0].nd < 3 ||
	    s->in[0].nd != s->in[1].nd || s->in[0].nd > 5) {
		return none(o, "convolution inputs not recorded as tensors");
	}
	int sp = s->in[0].nd - 2;
	bool tr = l->always_transposed || conc_true(s, l->transposed);
	if (!conv_arg(s, l->stride, st, sp, 1) || !conv_arg(s, l->pad, pd, sp, 0) ||
	    !conv_arg(s, l->dil, dl, sp, 1) || !conv_arg(s, tr ? l->outpad : -1, op, sp, 0) ||
	    (l->groups >= 0 && (conc_list(s, l->groups, &g, 1) != 1 || g < 1))) {
		return none(o, "convolution stride, padding, dilation or groups not recorded");
	}
	double n = (double)s->in[0].d[0], cin = (double)s->in[0].d[1];
	if (l->groups == GROUPS_DEPTHWISE) {
		g = s->in[0].d[1] > 0 ? s->in[0].d[1] : 1;
	}
	double kern = 1, in_sp = 1, out_sp = 1;
	for (int i = 0; i < sp; i++) {
		double in = (double)s->in[0].d[2 + i], k = (double)s->in[1].d[2 + i];
		if (st[i] < 1 || pd[i] < 0 || dl[i] < 1 || op[i] < 0) {
			return none(o, "convolution stride, padding or dilation out of range");
		}
		double out = conv_out(in, k, st[i], pd[i], dl[i], op[i], tr);
		if (out < 1) {
			return none(o, "convolution output would be empty");
		}
		kern *= k;
		in_sp *= in;
		out_sp *= out;
	}
	/* the weight's channels: [C_out, C_in/g] forward, [C_in, C_out/g] transposed */
	double w0 = (double)s->in[1].d[0], w1 = (double)s->in[1].d[1];
	if (tr ? w0 != cin : w1 * (double)g != cin) {
		return none(o, "convolution weight does not match the input channels");
	}
	double cout = tr ? w1 * (double)g : w0;
	set_kind(o, GPA_OPK_CONV, s, 0);
	o->flops = tr ? 2 * n * cin * in_sp * w1 * kern
		      : 2 * n * cout * out_sp * (cin / (double)g) * kern;
	double out_n = n * cout * out_sp;
	o->bytes = rbytes(s, 0) + rbytes(s, 1) + out_n * elem_size(s->in[0].type);
	if (l->bias >= 0 && is_tensor(s, l->bias)) {
		o->flops += out_n;
		o->bytes += rbytes(s, l->bias);
	}
	if (l->z >= 0 && is_tensor(s, l->z)) {
		o->flops += out_n;
		o->bytes += rbytes(s, l->z);
	}
	return 1;
}

/* Whether entry k of the boolean list recorded at input i ("[True, False, True]") is True. */
static bool mask_at(const struct sig *s, int i, int k)
{
	const char *p = i >= 0 && i < s->n ? s->in[i].conc : "";

	if (*p++ != '[') {
		return false;
	}
	while (k-- > 0) {
		p = strchr(p, ',');
		if (!p) {
			return false;
		}
		p++;
	}
	p += strspn(p, " ");
	return !strncmp(p, "True", 4);
}

/*
 * convolution_backward(grad_out, input, weight, bias_sizes, stride, padding,
 * dilation, transposed, output_padding, groups, output_mask): one forward's
 * FLOPs for each of grad_input (a convolution of grad_out with the weight)
 * and grad_weight (of the input with grad_out) the mask asks for; grad_bias
 * sums grad_out over all but its channels. The forward of a transposed
 * convolution runs from its input ([N, C_in, in…], the weight [C_in,
 * C_out/g, k…]), that of a plain one from grad_out. grad_out is read once,
 * the input only for grad_weight, the weight only for grad_input.
 */
static int conv_backward(struct gpa_op_perf *o, const struct sig *s)
{
	if (!is_tensor(s, 0) || !is_tensor(s, 1) || !is_tensor(s, 2) || s->in[0].nd < 3 ||
	    s->in[2].nd != s->in[0].nd || s->in[1].nd != s->in[0].nd ||
	    strncmp(s->n > 10 ? s->in[10].conc : "", "[", 1)) {
		return none(o, "convolution_backward inputs not recorded");
	}
	bool gi = mask_at(s, 10, 0), gw = mask_at(s, 10, 1), gb = mask_at(s, 10, 2);
	const struct in *f = &s->in[conc_true(s, 7) ? 1 : 0]; /* where the forward starts */
	double fwd = 2 * (double)f->d[0] * (double)f->d[1] * (double)s->in[2].d[1];
	for (int i = 2; i < f->nd; i++) {
		fwd *= (double)f->d[i] * (double)s->in[2].d[i];
	}
	double cout = (double)s->in[0].d[1], es = elem_size(s->in[0].type);
	set_kind(o, GPA_OPK_CONV, s, 0);
	o->flops = fwd * ((gi ? 1 : 0) + (gw ? 1 : 0)) + (gb ? numel(s, 0) : 0);
	o->bytes = rbytes(s, 0) + (gi ? rbytes(s, 2) + tbytes(s, 1) : 0) +
		   (gw ? rbytes(s, 1) + tbytes(s, 2) : 0) + (gb ? cout * es : 0);
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
	o->bytes = rbytes(s, q) + rbytes(s, k) + rbytes(s, v) + out;
	if (l->backward) {
		/* reads grad_out, q, k, v, out; writes dq, dk, dv */
		o->flops *= 2.5;
		o->bytes += tbytes(s, q) + tbytes(s, k) + tbytes(s, v) + out;
	}
	return 1;
}

/* ------------------------------------------------------------ memory-bound ops */

/* What a norm's saved statistics (mean, rstd) are per: */
enum norm_rows {
	NR_NONE,     /* none returned (the composite layer_norm, rms_norm) */
	NR_ROWS,     /* each normalized row: numel ÷ ∏normalized_shape (layer and RMS norm) */
	NR_CHANNELS, /* each channel, in training (batch norm) */
	NR_GROUPS,   /* each sample and group: N × group (group norm) */
};

/*
 * Where a norm keeps its arguments (native_functions.yaml), -1 none:
 * normalized_shape (NR_ROWS) or N and group (NR_GROUPS: shape is N, group
 * shape + 3); the training flag (batch norm; -1 with NR_CHANNELS: always);
 * the statistics written; backward: the weight and the output mask whose
 * entries 1 and 2 ask for grad_weight and grad_bias (-1: both).
 */
struct norm_layout {
	const char *name;
	bool backward;
	enum norm_rows rows;
	int shape, train, stats, weight, mask;
};

static const struct norm_layout norm_layouts[] = {
	{"aten::native_layer_norm", false, NR_ROWS, 1, -1, 2, -1, -1},
	{"aten::layer_norm", false, NR_NONE, -1, -1, 0, -1, -1},
	{"aten::_fused_rms_norm", false, NR_ROWS, 1, -1, 1, -1, -1},
	{"aten::rms_norm", false, NR_NONE, -1, -1, 0, -1, -1},
	{"aten::native_batch_norm", false, NR_CHANNELS, -1, 5, 2, -1, -1},
	{"aten::cudnn_batch_norm", false, NR_CHANNELS, -1, 5, 2, -1, -1},
	{"aten::miopen_batch_norm", false, NR_CHANNELS, -1, 5, 2, -1, -1},
	{"aten::_batch_norm_with_update", false, NR_CHANNELS, -1, -1, 2, -1, -1},
	{"aten::native_group_norm", false, NR_GROUPS, 3, -1, 2, -1, -1},
	{"aten::native_layer_norm_backward", true, NR_NONE, -1, -1, 0, 5, 7},
	{"aten::native_batch_norm_backward", true, NR_NONE, -1, -1, 0, 2, 9},
	{"aten::cudnn_batch_norm_backward", true, NR_NONE, -1, -1, 0, 2, -1},
	{"aten::miopen_batch_norm_backward", true, NR_NONE, -1, -1, 0, 2, -1},
	{"aten::batch_norm_backward", true, NR_NONE, -1, -1, 0, 2, 9},
	{"aten::native_group_norm_backward", true, NR_NONE, -1, -1, 0, 4, 9},
	{"aten::_fused_rms_norm_backward", true, NR_NONE, -1, -1, 0, 4, 5},
};

/* Elements of each statistic a forward norm writes; 0 none or unknown. */
static double norm_stat_rows(const struct sig *s, const struct norm_layout *l)
{
	int64_t v[MAX_DIMS], g[1];
	double n = numel(s, 0), shape = 1;
	int k;

	switch (l->rows) {
	case NR_ROWS:
		k = conc_list(s, l->shape, v, MAX_DIMS);
		for (int i = 0; i < k; i++) {
			shape *= (double)v[i];
		}
		return k && shape > 0 ? n / shape : 0;
	case NR_CHANNELS:
		if (l->train >= 0 && !conc_true(s, l->train)) {
			return 0; /* evaluation: the running statistics are read, nothing saved */
		}
		return s->in[0].nd >= 2 ? (double)s->in[0].d[1] : 0;
	case NR_GROUPS:
		return conc_list(s, l->shape, v, 1) == 1 && conc_list(s, l->shape + 3, g, 1) == 1
			       ? (double)v[0] * (double)g[0]
			       : 0;
	case NR_NONE:
		break;
	}
	return 0;
}

/*
 * Norms: 5 FLOPs per element (mean, centre, square-accumulate, scale by
 * rstd), +2 with an affine weight; backward × 2. Bytes: every tensor input
 * read; the normalized tensor (grad_input) written, and what else the op
 * returns: its saved statistics (float, double for double inputs) and, in
 * batch norm's training, the running statistics it updates; backward, the
 * weight's and bias's gradients the mask asks for.
 */
static int norm(struct gpa_op_perf *o, const struct sig *s, const struct norm_layout *l)
{
	double n = numel(s, 0), bytes = 0;

	if (!is_tensor(s, 0)) {
		return none(o, "norm input not recorded as a tensor");
	}
	bool affine = false;
	for (int i = 0; i < s->n; i++) {
		double b = rbytes(s, i);
		if (b > 0) {
			bytes += b;
			affine |= i > 0 && numel(s, i) < n;
		}
	}
	set_kind(o, GPA_OPK_NORM, s, 0);
	o->flops = n * (5 + (affine ? 2 : 0)) * (l->backward ? 2 : 1);
	o->bytes = bytes + tbytes(s, 0);
	double rows = norm_stat_rows(s, l);
	o->bytes += rows * l->stats * (strcmp(s->in[0].type, "double") ? 4 : 8);
	if (l->rows == NR_CHANNELS && rows > 0 && is_tensor(s, 3) && is_tensor(s, 4)) {
		o->bytes += tbytes(s, 3) + tbytes(s, 4); /* running_mean, running_var updated */
	}
	if (l->backward && is_tensor(s, l->weight)) {
		int grads = l->mask < 0 ? 2 : mask_at(s, l->mask, 1) + mask_at(s, l->mask, 2);
		o->bytes += grads * tbytes(s, l->weight);
	}
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
	o->bytes = rbytes(s, 0) + (backward ? rbytes(s, 1) : 0) + tbytes(s, 0);
	if (!backward && conc_true(s, 2)) {
		o->bytes = rbytes(s, 0) + numel(s, 0) * 4; /* half_to_float: a float output */
	}
	int es = backward && s->n > 3 ? scalar_type_size(s->in[3].conc) : 0;
	if (es) {
		/* _softmax_backward_data(grad_output, output, dim, input_dtype): grad_input
		 * is written at the forward input's type (half after a half_to_float forward) */
		o->bytes = rbytes(s, 0) + rbytes(s, 1) + numel(s, 0) * es;
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
	o->bytes = rbytes(s, 1) + 2 * numel(s, 1) * (double)s->in[0].d[1] *
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
		*in_bytes += rbytes(s, i);
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
	int operands = 0;
	for (int i = 0; i < nin; i++) {
		operands += is_tensor(s, i);
	}
	/* clamp(x, 0.0), x / 2: one operand recorded as a tensor is a unary op */
	set_kind(o, kind == GPA_OPK_BINARY && operands < 2 ? GPA_OPK_UNARY : kind, s, 0);
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
		o->bytes = rbytes(s, 1) > 0 ? rbytes(s, 1) + tbytes(s, 0) : 2 * tbytes(s, 0);
	}
	return 1;
}

/* What a reduction writes per output element. */
enum reduce_out {
	RO_SAME,        /* the input's type (or the dtype argument) */
	RO_SUM,         /* sum, prod: integers and bool accumulate to int64 */
	RO_INDEX,       /* argmax, argmin: an int64 index */
	RO_BOOL,        /* any, all */
	RO_VALUE_INDEX, /* max, min over a dimension: the value and its int64 index */
};

/* Where a reduction keeps its dims (a list or one int) and dtype; -1 none. */
struct reduce_layout {
	const char *name;
	int dim, dtype;
	enum reduce_out out;
};

static const struct reduce_layout reduce_layouts[] = {
	{"aten::sum", 1, 3, RO_SUM}, {"aten::mean", 1, 3, RO_SAME}, {"aten::prod", 1, 3, RO_SUM},
	{"aten::nansum", 1, 3, RO_SUM}, {"aten::amax", 1, -1, RO_SAME},
	{"aten::amin", 1, -1, RO_SAME}, {"aten::max", 1, -1, RO_VALUE_INDEX},
	{"aten::min", 1, -1, RO_VALUE_INDEX}, {"aten::argmax", 1, -1, RO_INDEX},
	{"aten::argmin", 1, -1, RO_INDEX}, {"aten::var", 1, -1, RO_SAME},
	{"aten::std", 1, -1, RO_SAME}, {"aten::logsumexp", 1, -1, RO_SAME},
	{"aten::norm", 2, 4, RO_SAME}, {"aten::linalg_vector_norm", 2, 4, RO_SAME},
	{"aten::any", 1, -1, RO_BOOL}, {"aten::all", 1, -1, RO_BOOL},
};

/*
 * Reductions: 1 FLOP per input element; the input read once (its distinct
 * elements), the output written: the input's shape without the reduced
 * dimensions (all of them when no dims are recorded: sum(x), max(x)) at the
 * type the op gives it. A form given only a dtype (sum(x, dtype=...)) has it
 * where the dims would be: dims are read only when a keepdim follows them.
 */
static int reduction(struct gpa_op_perf *o, const struct sig *s, const struct reduce_layout *l)
{
	int64_t dims[MAX_DIMS];
	double out = 1;

	if (!is_tensor(s, 0)) {
		return none(o, "reduction input not recorded as a tensor");
	}
	bool has_dims = s->n > l->dim + 1 && s->in[l->dim].conc[0];
	int nd = has_dims ? conc_list(s, l->dim, dims, MAX_DIMS) : 0;
	for (int k = 0; k < s->in[0].nd && nd; k++) {
		bool reduced = false;
		for (int j = 0; j < nd; j++) {
			int64_t d = dims[j] < 0 ? dims[j] + s->in[0].nd : dims[j];
			reduced |= d == k;
		}
		out *= reduced ? 1 : (double)s->in[0].d[k];
	}
	int es = elem_size(s->in[0].type);
	int dt = l->dtype >= 0 && l->dtype < s->n ? scalar_type_size(s->in[l->dtype].conc) : 0;
	if (!has_dims && l->dtype >= 0 && l->dim == 1 && s->n == 2) {
		dt = scalar_type_size(s->in[1].conc); /* sum(x, dtype), prod(x, dtype) */
	}
	switch (l->out) {
	case RO_SUM:
		es = category(s->in[0].type) < 2 ? 8 : es;
		break;
	case RO_INDEX:
		es = 8;
		break;
	case RO_BOOL:
		es = 1;
		break;
	case RO_VALUE_INDEX:
		es += nd ? 8 : 0;
		break;
	case RO_SAME:
		break;
	}
	set_kind(o, GPA_OPK_REDUCE, s, 0);
	o->flops = numel(s, 0);
	o->bytes = rbytes(s, 0) + out * (dt ? dt : es);
	return 1;
}

/*
 * mse_loss(input, target, reduction): 3 FLOPs per element (difference,
 * square, accumulate); input and target read, the loss written: one value
 * (reduction 1 mean, 2 sum) or one per element (0 none). Backward
 * (grad_output, input, target, reduction): the same reads and grad_output,
 * grad_input written whole.
 */
static int mse_loss(struct gpa_op_perf *o, const struct sig *s, bool backward)
{
	int x = backward ? 1 : 0, red = backward ? 3 : 2;

	if (!is_tensor(s, x) || !is_tensor(s, x + 1) || numel(s, x) != numel(s, x + 1) ||
	    red >= s->n || !s->in[red].conc[0]) {
		return none(o, "mse_loss inputs or reduction not recorded");
	}
	double n = numel(s, x), out = atoi(s->in[red].conc) != 0 ? 1 : n;
	set_kind(o, GPA_OPK_REDUCE, s, x);
	o->flops = 3 * n;
	o->bytes = rbytes(s, x) + rbytes(s, x + 1);
	if (backward) {
		o->bytes += rbytes(s, 0) + tbytes(s, x); /* grad_output read, grad_input written */
	} else {
		o->bytes += out * elem_size(s->in[x].type);
	}
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
	"aten::sin", "aten::cos", "aten::erf", "aten::hardtanh", "aten::leaky_relu", "aten::elu",
	"aten::softplus", "aten::fill", "aten::zero", "aten::square", "aten::dropout",
	"aten::native_dropout",
};
/* two tensor operands (the backward of an activation reads grad_output and its input) */
static const char *const binary_ops[] = {
	"aten::add", "aten::sub", "aten::mul", "aten::div", "aten::maximum", "aten::minimum",
	"aten::rsub", "aten::pow", "aten::clamp_min", "aten::clamp_max",
	"aten::threshold_backward", "aten::gelu_backward", "aten::silu_backward",
	"aten::sigmoid_backward", "aten::tanh_backward",
};
/* up to three: addcmul(self, t1, t2), lerp(self, end, weight), clamp(self, min, max) */
static const char *const ternary_ops[] = {
	"aten::addcmul", "aten::addcdiv", "aten::lerp", "aten::where", "aten::clamp",
};
static const char *const compare_ops[] = {
	"aten::eq", "aten::ne", "aten::lt", "aten::le", "aten::gt", "aten::ge",
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
	for (size_t i = 0; ret < 0 && i < GP_ARRAY_SIZE(norm_layouts); i++) {
		ret = strcmp(name, norm_layouts[i].name) ? -1 : norm(out, s, &norm_layouts[i]);
	}
	if (ret < 0 && (!strcmp(name, "aten::max") || !strcmp(name, "aten::min")) &&
	    is_tensor(s, 1)) {
		/* max(a, b), min(a, b): elementwise, as maximum and minimum */
		ret = elementwise(out, s, name, GPA_OPK_BINARY, 2, false);
	}
	for (size_t i = 0; ret < 0 && i < GP_ARRAY_SIZE(reduce_layouts); i++) {
		const struct reduce_layout *l = &reduce_layouts[i];
		ret = strcmp(n, l->name) ? -1 : reduction(out, s, l);
	}
	if (ret >= 0) {
		/* modelled, or its model's reason */
	} else if (strstr(name, "attn") && strstr(name, "varlen")) {
		ret = none(out, VARLEN_WHY);
	} else if (!strcmp(name, "aten::convolution_backward")) {
		ret = conv_backward(out, s);
	} else if (!strcmp(name, "aten::_softmax") || !strcmp(name, "aten::_log_softmax")) {
		ret = softmax(out, s, false);
	} else if (!strcmp(name, "aten::_softmax_backward_data") ||
		   !strcmp(name, "aten::_log_softmax_backward_data")) {
		ret = softmax(out, s, true);
	} else if (!strcmp(name, "aten::mse_loss") || !strcmp(name, "aten::mse_loss_backward")) {
		ret = mse_loss(out, s, name[14] == '_');
	} else if (!strcmp(name, "aten::embedding")) {
		ret = embedding(out, s);
	} else if (!strcmp(name, "aten::copy_")) {
		ret = elementwise(out, s, name, GPA_OPK_COPY, 2, false);
	} else if (name_in(n, unary_ops, GP_ARRAY_SIZE(unary_ops))) {
		ret = elementwise(out, s, name, GPA_OPK_UNARY, 1, false);
	} else if (name_in(n, binary_ops, GP_ARRAY_SIZE(binary_ops))) {
		ret = elementwise(out, s, name, GPA_OPK_BINARY, 2, false);
	} else if (name_in(n, ternary_ops, GP_ARRAY_SIZE(ternary_ops))) {
		ret = elementwise(out, s, name, GPA_OPK_BINARY, 3, false);
	} else if (name_in(n, compare_ops, GP_ARRAY_SIZE(compare_ops))) {
		ret = elementwise(out, s, name, GPA_OPK_BINARY, 2, true);
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
