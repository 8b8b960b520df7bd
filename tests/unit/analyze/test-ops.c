/* SPDX-License-Identifier: MIT */
/*
 * Operator performance models (analyze/op-models.c) on inputs whose FLOPs
 * and bytes are worked out by hand below, and the leaf-operator attribution
 * of analyze/ops.c on a hand-made trace.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/ops.h"
#include "tests/unit/test.h"

#include <math.h>
#include <stdio.h>

static bool near(double a, double b)
{
	if (fabs(a - b) > 1e-9 * (fabs(b) + 1)) {
		TFAIL("%.9g != %.9g", a, b);
		return false;
	}
	return true;
}

/* Checks op name with signature sig against hand-computed flops and bytes. */
static void model(const char *name, const char *sig, enum gpa_op_kind kind, double flops,
		  double bytes)
{
	struct gpa_op_perf p;

	CHECK_EQ_I(gpa_op_perf(name, sig, &p), 1);
	CHECK_EQ_I(p.kind, kind);
	near(p.flops, flops);
	near(p.bytes, bytes);
}

TEST(ops_gemm_models)
{
	/* 2·M·K·N = 2·64·128·32; (64·128 + 128·32 + 64·32)·4 bytes */
	model("aten::mm", "D=[[64,128],[128,32]] T=[\"float\",\"float\"]", GPA_OPK_GEMM, 524288,
	      57344);
	/* the out= variant's third tensor is the output, counted once */
	model("aten::mm", "D=[[64,128],[128,32],[64,32]] T=[\"float\",\"float\",\"float\"]",
	      GPA_OPK_GEMM, 524288, 57344);
	/* bias adds M·N = 2048 FLOPs and its 32 elements; bf16: 2 bytes each */
	model("aten::addmm",
	      "D=[[32],[64,128],[128,32],[],[]] T=[\"c10::BFloat16\",\"c10::BFloat16\","
	      "\"c10::BFloat16\",\"Scalar\",\"Scalar\"] C=[\"\",\"\",\"\",\"1\",\"1\"]",
	      GPA_OPK_GEMM, 526336, 28736);
	/* batch 4 of the mm above at bf16 */
	model("aten::bmm", "D=[[4,64,128],[4,128,32]] T=[\"c10::BFloat16\",\"c10::BFloat16\"]",
	      GPA_OPK_GEMM, 2097152, 114688);
	/* x[2,8,16] · W[32,16]^T + b: M 16, K 16, N 32: 2·16·16·32 + 16·32; (256+512+32+512)·4 */
	model("aten::linear", "D=[[2,8,16],[32,16],[32]] T=[\"float\",\"float\",\"float\"]",
	      GPA_OPK_GEMM, 16896, 5248);
	/* inner dimensions that differ: no model */
	struct gpa_op_perf p;
	CHECK_EQ_I(gpa_op_perf("aten::mm", "D=[[64,128],[127,32]] T=[\"float\",\"float\"]", &p),
		   0);
	CHECK_EQ_I(p.kind, GPA_OPK_NONE);
}

TEST(ops_scaled_mm_fp8)
{
	struct gpa_op_perf p;
	/* FP8 A[128,256], B[256,64], two scalar float scales, out_dtype 15 (bf16) */
	const char *sig = "D=[[128,256],[256,64],[],[],[],[],[],[]] "
			  "T=[\"c10::Float8_e4m3fn\",\"c10::Float8_e4m3fn\",\"float\",\"float\","
			  "\"\",\"\",\"Scalar\",\"Scalar\"] C=[\"\",\"\",\"\",\"\",\"\",\"\",\"15\","
			  "\"False\"]";

	/* 2·128·256·64; 128·256 + 256·64 bytes in, 128·64·2 out, scales 4 + 4 */
	model("aten::_scaled_mm", sig, GPA_OPK_GEMM, 4194304, 32768 + 16384 + 16384 + 8);
	CHECK_EQ_I(gpa_op_perf("aten::_scaled_mm", sig, &p), 1);
	CHECK_EQ_I(p.dtype, GPA_DT_FP8);
}

/* gpuprof's own cuBLAS records (inject/gemm.c): A, B, the output C, then transposes and compute */
TEST(ops_cublas_models)
{
	struct gpa_op_perf p;
	const char *ex = "D=[[1024,256],[256,512],[1024,512],[],[],[]] "
			 "T=[\"c10::BFloat16\",\"c10::BFloat16\",\"float\",\"str\",\"str\",\"str\"] "
			 "S=[[1,1024],[512,1],[1,1024],[],[],[]] C=[\"\",\"\",\"\",\"N\",\"T\",\"32F\"]";

	/* 2·1024·512·256; A and B at 2 bytes, the float output at 4 */
	model("cublasGemmEx", ex, GPA_OPK_GEMM, 268435456, 524288 + 262144 + 2097152);
	CHECK_EQ_I(gpa_op_perf("cublasGemmEx", ex, &p), 1);
	CHECK_EQ_I(p.dtype, GPA_DT_BF16);
	/* batch 16 of fp16 128x128x64, everything at 2 bytes */
	model("cublasGemmStridedBatchedEx",
	      "D=[[16,128,64],[16,64,128],[16,128,128],[],[],[]] "
	      "T=[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"str\",\"str\",\"str\"]",
	      GPA_OPK_GEMM, 33554432, (16 * 128 * 64 + 16 * 64 * 128 + 16 * 128 * 128) * 2.0);
	/* an output type the models do not know: no FLOPs */
	CHECK_EQ_I(gpa_op_perf("cublasLtMatmul",
			       "D=[[8,8],[8,8],[8,8]] T=[\"float\",\"float\",\"cudaDataType(4)\"]", &p),
		   0);
	CHECK_EQ_I(p.kind, GPA_OPK_NONE);
}

