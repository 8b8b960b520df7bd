/* SPDX-License-Identifier: MIT */
/*
 * gemm.c - GEMM shapes from cuBLAS and cuBLASLt (docs/recording.md,
 * docs/ops.md): definitions of cublasGemmEx, cublasGemmStridedBatchedEx,
 * cublasSgemm_v2, cublasHgemm and cublasLtMatmul that take effect when the
 * library is preloaded. Each forwards to the next definition (RTLD_NEXT,
 * else an already-loaded libcublas/libcublasLt of any scope); while a trace
 * is running and the `gemm` kind is on, it stamps the call, pushes a CUPTI
 * external correlation id (CUSTOM2, from the NCCL id counter so ids never
 * collide) around it, and queues one entry with m, n, k, batch, data types,
 * transposes and leading dimensions. The writer turns each entry into an
 * NVTX push/pop range of domain "cpu_op" on the calling thread, named after
 * the entry point, whose args field holds the call's inputs in the text
 * form the Kineto importer gives PyTorch operators: the analyzer then finds
 * the kernels the call launched (they were launched inside it, on its
 * thread) and models its FLOPs with the GEMM model, with no new path.
 *
 * cuBLASLt's m, n, k, batch and types come from the descriptors'
 * attributes (cublasLtMatmulDescGetAttribute, cublasLtMatrixLayoutGetAttribute
 * of the library that runs the call). A call nested in another interposed
 * call (cuBLAS running its GEMM through cuBLASLt) is forwarded untouched, so
 * each GEMM is recorded once, by its outermost entry point. Calls that
 * return an error launched nothing and are not recorded.
 *
 * Fail open: a missing target returns CUBLAS_STATUS_NOT_INITIALIZED (what
 * cuBLAS says before it is set up) and records nothing. Hot path: no
 * malloc, no lock, no stdio; errno is cuBLAS's. The queue is bounded; a full
 * queue drops the entry and counts it (GPT_LOSS_GEMM_QUEUE).
 */
#include "base/compat.h"
#include "inject/inject.h"
#include "inject/queue.h"

#include <cublasLt.h>
#include <cublas_api.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define GPI_EXPORT __attribute__((visibility("default")))

/* ------------------------------------------------------------ the queue */

#define QCAP 4096 /* entries; power of two */

static _Atomic uint64_t q_seq[QCAP];
static struct gpi_gemm_ev q_ev[QCAP];
static struct gpi_queue_ends q_ends;
static const struct gpi_queue queue = GPI_QUEUE_INIT(q_seq, q_ev, &q_ends);
static _Atomic unsigned fork_gen; /* a forked child's thread has a new id */

bool gpi_gemm_push(const struct gpi_gemm_ev *ev)
{
	enum gpi_queue_push r = gpi_queue_push(&queue, ev);

	if (r == GPI_QUEUE_WAKE) {
		gpi_session_wake();
	}
	return r != GPI_QUEUE_FULL;
}

bool gpi_gemm_has_data(void)
{
	return gpi_queue_has_data(&queue);
}

uint64_t gpi_gemm_take_dropped(void)
{
	return gpi_queue_take_dropped(&queue);
}

/* ----------------------------------------------------- the signature text */

static const char *const fname[GPI_GEMM__COUNT] = {
	[GPI_GEMM_EX] = "cublasGemmEx",
	[GPI_GEMM_STRIDED_BATCHED_EX] = "cublasGemmStridedBatchedEx",
	[GPI_GEMM_SGEMM] = "cublasSgemm_v2",
	[GPI_GEMM_HGEMM] = "cublasHgemm",
	[GPI_GEMM_LT_MATMUL] = "cublasLtMatmul",
};

const char *gpi_gemm_name(unsigned func)
{
	return func < GPI_GEMM__COUNT && fname[func] ? fname[func] : "cublasGemm";
}

/*
 * The element type's name as PyTorch records it ("c10::BFloat16"), so the
 * analyzer's element sizes and peaks apply; other types keep their CUDA
 * name, which the models do not know (time only: complex GEMMs are not
 * 2MNK real FLOPs).
 */
