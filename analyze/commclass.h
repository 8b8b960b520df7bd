/* SPDX-License-Identifier: MIT */
/*
 * commclass.h - which GPU work is communication (analyze/commclass.c,
 * docs/comm.md): one classification, computed once per model and used by
 * every command that tells communication apart (gaps, breakdown, comm,
 * report, html, diff, flame).
 *
 * A kernel is communication, in this order of evidence:
 *   1. it is linked to an NCCL/RCCL operation record (gpa_model.nccl);
 *   2. the CPU op that launched it is a communication op: the innermost
 *      range around its launch call (Python frames skipped) is a PyTorch CPU
 *      op or annotation matching GPA_COMM_CPU_OP_PATTERN (c10d,
 *      ProcessGroup, symm_mem::, DeepEP, NVSHMEM, nccl:... ops);
 *   3. its name matches a built-in rule for a library in use today (NCCL,
 *      RCCL, NVSHMEM, MSCCL++, symmetric-memory multimem / one-shot /
 *      two-shot all-reduce, DeepEP intranode/internode kernels, the custom
 *      all-reduce kernels of vLLM, SGLang and TensorRT-LLM), except that an
 *      NCCL-named kernel in a process whose kernels link to NCCL records
 *      must be linked itself;
 *   4. its name matches one of the user's rules (--comm-kernel).
 * A peer-to-peer copy between GPUs (memcpy kind PtoP) is communication too.
 *
 * Communication is also present without any GPU work when a collective
 * library recorded its calls on the host: PyTorch CPU ops and annotations
 * of NCCL, RCCL, Gloo, c10d, ProcessGroup, symm_mem or record_param_comms
 * (GPA_COMM_HOST_OP_PATTERN). They are counted (gpa_commclass.host_colls),
 * never turned into GPU communication time: a Gloo collective on CPU
 * tensors moves no GPU data.
 */
#ifndef GPA_COMMCLASS_H
#define GPA_COMMCLASS_H

#include "analyze/model.h"

/* Why an op is communication; 0 when it is not. */
enum gpa_comm_why {
	GPA_COMM_NOT = 0,
	GPA_COMM_RECORD = 1, /* linked to an NCCL/RCCL operation record */
	GPA_COMM_CPU_OP = 2, /* launched inside a communication CPU op */
	GPA_COMM_NAME = 3,   /* a built-in kernel-name rule */
	GPA_COMM_USER = 4,   /* a user's rule */
	GPA_COMM_PEER = 5,   /* a peer-to-peer copy between GPUs */
	GPA_COMM_WHY__COUNT = 6,
};

/* CPU ops (and annotations) that launch communication kernels (PCRE2). */
#define GPA_COMM_CPU_OP_PATTERN                                                                    \
	"(?i)^(c10d::|_?c10d_functional::|symm_mem::|nccl|rccl|record_param_comms$|"               \
	"ProcessGroup|deep_?ep|nvshmem|mscclpp|_C_custom_ar::|custom_ar::)"                        \
	"|(^|::)_?(all_?reduce|all_?gather|reduce_?scatter|all_?to_?all)"

/*
 * CPU ops and annotations that are a collective library's own record of a
 * call (communication present even when no GPU work is recorded).
 */
#define GPA_COMM_HOST_OP_PATTERN                                                                   \
	"(?i)^((nccl|rccl|gloo|mpi|ucc|xccl|hccl):|c10d::|_?c10d_functional::|symm_mem::|"         \
	"record_param_comms$|ProcessGroup)"

struct gpa_commclass_opts {
	const char *const *kernel_rules; /* the user's PCRE2 patterns of kernel names */
	size_t nkernel_rules;
};

struct gpa_commclass {
	uint8_t *kern;                   /* per gpa_model.kern row: enum gpa_comm_why */
	uint8_t *copy;                   /* per gpa_model.copy row: GPA_COMM_PEER or 0 */
	uint64_t n[GPA_COMM_WHY__COUNT]; /* ops by reason ([0]: the others) */
	/* CPU ops and annotations matching GPA_COMM_HOST_OP_PATTERN, outermost of a nest */
	uint64_t host_colls;
	uint32_t host_name; /* model string id of the first one's name; 0 when none */
};

/*
 * Classifies every kernel and copy of m. o may be NULL (no user rules).
 * Fills *out (release with gpa_commclass_release, also after an error).
 * Returns 0; -GP_ERR_API for a bad user rule, the reason in errbuf
 * ("bad kernel rule 'P': REASON at offset N"); -GP_ERR_NOMEM.
 */
int gpa_commclass_compute(const struct gpa_model *m, const struct gpa_commclass_opts *o,
			  struct gpa_commclass *out, char *errbuf, size_t errlen);
void gpa_commclass_release(struct gpa_commclass *c);

/* Whether row g of gpa_model.gpu is communication. */
static inline bool gpa_commclass_gpu(const struct gpa_commclass *c, const struct gpa_model *m,
				     size_t g)
{
	switch (gpa_gpu_kind(m, g)) {
	case GPA_GPU_KERNEL:
		return c->kern[gpa_gpu_row(m, g)] != GPA_COMM_NOT;
	case GPA_GPU_MEMCPY:
		return c->copy[gpa_gpu_row(m, g)] != GPA_COMM_NOT;
	default:
		return false;
	}
}

#endif /* GPA_COMMCLASS_H */