TEST(ops_conv_models)
{
	/* in [2,3,32,32], w [8,3,3,3], stride 1, pad 1: out 32x32; 2·2·8·1024·3·9 */
	model("aten::conv2d",
	      "D=[[2,3,32,32],[8,3,3,3],[],[],[],[],[]] T=[\"float\",\"float\",\"\",\"ScalarList\","
	      "\"ScalarList\",\"ScalarList\",\"Scalar\"] C=[\"\",\"\",\"\",\"[1, 1]\",\"[1, 1]\","
	      "\"[1, 1]\",\"1\"]",
	      GPA_OPK_CONV, 884736, (6144 + 216 + 16384) * 4.0);
	/* stride 2, no padding: (32 - 2 - 1) / 2 + 1 = 15; cudnn's order is padding, stride */
	model("aten::cudnn_convolution",
	      "D=[[2,3,32,32],[8,3,3,3],[],[],[],[],[],[],[]] T=[\"float\",\"float\","
	      "\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\",\"Scalar\",\"Scalar\","
	      "\"Scalar\"] C=[\"\",\"\",\"[0, 0]\",\"[2, 2]\",\"[1, 1]\",\"1\",\"False\",\"False\","
	      "\"True\"]",
	      GPA_OPK_CONV, 2.0 * 2 * 8 * 225 * 3 * 9, (6144 + 216 + 2 * 8 * 225) * 4.0);
	/* backward, grad_input and grad_weight: two forwards' FLOPs */
	model("aten::convolution_backward",
	      "D=[[2,8,32,32],[2,3,32,32],[8,3,3,3],[],[],[],[],[],[],[],[]] T=[\"float\","
	      "\"float\",\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"ScalarList\","
	      "\"Scalar\",\"ScalarList\",\"Scalar\",\"ScalarList\"] C=[\"\",\"\",\"\",\"[0]\","
	      "\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\",\"[True, True, False]\"]",
	      GPA_OPK_CONV, 2 * 884736.0, (16384 + 6144 + 216 + 6144 + 216) * 4.0);
}

/* conv2d(input, weight, bias, stride, padding, dilation, groups) of type t */
#define CONV2D_TYPES(t)                                                                            \
	"T=[\"" t "\",\"" t "\",\"\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\"]"

/* conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation) */
#define CONVT_TYPES                                                                                \
	"T=[\"float\",\"float\",\"\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\","     \
	"\"ScalarList\"]"

/*
 * Transposed convolution: the FLOPs of the forward convolution it is the
 * gradient of (its output as input, the same weight), on the swapped shapes.
 */
TEST(ops_conv_transposed)
{
	/* in [2,8,16,16], w [8,4,3,3] (C_in 8, C_out 4), stride 2, pad 1, output_padding 1:
	 * out (16-1)·2 - 2 + 2 + 1 + 1 = 32; 2·N·C_in·∏in·(C_out/g)·∏k = 2·2·8·256·4·9;
	 * (4096 in + 288 weight + 2·4·32·32 out) floats */
	model("aten::conv_transpose2d",
	      "D=[[2,8,16,16],[8,4,3,3],[],[],[],[],[],[]] " CONVT_TYPES
	      " C=[\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"1\",\"[1, 1]\"]",
	      GPA_OPK_CONV, 294912, (4096 + 288 + 8192) * 4.0);
	/* the forward convolution it reverses: in [2,4,32,32], w [8,4,3,3], stride 2, pad 1:
	 * out ⌊(32 + 2 - 2 - 1)/2⌋ + 1 = 16; 2·2·8·256·4·9, the same FLOPs */
	model("aten::conv2d",
	      "D=[[2,4,32,32],[8,4,3,3],[],[],[],[],[]] " CONV2D_TYPES("float")
	      " C=[\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"1\"]",
	      GPA_OPK_CONV, 294912, (8192 + 288 + 4096) * 4.0);
	/* cuDNN's order: padding, output_padding, stride, dilation, groups; bf16 */
	model("aten::cudnn_convolution_transpose",
	      "D=[[2,8,16,16],[8,4,3,3],[],[],[],[],[],[],[],[]] T=[\"c10::BFloat16\","
	      "\"c10::BFloat16\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"ScalarList\","
	      "\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"] C=[\"\",\"\",\"[1, 1]\",\"[1, 1]\","
	      "\"[2, 2]\",\"[1, 1]\",\"1\",\"False\",\"False\",\"True\"]",
	      GPA_OPK_CONV, 294912, (4096 + 288 + 8192) * 2.0);
	/* aten::convolution, transposed, 2 groups: in [1,4,5,5], w [4,3,3,3] (C_out 3·2 = 6):
	 * out 4 + 2 + 1 = 7; 2·1·4·25·3·9 = 5400, + bias 6·49; (100 + 108 + 294 + 6) floats */
	model("aten::convolution",
	      "D=[[1,4,5,5],[4,3,3,3],[6],[],[],[],[],[],[]] T=[\"float\",\"float\",\"float\","
	      "\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\"] "
	      "C=[\"\",\"\",\"\",\"[1, 1]\",\"[0, 0]\",\"[1, 1]\",\"True\",\"[0, 0]\",\"2\"]",
	      GPA_OPK_CONV, 5400 + 294, (100 + 108 + 294 + 6) * 4.0);
	/* its backward, transposed: grad_out [2,4,32,32], input [2,8,16,16], w [8,4,3,3];
	 * grad_input and grad_weight one forward each (294912), grad_bias sums grad_out (8192);
	 * grad_out read, weight read + input written, input read + weight written, 4 bias */
	model("aten::convolution_backward",
	      "D=[[2,4,32,32],[2,8,16,16],[8,4,3,3],[],[],[],[],[],[],[],[]] T=[\"float\","
	      "\"float\",\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"ScalarList\","
	      "\"Scalar\",\"ScalarList\",\"Scalar\",\"ScalarList\"] C=[\"\",\"\",\"\",\"[4]\","
	      "\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"True\",\"[1, 1]\",\"1\",\"[True, True, True]\"]",
	      GPA_OPK_CONV, 2 * 294912.0 + 8192, (8192 + 288 + 4096 + 4096 + 288 + 4) * 4.0);
}