static const char *type_name(int32_t t, char *buf, size_t size)
{
	switch (t) {
	case CUDA_R_16F: return "c10::Half";
	case CUDA_R_16BF: return "c10::BFloat16";
	case CUDA_R_32F: return "float";
	case CUDA_R_64F: return "double";
	case CUDA_R_8I: return "signed char";
	case CUDA_R_8U: return "unsigned char";
	case CUDA_R_32I: return "int";
	case CUDA_R_8F_E4M3: return "c10::Float8_e4m3fn";
	case CUDA_R_8F_E5M2: return "c10::Float8_e5m2";
	default: snprintf(buf, size, "cudaDataType(%d)", (int)t); return buf;
	}
}

/* The compute type's name without its CUBLAS_COMPUTE_ prefix ("32F_FAST_TF32"). */
static const char *compute_name(int32_t c, char *buf, size_t size)
{
	static const struct {
		int32_t v;
		const char *name;
	} names[] = {
		{CUBLAS_COMPUTE_16F, "16F"},
		{CUBLAS_COMPUTE_16F_PEDANTIC, "16F_PEDANTIC"},
		{CUBLAS_COMPUTE_32F, "32F"},
		{CUBLAS_COMPUTE_32F_PEDANTIC, "32F_PEDANTIC"},
		{CUBLAS_COMPUTE_32F_FAST_16F, "32F_FAST_16F"},
		{CUBLAS_COMPUTE_32F_FAST_16BF, "32F_FAST_16BF"},
		{CUBLAS_COMPUTE_32F_FAST_TF32, "32F_FAST_TF32"},
		{CUBLAS_COMPUTE_64F, "64F"},
		{CUBLAS_COMPUTE_64F_PEDANTIC, "64F_PEDANTIC"},
		{CUBLAS_COMPUTE_32I, "32I"},
		{CUBLAS_COMPUTE_32I_PEDANTIC, "32I_PEDANTIC"},
	};
	for (size_t i = 0; i < GP_ARRAY_SIZE(names); i++) {
		if (names[i].v == c) {
			return names[i].name;
		}
	}
	snprintf(buf, size, "%d", (int)c); /* a legacy cudaDataType, or a newer type */
	return buf;
}

static char op_letter(int32_t op)
{
	return op == CUBLAS_OP_N ? 'N' : op == CUBLAS_OP_T ? 'T' : op == CUBLAS_OP_C ? 'C' : '?';
}

/*
 * Strides, in elements, of op(X) (rows, cols) stored with leading dimension
 * ld in order (0 column-major, 1 row-major): transposing swaps them.
 */
static void strides(int64_t ld, int order, int32_t op, int64_t *rs, int64_t *cs)
{
	int64_t r = order == 1 ? ld : 1, c = order == 1 ? 1 : ld;
	bool t = op != CUBLAS_OP_N;
	*rs = t ? c : r;
	*cs = t ? r : c;
}