/* Groups (depthwise), dilation, cuDNN's fused forms and channels_last strides. */
TEST(ops_conv_groups_dilation_layouts)
{
	struct gpa_op_perf p;

	/* depthwise: in [1,32,16,16], w [32,1,3,3], groups 32, pad 1: 2·32·256·1·9; bf16 */
	model("aten::conv2d",
	      "D=[[1,32,16,16],[32,1,3,3],[],[],[],[],[]] " CONV2D_TYPES("c10::BFloat16")
	      " C=[\"\",\"\",\"\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"32\"]",
	      GPA_OPK_CONV, 147456, (8192 + 288 + 8192) * 2.0);
	/* the same through _conv_depthwise2d(self, weight, kernel_size, bias, stride, padding,
	 * dilation): groups are the input channels */
	model("aten::_conv_depthwise2d",
	      "D=[[1,32,16,16],[32,1,3,3],[],[],[],[],[]] T=[\"float\",\"float\",\"ScalarList\","
	      "\"\",\"ScalarList\",\"ScalarList\",\"ScalarList\"] C=[\"\",\"\",\"[3, 3]\",\"\","
	      "\"[1, 1]\",\"[1, 1]\",\"[1, 1]\"]",
	      GPA_OPK_CONV, 147456, (8192 + 288 + 8192) * 4.0);
	/* dilation 2: out 32 - 2·2 = 28; 2·8·784·3·9 */
	model("aten::conv2d",
	      "D=[[1,3,32,32],[8,3,3,3],[],[],[],[],[]] " CONV2D_TYPES("float")
	      " C=[\"\",\"\",\"\",\"[1, 1]\",\"[0, 0]\",\"[2, 2]\",\"1\"]",
	      GPA_OPK_CONV, 338688, (3072 + 216 + 6272) * 4.0);
	/* 2 groups of 4 channels, 1x1: 2·2·16·64·4 */
	model("aten::conv2d",
	      "D=[[2,8,8,8],[16,4,1,1],[],[],[],[],[]] " CONV2D_TYPES("float")
	      " C=[\"\",\"\",\"\",\"[1, 1]\",\"[0, 0]\",\"[1, 1]\",\"2\"]",
	      GPA_OPK_CONV, 16384, (1024 + 64 + 2048) * 4.0);
	/* a weight whose channels times groups differ from the input's: no model */
	CHECK_EQ_I(gpa_op_perf("aten::conv2d",
			       "D=[[1,8,8,8],[16,3,1,1],[],[],[],[],[]] " CONV2D_TYPES("float")
			       " C=[\"\",\"\",\"\",\"[1, 1]\",\"[0, 0]\",\"[1, 1]\",\"2\"]",
			       &p),
		   0);
	/* cudnn_convolution_add_relu(self, weight, z, alpha, bias, stride, padding, dilation,
	 * groups): 2·4·64·3 + bias + z (256 each); z read as well */
	model("aten::cudnn_convolution_add_relu",
	      "D=[[1,3,8,8],[4,3,1,1],[1,4,8,8],[],[4],[],[],[],[]] T=[\"float\",\"float\","
	      "\"float\",\"Scalar\",\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\","
	      "\"Scalar\"] C=[\"\",\"\",\"\",\"1\",\"\",\"[1, 1]\",\"[0, 0]\",\"[1, 1]\",\"1\"]",
	      GPA_OPK_CONV, 2048, (192 + 12 + 256 + 4 + 256) * 4.0);
	/* channels_last (NHWC strides) moves the same bytes as NCHW: the first conv of
	 * ops_conv_models with its input and weight in channels_last */
	model("aten::conv2d",
	      "D=[[2,3,32,32],[8,3,3,3],[],[],[],[],[]] " CONV2D_TYPES("float")
	      " S=[[3072,1,96,3],[27,1,9,3],[],[],[],[],[]] C=[\"\",\"\",\"\",\"[1, 1]\","
	      "\"[1, 1]\",\"[1, 1]\",\"1\"]",
	      GPA_OPK_CONV, 884736, (6144 + 216 + 16384) * 4.0);
}

/*
 * Broadcasting and views as PyTorch executes them: the output's elements
 * for FLOPs and writes; each operand's own elements read once, a stride-0
 * (expanded) dimension once; in-place and out= outputs written once.
 */
TEST(ops_broadcast_views)
{
	/* mean's backward on the ResNet anchor: a [10,512,1,1] expanded to [10,512,7,7]
	 * (strides 0) divided by 49: 5120 bf16 read, 250880 written */
	model("aten::div", "D=[[10,512,7,7],[]] T=[\"c10::BFloat16\",\"Scalar\"] "
	      "S=[[512,1,0,0],[]] C=[\"\",\"49\"]",
	      GPA_OPK_UNARY, 250880, 5120 * 2 + 250880 * 2);
	/* [4,1,8] + [1,6,8]: 4·6·8 outputs; 32 and 48 floats read */
	model("aten::add", "D=[[4,1,8],[1,6,8]] T=[\"float\",\"float\"]", GPA_OPK_BINARY, 192,
	      (32 + 48 + 192) * 4.0);
	/* an expand view of a row: read once, as [1,64] */
	model("aten::add", "D=[[32,64],[32,64]] T=[\"float\",\"float\"] S=[[64,1],[0,1]]",
	      GPA_OPK_BINARY, 2048, (2048 + 64 + 2048) * 4.0);
	/* a 0-dim float tensor with a bf16 tensor: same category, bf16 out */
	model("aten::mul", "D=[[100],[]] T=[\"c10::BFloat16\",\"float\"]", GPA_OPK_BINARY, 100,
	      200 + 4 + 200);
	/* in place with a broadcast operand: self read and written, the row read once */
	model("aten::mul_", "D=[[32,64],[64]] T=[\"c10::BFloat16\",\"c10::BFloat16\"]",
	      GPA_OPK_BINARY, 2048, 4096 + 128 + 4096);
	/* out= with a broadcast operand: the out tensor written once, never read */
	model("aten::add",
	      "D=[[32,64],[64],[],[32,64]] T=[\"float\",\"float\",\"Scalar\",\"float\"]",
	      GPA_OPK_BINARY, 2048, (2048 + 64 + 2048) * 4.0);
	/* an activation's backward reads grad_output and its input */
	model("aten::threshold_backward",
	      "D=[[100],[100],[]] T=[\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\"]",
	      GPA_OPK_BINARY, 100, 600);
	/* addcmul_(self, t1, t2): three operands read, self written */
	model("aten::addcmul_",
	      "D=[[100],[100],[100],[]] T=[\"float\",\"float\",\"float\",\"Scalar\"]",
	      GPA_OPK_BINARY, 100, 1600);
	/* copy_ from an expanded source: its 16 distinct elements read, 128 written */
	model("aten::copy_", "D=[[8,16],[8,16],[]] T=[\"float\",\"float\",\"Scalar\"] "
	      "S=[[16,1],[0,1],[]]", GPA_OPK_COPY, 0, (16 + 128) * 4.0);
	/* .contiguous() of a channels_last tensor: a copy_ that reads and writes it whole */
	model("aten::copy_", "D=[[2,3,4,4],[2,3,4,4],[]] T=[\"c10::BFloat16\",\"c10::BFloat16\","
	      "\"Scalar\"] S=[[48,16,4,1],[48,1,12,3],[]]", GPA_OPK_COPY, 0, 96 * 2 + 96 * 2);
}

/* Reductions: the output's shape and type as the op gives them. */
TEST(ops_reduction_outputs)
{
	/* sum of bool over dim 1 of [32,64]: 32 int64 outputs */
	model("aten::sum", "D=[[32,64],[],[],[]] T=[\"bool\",\"ScalarList\",\"Scalar\",\"\"] "
	      "C=[\"\",\"[1]\",\"False\",\"\"]", GPA_OPK_REDUCE, 2048, 2048 + 32 * 8);
	/* sum of bf16 with dtype=float (6): 32 floats */
	model("aten::sum", "D=[[32,64],[],[],[]] T=[\"c10::BFloat16\",\"ScalarList\",\"Scalar\","
	      "\"Scalar\"] C=[\"\",\"[1]\",\"False\",\"6\"]", GPA_OPK_REDUCE, 2048,
	      4096 + 32 * 4);
	/* sum(x, dtype=float): everything into one float, the dtype not taken for a dim */
	model("aten::sum", "D=[[32,64],[]] T=[\"c10::BFloat16\",\"Scalar\"] C=[\"\",\"6\"]",
	      GPA_OPK_REDUCE, 2048, 4096 + 4);
	/* amax over the last dim of [4,8,16] fp16 */
	model("aten::amax", "D=[[4,8,16],[],[]] T=[\"c10::Half\",\"ScalarList\",\"Scalar\"] "
	      "C=[\"\",\"[-1]\",\"True\"]", GPA_OPK_REDUCE, 512, 1024 + 32 * 2);
	/* max over dim 1: values and int64 indices, 64 of each */
	model("aten::max", "D=[[4,8,16],[],[]] T=[\"float\",\"Scalar\",\"Scalar\"] "
	      "C=[\"\",\"1\",\"False\"]", GPA_OPK_REDUCE, 512, 2048 + 64 * (4 + 8));
	/* max of everything: one value */
	model("aten::max", "D=[[4,8,16]] T=[\"float\"]", GPA_OPK_REDUCE, 512, 2048 + 4);
	/* max(a, b) is elementwise */
	model("aten::max", "D=[[100],[100]] T=[\"float\",\"float\"]", GPA_OPK_BINARY, 100, 1200);
	/* argmax over dim 1: int64 indices */
	model("aten::argmax", "D=[[32,64],[],[]] T=[\"float\",\"Scalar\",\"Scalar\"] "
	      "C=[\"\",\"1\",\"False\"]", GPA_OPK_REDUCE, 2048, 8192 + 32 * 8);
	/* softmax backward after a half_to_float forward: float grad_output and output read,
	 * grad_input written at input_dtype (5, half) */
	model("aten::_softmax_backward_data", "D=[[16,512],[16,512],[],[]] T=[\"float\",\"float\","
	      "\"Scalar\",\"Scalar\"] C=[\"\",\"\",\"-1\",\"5\"]", GPA_OPK_SOFTMAX, 4 * 8192,
	      8192 * 4 * 2 + 8192 * 2);
	/* mse_loss of [5,128] floats, mean: 3 FLOPs per element; two inputs, one value */
	model("aten::mse_loss", "D=[[5,128],[5,128],[]] T=[\"float\",\"float\",\"Scalar\"] "
	      "C=[\"\",\"\",\"1\"]", GPA_OPK_REDUCE, 1920, 2 * 2560 + 4);
	/* reduction none: one loss per element */
	model("aten::mse_loss", "D=[[5,128],[5,128],[]] T=[\"float\",\"float\",\"Scalar\"] "
	      "C=[\"\",\"\",\"0\"]", GPA_OPK_REDUCE, 1920, 3 * 2560);
	/* backward of the mean: a 0-dim grad_output, input and target read, grad_input written */
	model("aten::mse_loss_backward", "D=[[],[5,128],[5,128],[]] T=[\"float\",\"float\","
	      "\"float\",\"Scalar\"] C=[\"\",\"\",\"\",\"1\"]", GPA_OPK_REDUCE, 1920,
	      4 + 3 * 2560);
	/* linalg_vector_norm(x, ord, dim, keepdim, dtype): dims are input 2, not ord */
	model("aten::linalg_vector_norm",
	      "D=[[32,64],[],[],[],[]] T=[\"float\",\"Scalar\",\"ScalarList\",\"Scalar\",\"\"] "
	      "C=[\"\",\"2\",\"[1]\",\"False\",\"\"]", GPA_OPK_REDUCE, 2048, 8192 + 32 * 4);
}