/* dims or strides of one matrix: "[r,c]" or "[b,r,c]" when batched. */
static size_t pair(char *p, size_t size, bool batched, int64_t b, int64_t r, int64_t c)
{
	int n = batched ? snprintf(p, size, "[%lld,%lld,%lld]", (long long)b, (long long)r,
				   (long long)c)
			: snprintf(p, size, "[%lld,%lld]", (long long)r, (long long)c);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

size_t gpi_gemm_signature(const struct gpi_gemm_ev *e, char *buf, size_t size)
{
	char ta[32], tb[32], tc[32];
	bool bt = e->batch > 1 || e->func == GPI_GEMM_STRIDED_BATCHED_EX;
	int64_t ars, acs, brs, bcs, crs, ccs;
	size_t n = 0;

	if (size < 2) {
		return 0;
	}
	buf[0] = '\0';
	strides(e->lda, e->order_a, e->transa, &ars, &acs);
	strides(e->ldb, e->order_b, e->transb, &brs, &bcs);
	strides(e->ldc, e->order_c, CUBLAS_OP_N, &crs, &ccs);
#define APPEND(...)                                                                                \
	do {                                                                                       \
		int k_ = snprintf(buf + n, size - n, __VA_ARGS__);                                 \
		n = k_ < 0 ? n : n + (size_t)k_ < size ? n + (size_t)k_ : size - 1;                \
	} while (0)
	APPEND("D=[");
	n += pair(buf + n, size - n, bt, e->batch, e->m, e->k);
	APPEND(",");
	n += pair(buf + n, size - n, bt, e->batch, e->k, e->n);
	APPEND(",");
	n += pair(buf + n, size - n, bt, e->batch, e->m, e->n);
	APPEND(",[],[],[]] T=[\"%s\",\"%s\",\"%s\",\"str\",\"str\",\"str\"]",
	       type_name(e->atype, ta, sizeof(ta)), type_name(e->btype, tb, sizeof(tb)),
	       type_name(e->ctype, tc, sizeof(tc)));
	if (e->order_a >= 0 && e->order_b >= 0 && e->order_c >= 0) {
		APPEND(" S=[");
		n += pair(buf + n, size - n, bt, e->stride_a, ars, acs);
		APPEND(",");
		n += pair(buf + n, size - n, bt, e->stride_b, brs, bcs);
		APPEND(",");
		n += pair(buf + n, size - n, bt, e->stride_c, crs, ccs);
		APPEND(",[],[],[]]");
	}
	APPEND(" C=[\"\",\"\",\"\",\"%c\",\"%c\",\"%s\"]", op_letter(e->transa),
	       op_letter(e->transb), compute_name(e->compute, tc, sizeof(tc)));
#undef APPEND
	return n;
}

/* ---------------------------------------------------------- the writer */

void gpi_gemm_drain(struct gpi_conv *cv)
{
	char sig[1024];
	struct gpi_gemm_ev e;

	while (gpi_queue_pop(&queue, &e)) {
		if (!gpi_capture_keep(e.start)) {
			cv->filtered++;
			continue;
		}
		gpi_gemm_signature(&e, sig, sizeof(sig));
		struct gpt_nvtx r = {
			.start = e.start,
			.end = e.end > e.start ? e.end : e.start + 1,
			.type = GPT_NVTX_PUSH_POP,
			.domain = gpi_conv_intern(cv, "cpu_op"),
			.message = gpi_conv_intern(cv, gpi_gemm_name(e.func)),
			.payload_type = e.ext_id ? 1 : 0, /* NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 */
			.payload = e.ext_id,
			.start_tid = e.tid,
			.end_tid = e.tid,
			.args = gpi_conv_intern(cv, sig),
		};
		gpi_conv_note_tid(cv, e.tid);
		cv->events++;
		if (r.start < cv->first_ts) {
			cv->first_ts = r.start;
		}
		if (r.end > cv->last_ts) {
			cv->last_ts = r.end;
		}
		gpi_conv_add(cv, GPT_KIND_NVTX, &r);
	}
}

void gpi_gemm_atfork_child(void)
{
	gpi_queue_atfork_child(&queue);
	atomic_fetch_add(&fork_gen, 1);
}

/* ------------------------------------------------------ finding targets */

static void *lookup(const char *name, bool lt)
{
	static const char *const libs[2][3] = {
		{"libcublas.so.13", "libcublas.so.12", "libcublas.so"},
		{"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"},
	};
	void *f = gpi_dlsym(RTLD_NEXT, name);

	for (int i = 0; !f && i < 3; i++) {
		/* loaded in a local scope (a dlopened framework): find it by name */
		void *h = dlopen(libs[lt][i], RTLD_NOW | RTLD_NOLOAD);
		if (h) {
			f = gpi_dlsym(h, name);
			dlclose(h);
		}
	}
	return f;
}

#define REAL(name, lt)                                                                             \
	static __typeof__(&name) real_##name;                                                      \
	if (GP_UNLIKELY(!real_##name)) {                                                           \
		*(void **)&real_##name = lookup(#name, lt);                                         \
		if (!real_##name) {                                                                \
			return CUBLAS_STATUS_NOT_INITIALIZED;                                      \
		}                                                                                  \
	}

/* ------------------------------------------------------------ recording */

static __thread int tls_depth __attribute__((tls_model("initial-exec")));
static __thread uint32_t tls_tid __attribute__((tls_model("initial-exec")));
static __thread unsigned tls_gen __attribute__((tls_model("initial-exec")));

static uint32_t tid(void)
{
	unsigned g = atomic_load_explicit(&fork_gen, memory_order_relaxed);

	if (GP_UNLIKELY(!tls_tid || tls_gen != g)) {
		tls_tid = (uint32_t)syscall(SYS_gettid);
		tls_gen = g;
	}
	return tls_tid;
}

struct call {
	uint64_t start, id;
	bool pushed, on;
};

static inline void call_begin(struct call *k)
{
	k->on = !tls_depth++ &&
		atomic_load_explicit(&gpi_s.state, memory_order_relaxed) == GPI_RUNNING &&
		(gpi_s.cfg.kinds & GPI_K_GEMM);
	if (!k->on) {
		return;
	}
	k->id = gpi_nccl_next_id();
	k->start = gpi_now();
	k->pushed = gpi_nccl_extcorr_push(k->id);
}

/*
 * Ends a recorded call (a call not recorded only decrements tls_depth):
 * fills start, end, tid and ext_id of e and queues it when it succeeded.
 */
static void call_end(struct call *k, struct gpi_gemm_ev *e, cublasStatus_t st)
{
	tls_depth--;
	if (!k->on) {
		return;
	}
	gpi_nccl_extcorr_pop(k->pushed);
	e->end = gpi_now();
	if (st != CUBLAS_STATUS_SUCCESS) {
		return; /* nothing launched */
	}
	e->start = k->start;
	e->ext_id = k->pushed ? k->id : 0;
	e->tid = tid();
	gpi_gemm_push(e);
}

/* ------------------------------------------------------------ cuBLAS */

static void blas_dims(struct gpi_gemm_ev *e, unsigned func, cublasOperation_t ta,
		      cublasOperation_t tb, int m, int n, int k, int lda, int ldb, int ldc)
{
	e->func = (uint8_t)func;
	e->transa = ta;
	e->transb = tb;
	e->m = m;
	e->n = n;
	e->k = k;
	e->batch = 1;
	e->lda = lda;
	e->ldb = ldb;
	e->ldc = ldc;
}

GPI_EXPORT cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
				       cublasOperation_t transb, int m, int n, int k,
				       const void *alpha, const void *A, cudaDataType Atype, int lda,
				       const void *B, cudaDataType Btype, int ldb, const void *beta,
				       void *C, cudaDataType Ctype, int ldc,
				       cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
	REAL(cublasGemmEx, false);
	struct call c;
	int saved;
	call_begin(&c);
	cublasStatus_t r = real_cublasGemmEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda,
					     B, Btype, ldb, beta, C, Ctype, ldc, computeType, algo);
	if (!c.on) {
		tls_depth--;
		return r;
	}
	saved = errno;
	struct gpi_gemm_ev e = {.atype = Atype, .btype = Btype, .ctype = Ctype,
				.compute = computeType};
	blas_dims(&e, GPI_GEMM_EX, transa, transb, m, n, k, lda, ldb, ldc);
	call_end(&c, &e, r);
	errno = saved;
	return r;
}

GPI_EXPORT cublasStatus_t cublasGemmStridedBatchedEx(
	cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
	int k, const void *alpha, const void *A, cudaDataType Atype, int lda, long long int strideA,
	const void *B, cudaDataType Btype, int ldb, long long int strideB, const void *beta, void *C,
	cudaDataType Ctype, int ldc, long long int strideC, int batchCount,
	cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
	REAL(cublasGemmStridedBatchedEx, false);
	struct call c;
	int saved;
	call_begin(&c);
	cublasStatus_t r = real_cublasGemmStridedBatchedEx(
		handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb,
		strideB, beta, C, Ctype, ldc, strideC, batchCount, computeType, algo);
	if (!c.on) {
		tls_depth--;
		return r;
	}
	saved = errno;
	struct gpi_gemm_ev e = {.atype = Atype, .btype = Btype, .ctype = Ctype,
				.compute = computeType};
	blas_dims(&e, GPI_GEMM_STRIDED_BATCHED_EX, transa, transb, m, n, k, lda, ldb, ldc);
	e.batch = batchCount;
	e.stride_a = strideA;
	e.stride_b = strideB;
	e.stride_c = strideC;
	call_end(&c, &e, r);
	errno = saved;
	return r;
}

GPI_EXPORT cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
					 cublasOperation_t transb, int m, int n, int k,
					 const float *alpha, const float *A, int lda, const float *B,
					 int ldb, const float *beta, float *C, int ldc)
{
	REAL(cublasSgemm_v2, false);
	struct call c;
	int saved;
	call_begin(&c);
	cublasStatus_t r = real_cublasSgemm_v2(handle, transa, transb, m, n, k, alpha, A, lda, B,
					       ldb, beta, C, ldc);
	if (!c.on) {
		tls_depth--;
		return r;
	}
	saved = errno;
	struct gpi_gemm_ev e = {.atype = CUDA_R_32F, .btype = CUDA_R_32F, .ctype = CUDA_R_32F,
				.compute = CUBLAS_COMPUTE_32F};
	blas_dims(&e, GPI_GEMM_SGEMM, transa, transb, m, n, k, lda, ldb, ldc);
	call_end(&c, &e, r);
	errno = saved;
	return r;
}