/* Norms write what they return: statistics, running statistics, parameter gradients. */
TEST(ops_norm_outputs)
{
	/* layer norm of [8,1024] bf16 over [1024]: in, w, b, out, and float mean and rstd of
	 * the 8 rows */
	model("aten::native_layer_norm",
	      "D=[[8,1024],[],[1024],[1024],[]] T=[\"c10::BFloat16\",\"ScalarList\","
	      "\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\"] C=[\"\",\"[1024]\",\"\",\"\","
	      "\"1e-05\"]",
	      GPA_OPK_NORM, 57344, 16384 + 2048 + 2048 + 16384 + 2 * 8 * 4);
	/* RMS norm: one statistic (rstd) */
	model("aten::_fused_rms_norm",
	      "D=[[8,1024],[],[1024],[]] T=[\"c10::BFloat16\",\"ScalarList\",\"c10::BFloat16\","
	      "\"Scalar\"] C=[\"\",\"[1024]\",\"\",\"1e-06\"]",
	      GPA_OPK_NORM, 57344, 16384 + 2048 + 16384 + 8 * 4);
	/* batch norm in training, [10,512,7,7] bf16: inputs, output, save_mean and
	 * save_invstd (512 floats each), running_mean and running_var written back */
	static const char bn[] =
		"D=[[10,512,7,7],[512],[512],[512],[512],[],[],[]] T=[\"c10::BFloat16\","
		"\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\","
		"\"Scalar\",\"Scalar\",\"Scalar\"] C=[\"\",\"\",\"\",\"\",\"\",\"%s\",\"0.1\",\"1e-05\"]";
	char sig[sizeof(bn) + 8];
	snprintf(sig, sizeof(sig), bn, "True");
	model("aten::native_batch_norm", sig, GPA_OPK_NORM, 250880 * 7.0,
	      501760 + 4 * 1024 + 501760 + 2 * 512 * 4 + 2 * 1024);
	/* in evaluation: the running statistics are read only, nothing saved */
	snprintf(sig, sizeof(sig), bn, "False");
	model("aten::native_batch_norm", sig, GPA_OPK_NORM, 250880 * 7.0,
	      501760 + 4 * 1024 + 501760);
	/* layer norm backward: grad_out, input, mean, rstd, weight, bias read; grad_input,
	 * and grad_weight and grad_bias as the mask asks */
	static const char lnb[] =
		"D=[[8,1024],[8,1024],[],[8,1],[8,1],[1024],[1024],[]] T=[\"float\",\"float\","
		"\"ScalarList\",\"float\",\"float\",\"float\",\"float\",\"ScalarList\"] "
		"C=[\"\",\"\",\"[1024]\",\"\",\"\",\"\",\"\",\"%s\"]";
	char sig2[sizeof(lnb) + 24];
	snprintf(sig2, sizeof(sig2), lnb, "[True, True, True]");
	model("aten::native_layer_norm_backward", sig2, GPA_OPK_NORM, 8192 * 7 * 2.0,
	      32768 + 32768 + 32 + 32 + 4096 + 4096 + 32768 + 2 * 4096);
	snprintf(sig2, sizeof(sig2), lnb, "[True, False, False]");
	model("aten::native_layer_norm_backward", sig2, GPA_OPK_NORM, 8192 * 7 * 2.0,
	      32768 + 32768 + 32 + 32 + 4096 + 4096 + 32768);
}

TEST(ops_attention_models)
{
	/* q, k, v [2,4,128,64] bf16, causal: 2·2·4·128·128·(64+64) / 2; 4 tensors of 131072 B */
	model("aten::_scaled_dot_product_flash_attention",
	      "D=[[2,4,128,64],[2,4,128,64],[2,4,128,64],[],[],[],[]] T=[\"c10::BFloat16\","
	      "\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\",\"Scalar\",\"\"] "
	      "C=[\"\",\"\",\"\",\"0.\",\"True\",\"False\",\"\"]",
	      GPA_OPK_ATTN, 16777216, 524288);
	/* not causal: the whole product */
	model("aten::_scaled_dot_product_flash_attention",
	      "D=[[2,4,128,64],[2,4,128,64],[2,4,128,64],[],[],[],[]] T=[\"c10::BFloat16\","
	      "\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\",\"Scalar\",\"\"] "
	      "C=[\"\",\"\",\"\",\"0.\",\"False\",\"False\",\"\"]",
	      GPA_OPK_ATTN, 33554432, 524288);
	/* flash-attn's own op (flash_attn_func): [B, L, H, E], causal the 6th input; the
	 * same sizes as above in that layout give the same FLOPs */
	model("flash_attn::_flash_attn_forward",
	      "D=[[2,128,4,64],[2,128,4,64],[2,128,4,64],[],[],[],[],[],[],[],[]] "
	      "T=[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\","
	      "\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"\",\"Scalar\"] "
	      "C=[\"\",\"\",\"\",\"0.\",\"0.125\",\"True\",\"-1\",\"-1\",\"0.\",\"\",\"False\"]",
	      GPA_OPK_ATTN, 16777216, 524288);
	/* its backward: dout, q, k, v, out, lse, dq, dk, dv, ..., causal the 12th: 2.5 x */
	model("flash_attn::_flash_attn_backward",
	      "D=[[2,128,4,64],[2,128,4,64],[2,128,4,64],[2,128,4,64],[2,128,4,64],[2,4,128],"
	      "[2,128,4,64],[2,128,4,64],[2,128,4,64],[],[],[]] "
	      "T=[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\","
	      "\"c10::BFloat16\",\"float\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\","
	      "\"Scalar\",\"Scalar\",\"Scalar\"] "
	      "C=[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"0.\",\"0.125\",\"False\"]",
	      GPA_OPK_ATTN, 2.5 * 33554432, 2 * (3 * 131072.0) + 2 * 131072.0);
}

/* Variable-length attention: the packed total is not one sequence; without cu_seqlens, unknown. */
TEST(ops_attention_varlen_unknown)
{
	struct gpa_op_perf p;

	/* flash_attn_varlen_func: q, k, v [total, H, E], cu_seqlens_q, cu_seqlens_k [B + 1] */
	CHECK_EQ_I(gpa_op_perf("flash_attn::_flash_attn_varlen_forward",
			       "D=[[4096,8,64],[4096,8,64],[4096,8,64],[9],[9],[],[]] "
			       "T=[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"int\","
			       "\"int\",\"Scalar\",\"Scalar\"] C=[\"\",\"\",\"\",\"\",\"\",\"512\",\"512\"]",
			       &p),
		   0);
	CHECK_EQ_I(p.kind, GPA_OPK_NONE);
	CHECK_CONTAINS(p.why, "cu_seqlens");
	CHECK_EQ_I(gpa_op_perf("flash_attn::_flash_attn_varlen_backward", "D=[[4096,8,64]] "
			       "T=[\"c10::BFloat16\"] C=[\"\"]", &p), 0);
	CHECK_CONTAINS(p.why, "variable-length attention");
	/* aten's flash attention with packed q [total, H, E] (cum_seq_q given): the same */
	CHECK_EQ_I(gpa_op_perf("aten::_flash_attention_forward",
			       "D=[[4096,8,64],[4096,8,64],[4096,8,64],[9],[9],[],[],[],[]] "
			       "T=[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"int\","
			       "\"int\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"] "
			       "C=[\"\",\"\",\"\",\"\",\"\",\"512\",\"512\",\"0.\",\"True\"]",
			       &p),
		   0);
	CHECK_CONTAINS(p.why, "cu_seqlens");
}