/* cublas_api.h declares it for C++ only (__half); the pointers are all C sees. */
cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t transa,
			   cublasOperation_t transb, int m, int n, int k, const void *alpha,
			   const void *A, int lda, const void *B, int ldb, const void *beta, void *C,
			   int ldc);

GPI_EXPORT cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t transa,
				      cublasOperation_t transb, int m, int n, int k,
				      const void *alpha, const void *A, int lda, const void *B,
				      int ldb, const void *beta, void *C, int ldc)
{
	REAL(cublasHgemm, false);
	struct call c;
	int saved;
	call_begin(&c);
	cublasStatus_t r = real_cublasHgemm(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb,
					    beta, C, ldc);
	if (!c.on) {
		tls_depth--;
		return r;
	}
	saved = errno;
	struct gpi_gemm_ev e = {.atype = CUDA_R_16F, .btype = CUDA_R_16F, .ctype = CUDA_R_16F,
				.compute = CUBLAS_COMPUTE_16F};
	blas_dims(&e, GPI_GEMM_HGEMM, transa, transb, m, n, k, lda, ldb, ldc);
	call_end(&c, &e, r);
	errno = saved;
	return r;
}

/* ------------------------------------------------------------ cuBLASLt */

static __typeof__(&cublasLtMatrixLayoutGetAttribute) lt_layout_get;
static __typeof__(&cublasLtMatmulDescGetAttribute) lt_desc_get;

/* One attribute of a layout into v (size bytes); false when it cannot be read. */
static bool layout_attr(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t a, void *v,
			size_t size)
{
	size_t got = 0;
	return l && lt_layout_get(l, a, v, size, &got) == CUBLAS_STATUS_SUCCESS && got == size;
}

struct layout {
	uint32_t type;
	int32_t order, batch;
	uint64_t rows, cols;
	int64_t ld, stride;
};

static bool layout_read(cublasLtMatrixLayout_t l, struct layout *o)
{
	*o = (struct layout){.batch = 1};
	if (!layout_attr(l, CUBLASLT_MATRIX_LAYOUT_TYPE, &o->type, sizeof(o->type)) ||
	    !layout_attr(l, CUBLASLT_MATRIX_LAYOUT_ROWS, &o->rows, sizeof(o->rows)) ||
	    !layout_attr(l, CUBLASLT_MATRIX_LAYOUT_COLS, &o->cols, sizeof(o->cols)) ||
	    !layout_attr(l, CUBLASLT_MATRIX_LAYOUT_LD, &o->ld, sizeof(o->ld))) {
		return false;
	}
	/* these have defaults: an unreadable one keeps it */
	layout_attr(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &o->order, sizeof(o->order));
	layout_attr(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &o->batch, sizeof(o->batch));
	layout_attr(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &o->stride, sizeof(o->stride));
	return true;
}