TEST(ops_memory_bound_models)
{
	/* layer norm [8,1024] with weight and bias: 7 FLOPs per element; in, w, b, out */
	model("aten::native_layer_norm",
	      "D=[[8,1024],[],[1024],[1024],[]] T=[\"float\",\"ScalarList\",\"float\",\"float\","
	      "\"Scalar\"]",
	      GPA_OPK_NORM, 57344, 73728);
	/* softmax [16,512] half: 5 per element, read and write */
	model("aten::_softmax", "D=[[16,512],[],[]] T=[\"c10::Half\",\"Scalar\",\"Scalar\"] "
	      "C=[\"\",\"-1\",\"False\"]", GPA_OPK_SOFTMAX, 40960, 32768);
	/* [1024,1024] + [1024] broadcast: 1 FLOP per output element */
	model("aten::add", "D=[[1024,1024],[1024],[]] T=[\"float\",\"float\",\"Scalar\"]",
	      GPA_OPK_BINARY, 1048576, (1048576 + 1024 + 1048576) * 4.0);
	/* sum over dim 1 of [32,64]: 32 outputs */
	model("aten::sum", "D=[[32,64],[],[],[]] T=[\"float\",\"ScalarList\",\"Scalar\",\"\"] "
	      "C=[\"\",\"[1]\",\"False\",\"\"]", GPA_OPK_REDUCE, 2048, 2048 * 4 + 32 * 4);
	/* 64 int64 indices into [1000,64] floats: indices, rows read, rows written */
	model("aten::embedding", "D=[[1000,64],[4,16],[],[],[]] T=[\"float\",\"long int\","
	      "\"Scalar\",\"Scalar\",\"Scalar\"]", GPA_OPK_EMBEDDING, 0, 512 + 2 * 64 * 64 * 4.0);
	/* copy_ float -> bf16 of [256]: read 1024, write 512 */
	model("aten::copy_", "D=[[256],[256],[]] T=[\"c10::BFloat16\",\"float\",\"Scalar\"]",
	      GPA_OPK_COPY, 0, 1536);
}

/*
 * Types as PyTorch promotes them (torch.result_type): the output of an
 * elementwise op is written at the promoted type, not the widest input's.
 */
TEST(ops_dtype_promotion)
{
	/* bf16 x Python scalar (a 0-dim "double"), out= bf16, as recorded on the
	 * ResNet anchor: 512 FLOPs; 512 x 2 + 8 read, 512 x 2 written (not x 8). */
	model("aten::mul", "D=[[512],[],[512]] T=[\"c10::BFloat16\",\"double\",\"c10::BFloat16\"]",
	      GPA_OPK_BINARY, 512, 1024 + 8 + 1024);
	/* the same without out=: still bf16 out */
	model("aten::mul", "D=[[512],[]] T=[\"c10::BFloat16\",\"double\"]", GPA_OPK_BINARY, 512,
	      1024 + 8 + 1024);
	/* int tensor x float scalar: the scalar's category wins, default float (4 bytes) */
	model("aten::mul", "D=[[100],[]] T=[\"long int\",\"double\"]", GPA_OPK_BINARY, 100,
	      800 + 8 + 400);
	/* bool tensor + int scalar: int64 */
	model("aten::add", "D=[[100],[]] T=[\"bool\",\"long int\"]", GPA_OPK_BINARY, 100,
	      100 + 8 + 800);
	/* int64 tensor + bf16 tensor: floating wins, at bf16 */
	model("aten::add", "D=[[100],[100]] T=[\"long int\",\"c10::BFloat16\"]", GPA_OPK_BINARY,
	      100, 800 + 200 + 200);
	/* mixed precision: bf16 + fp32 tensors give fp32; bf16 + fp16 give fp32 */
	model("aten::add", "D=[[100],[100]] T=[\"c10::BFloat16\",\"float\"]", GPA_OPK_BINARY,
	      100, 200 + 400 + 400);
	model("aten::add", "D=[[100],[100]] T=[\"c10::BFloat16\",\"c10::Half\"]", GPA_OPK_BINARY,
	      100, 200 + 200 + 400);
	/* in place: the output is self, at self's type (bf16 += fp32 stays bf16) */
	model("aten::add_", "D=[[100],[100]] T=[\"c10::BFloat16\",\"float\"]", GPA_OPK_BINARY,
	      100, 200 + 400 + 200);
	/* out= decides: fp32 inputs written to an fp16 out tensor (alpha a Scalar between) */
	model("aten::add", "D=[[100],[100],[],[100]] T=[\"float\",\"float\",\"Scalar\",\"c10::Half\"]",
	      GPA_OPK_BINARY, 100, 800 + 200);
	/* true division of integers: float */
	model("aten::div", "D=[[100],[100]] T=[\"long int\",\"long int\"]", GPA_OPK_BINARY, 100,
	      1600 + 400);
	/* broadcasting: a [1, 64] row over [32, 64]: read once, 32 x 64 written */
	model("aten::add", "D=[[32,64],[1,64]] T=[\"float\",\"float\"]", GPA_OPK_BINARY, 2048,
	      8192 + 256 + 8192);
	/* fill_ and zero_ write self and read nothing (no arithmetic either) */
	model("aten::fill_", "D=[[4096,2798],[]] T=[\"float\",\"Scalar\"]", GPA_OPK_UNARY, 0,
	      4096.0 * 2798 * 4);
	model("aten::zero_", "D=[[100]] T=[\"c10::BFloat16\"]", GPA_OPK_UNARY, 0, 200);
	/* comparisons write bool */
	model("aten::lt", "D=[[100],[]] T=[\"float\",\"double\"]", GPA_OPK_BINARY, 100,
	      400 + 8 + 100);
}

TEST(ops_no_model)
{
	struct gpa_op_perf p;

	CHECK_EQ_I(gpa_op_perf("aten::foo", "D=[[4]] T=[\"float\"]", &p), 0);
	CHECK_EQ_I(p.kind, GPA_OPK_NONE);
	CHECK(p.flops == 0 && p.bytes == 0);
	CHECK_CONTAINS(p.why, "no performance model");
	CHECK_EQ_I(gpa_op_perf("aten::mm", NULL, &p), 0);
	CHECK_CONTAINS(p.why, "record_shapes");
	/* damaged signatures: no model, no crash */
	CHECK_EQ_I(gpa_op_perf("aten::mm", "D=[[64,128],[128", &p), 0);
	CHECK_EQ_I(gpa_op_perf("aten::mm", "D=[[64,128],[128,32]] T=[\"float\"", &p), 0);
	CHECK_EQ_I(gpa_op_perf("aten::mm", "X", &p), 0);
	CHECK_EQ_I(gpa_op_perf("aten::mm", "D=[[-1,2],[2,2]] T=[\"float\",\"float\"]", &p), 0);
}

/*
 * Thread 100: aten::linear [0,100) us > aten::addmm [10,90) with shapes;
 * cudaLaunchKernel [20,30) corr 1 -> kernel [40,60); cudaLaunchKernel
 * [200,210) corr 2, outside any operator -> kernel [220,225).
 */
TEST(ops_leaf_operator)
{
	char path[512];
	struct gpt_writer *w;
	uint32_t dom, lin, addmm, sig, launch, kname;

	snprintf(path, sizeof(path), "%s/ops.gpz", test_tmpdir());
	CHECK_EQ_I(gpt_writer_open(path, NULL, &w), 0);
	struct gpt_process pr = {.pid = 7, .rank = -1, .phase = 1};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_PROCESS, &pr), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "cpu_op", &dom), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "aten::linear", &lin), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "aten::addmm", &addmm), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "D=[[32],[64,128],[128,32],[],[]] T=[\"float\","
					     "\"float\",\"float\",\"Scalar\",\"Scalar\"]", &sig), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "cudaLaunchKernel", &launch), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "gemm_kernel", &kname), 0);
	struct gpt_nvtx n1 = {.start = 0, .end = 100000, .type = GPT_NVTX_PUSH_POP, .domain = dom,
			      .message = lin, .start_tid = 100, .end_tid = 100};
	struct gpt_nvtx n2 = {.start = 10000, .end = 90000, .type = GPT_NVTX_PUSH_POP,
			      .domain = dom, .message = addmm, .start_tid = 100, .end_tid = 100,
			      .args = sig};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_NVTX, &n1), 0);
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_NVTX, &n2), 0);
	for (int i = 0; i < 2; i++) {
		struct gpt_api a = {.start = i ? 200000 : 20000, .end = i ? 210000 : 30000,
				    .tid = 100, .domain = GPT_API_RUNTIME, .name = launch,
				    .correlation = (uint32_t)i + 1};
		struct gpt_kernel k = {.start = i ? 220000 : 40000, .end = i ? 225000 : 60000,
				       .stream = 7, .correlation = (uint32_t)i + 1, .name = kname,
				       .grid_x = 1, .grid_y = 1, .grid_z = 1, .block_x = 32,
				       .block_y = 1, .block_z = 1};
		CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_API, &a), 0);
		CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_KERNEL, &k), 0);
	}
	CHECK_EQ_I(gpt_writer_close(w), 0);

	struct gpa_model m;
	struct gpa_ops r;
	struct gpa_ops_opts o = {0};
	const char *paths[1] = {path};
	char err[256] = "";
	REQUIRE(gpa_model_load(&m, paths, 1, NULL, err, sizeof(err)) == 0);
	REQUIRE(gpa_ops_analyze(&m, &o, &r, err, sizeof(err)) == 0);
	CHECK_EQ_U(r.gpu_ops, 2);
	CHECK_EQ_U(r.gpu_ops_in_ops, 1);
	CHECK_EQ_U(r.gpu_ns_in_ops, 20000);
	CHECK_EQ_U(r.cpu_ops, 2);
	CHECK_EQ_U(r.cpu_ops_shaped, 1);
	/* the kernel belongs to aten::addmm alone: aten::linear has no row */
	CHECK_EQ_U(r.by_name.n, 1);
	CHECK_STR(r.by_name.v[0].name, "aten::addmm");
	CHECK_EQ_U(r.by_name.v[0].count, 1);
	CHECK_EQ_U(r.by_name.v[0].gpu_ns, 20000);
	/* 2·64·128·32 + 64·32 = 526336 FLOPs in 20 us: 0.0263168 TFLOP/s */
	near(r.by_name.v[0].flops, 526336);
	CHECK_EQ_U(r.by_args.n, 1);
	near(r.by_args.v[0].tflops.median, 526336 / 20000.0 / 1000);
	gpa_ops_release(&r);
	gpa_model_release(&m);
}

/*
 * Signatures come from trace files, which are untrusted: mutated and cut
 * versions of real ones, for every model, give a model or none, never a
 * crash or a negative or non-finite figure (run under ASan and UBSan by
 * make check). Deterministic (a fixed xorshift seed).
 */
TEST(ops_damaged_signatures)
{
	static const char *const names[] = {
		"aten::mm", "aten::addmm", "aten::linear", "aten::_scaled_mm", "aten::conv2d",
		"aten::cudnn_convolution", "aten::convolution_backward",
		"aten::_scaled_dot_product_flash_attention", "aten::_efficient_attention_backward",
		"aten::native_layer_norm", "aten::_softmax", "aten::embedding", "aten::add",
		"aten::sum", "aten::copy_", "aten::relu_", "aten::conv_transpose2d",
		"aten::native_batch_norm", "aten::max", "aten::linalg_vector_norm",
		"aten::addcmul_",
	};
	static const char base[] =
		"D=[[2,3,32,32],[8,3,3,3],[8],[],[],[],[],[],[],[],[]] T=[\"float\",\"float\","
		"\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\","
		"\"Scalar\",\"Scalar\",\"ScalarList\"] S=[[3072,1024,32,1],[27,9,3,1],[1]] "
		"C=[\"\",\"\",\"\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"1\",\"[0, 0]\",\"15\","
		"\"True\",\"[True, True, False]\"]";
	static const char repl[] = {'"', '\\', '[', ']', ',', '=', ' ', '-', '0', '9', 'D', 'T',
				    'C', 'S', 'x', '.', 'e'};
	char v[sizeof(base)];
	uint64_t x = 88172645463325252ull;
	int modelled = 0;

	for (int i = 0; i < 4000; i++) {
		struct gpa_op_perf p;
		memcpy(v, base, sizeof(base));
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (i % 4 == 0) {
			v[x % (sizeof(base) - 1)] = 0; /* cut */
		} else {
			for (int j = 0; j < 1 + i % 3; j++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				v[x % (sizeof(base) - 1)] = repl[(x >> 32) % sizeof(repl)];
			}
		}
		int r = gpa_op_perf(names[i % GP_ARRAY_SIZE(names)], v, &p);
		CHECK(r == 0 || r == 1);
		CHECK(isfinite(p.flops) && isfinite(p.bytes) && p.flops >= 0 && p.bytes >= 0);
		CHECK(r == 1 || (p.why && *p.why));
		modelled += r;
	}
	/* most mutations leave a readable signature: the models did run */
	CHECK(modelled > 500);
}