/* Strides known only for plain column- and row-major orders. */
static int8_t order_of(int32_t order)
{
	return order == CUBLASLT_ORDER_COL ? 0 : order == CUBLASLT_ORDER_ROW ? 1 : -1;
}

/* m, n, k and the rest from the descriptors; false when one cannot be read. */
static bool lt_shapes(cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
		      cublasLtMatrixLayout_t dl, struct gpi_gemm_ev *e)
{
	struct layout la, lb, ld;
	int32_t ta = CUBLAS_OP_N, tb = CUBLAS_OP_N, ct = 0;
	size_t got;

	if (!lt_layout_get || !lt_desc_get || !d || !layout_read(a, &la) ||
	    !layout_read(b, &lb) || !layout_read(dl, &ld) ||
	    lt_desc_get(d, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &ct, sizeof(ct), &got) !=
		    CUBLAS_STATUS_SUCCESS) {
		return false;
	}
	lt_desc_get(d, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta), &got);
	lt_desc_get(d, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb), &got);
	e->func = GPI_GEMM_LT_MATMUL;
	e->transa = ta;
	e->transb = tb;
	e->compute = ct;
	e->atype = (int32_t)la.type;
	e->btype = (int32_t)lb.type;
	e->ctype = (int32_t)ld.type;
	e->m = (int64_t)ld.rows;
	e->n = (int64_t)ld.cols;
	e->k = (int64_t)(ta == CUBLAS_OP_N ? la.cols : la.rows);
	e->batch = ld.batch > 1 ? ld.batch : la.batch > 1 ? la.batch : 1;
	e->lda = la.ld;
	e->ldb = lb.ld;
	e->ldc = ld.ld;
	e->order_a = order_of(la.order);
	e->order_b = order_of(lb.order);
	e->order_c = order_of(ld.order);
	e->stride_a = la.stride;
	e->stride_b = lb.stride;
	e->stride_c = ld.stride;
	return true;
}

GPI_EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle,
					 cublasLtMatmulDesc_t computeDesc, const void *alpha,
					 const void *A, cublasLtMatrixLayout_t Adesc, const void *B,
					 cublasLtMatrixLayout_t Bdesc, const void *beta,
					 const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
					 cublasLtMatrixLayout_t Ddesc,
					 const cublasLtMatmulAlgo_t *algo, void *workspace,
					 size_t workspaceSizeInBytes, cudaStream_t stream)
{
	REAL(cublasLtMatmul, true);
	static _Atomic int looked;
	if (GP_UNLIKELY(!atomic_load_explicit(&looked, memory_order_acquire))) {
		*(void **)&lt_layout_get = lookup("cublasLtMatrixLayoutGetAttribute", true);
		*(void **)&lt_desc_get = lookup("cublasLtMatmulDescGetAttribute", true);
		atomic_store_explicit(&looked, 1, memory_order_release);
	}
	struct call c;
	int saved;
	call_begin(&c);
	cublasStatus_t r =
		real_cublasLtMatmul(lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C,
				    Cdesc, D, Ddesc, algo, workspace, workspaceSizeInBytes, stream);
	if (!c.on) {
		tls_depth--;
		return r;
	}
	saved = errno;
	struct gpi_gemm_ev e = {0};
	if (!lt_shapes(computeDesc, Adesc, Bdesc, Ddesc ? Ddesc : Cdesc, &e)) {
		/* shapes unreadable: forwarded, not recorded, counted with the drops */
		gpi_nccl_extcorr_pop(c.pushed);
		c.on = false;
		if (r == CUBLAS_STATUS_SUCCESS) {
			gpi_queue_drop(&queue);
		}
	}
	call_end(&c, &e, r);
	errno = saved;
	return r;
}