/* A trace of one operator `name` with inputs `sig` whose one kernel takes ns on device 0. */
static void one_op_trace(const char *path, const char *name, const char *sig, uint64_t ns)
{
	struct gpt_writer *w;
	uint32_t dom, op, args, launch, kname, dname;

	CHECK_EQ_I(gpt_writer_open(path, NULL, &w), 0);
	struct gpt_process pr = {.pid = 7, .rank = -1, .phase = 1};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_PROCESS, &pr), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "NVIDIA H100 80GB HBM3", &dname), 0);
	struct gpt_device d = {.id = 0, .name = dname, .cc_major = 9, .cc_minor = 0,
			       .num_sms = 132, .global_mem_bytes = 80ull << 30};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_DEVICE, &d), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "cpu_op", &dom), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, name, &op), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, sig, &args), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "cudaLaunchKernel", &launch), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "elementwise_kernel", &kname), 0);
	struct gpt_nvtx n = {.start = 0, .end = 100000, .type = GPT_NVTX_PUSH_POP, .domain = dom,
			     .message = op, .start_tid = 100, .end_tid = 100, .args = args};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_NVTX, &n), 0);
	struct gpt_api a = {.start = 20000, .end = 30000, .tid = 100, .domain = GPT_API_RUNTIME,
			    .name = launch, .correlation = 1};
	struct gpt_kernel k = {.start = 40000, .end = 40000 + ns, .stream = 7, .correlation = 1,
			       .name = kname, .grid_x = 1, .grid_y = 1, .grid_z = 1,
			       .block_x = 32, .block_y = 1, .block_z = 1};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_API, &a), 0);
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_KERNEL, &k), 0);
	CHECK_EQ_I(gpt_writer_close(w), 0);
}

/*
 * An operator faster than the device's peak is implausible: counted, named
 * with its model, never placed on the roofline (no point over 100 %).
 */
TEST(ops_implausible_over_peak)
{
	char path[512];
	struct gpa_model m;
	struct gpa_ops r;
	struct gpa_ops_opts o = {0};
	const char *paths[1] = {path};
	char err[256] = "";

	/* 2^24 bf16 elements times a scalar: 2 x 32 MiB + 8 B moved. In 10 us that is
	 * 6.7 TB/s on an H100 SXM's 3.35: implausible. */
	snprintf(path, sizeof(path), "%s/fast.gpz", test_tmpdir());
	one_op_trace(path, "aten::mul", "D=[[16777216],[]] T=[\"c10::BFloat16\",\"double\"]",
		     10000);
	REQUIRE(gpa_model_load(&m, paths, 1, NULL, err, sizeof(err)) == 0);
	REQUIRE(gpa_ops_analyze(&m, &o, &r, err, sizeof(err)) == 0);
	CHECK_STR(r.peaks.name, "H100 SXM 80GB");
	CHECK_EQ_U(r.implausible, 1);
	CHECK_EQ_U(r.implausible_ns, 10000);
	CHECK_STR(r.worst.name, "aten::mul");
	CHECK_EQ_I(r.worst.kind, GPA_OPK_BINARY);
	CHECK(!r.worst.compute);
	near(r.worst.achieved, (2.0 * 16777216 * 2 + 8) / 10000 / 1000);
	near(r.worst.peak, 3.35);
	REQUIRE(r.by_args.n == 1);
	CHECK(r.by_args.v[0].implausible && r.by_args.v[0].roof_pct < 0);
	CHECK(r.by_name.v[0].implausible && r.by_name.v[0].roof_pct < 0);
	gpa_ops_release(&r);
	gpa_model_release(&m);
	/* The same in 40 us: 1.68 TB/s, 50 % of the roof, placed. */
	snprintf(path, sizeof(path), "%s/slow.gpz", test_tmpdir());
	one_op_trace(path, "aten::mul", "D=[[16777216],[]] T=[\"c10::BFloat16\",\"double\"]",
		     40000);
	REQUIRE(gpa_model_load(&m, paths, 1, NULL, err, sizeof(err)) == 0);
	REQUIRE(gpa_ops_analyze(&m, &o, &r, err, sizeof(err)) == 0);
	CHECK_EQ_U(r.implausible, 0);
	REQUIRE(r.by_args.n == 1);
	CHECK(!r.by_args.v[0].implausible);
	near(r.by_args.v[0].roof_pct, 100 * ((2.0 * 16777216 * 2 + 8) / 40000 / 1000) / 3.35);
	gpa_ops_release(&r);
	gpa_model_release(&m);
	/* A GEMM over the BF16 peak: 2 x 8192^3 FLOPs in 1 ms is 1100 TFLOP/s > 989.5. */
	snprintf(path, sizeof(path), "%s/gemm.gpz", test_tmpdir());
	one_op_trace(path, "aten::mm",
		     "D=[[8192,8192],[8192,8192]] T=[\"c10::BFloat16\",\"c10::BFloat16\"]", 1000000);
	REQUIRE(gpa_model_load(&m, paths, 1, NULL, err, sizeof(err)) == 0);
	REQUIRE(gpa_ops_analyze(&m, &o, &r, err, sizeof(err)) == 0);
	CHECK_EQ_U(r.implausible, 1);
	CHECK(r.worst.compute);
	CHECK_EQ_I(r.worst.kind, GPA_OPK_GEMM);
	near(r.worst.peak, 989.5);
	gpa_ops_release(&r);
	gpa_model_release(&m);
}
