/* SPDX-License-Identifier: MIT */
/*
 * comm.h - what `gpuprof comm` shows (analyze/comm.c, docs/comm.md): NCCL
 * operations by collective and size, bandwidth with nccl-tests' bus factors,
 * exposed communication per device and step, and the same operation matched
 * across ranks.
 */
#ifndef GPA_COMM_H
#define GPA_COMM_H

#include "analyze/model.h"
#include "analyze/coll-match.h"

struct gpa_steps;

/* Size buckets of an operation's message (the record's bytes). */
enum { GPA_COMM_BUCKETS = 5 };
/* "<64KiB", "64KiB-1MiB", "1-16MiB", "16-256MiB", ">=256MiB" */
const char *gpa_comm_bucket_name(unsigned b);

/* Canonical collective name ("AllReduce", ...) for a func as any source spells it; NULL unknown. */
const char *gpa_comm_canonical(const char *func);
/*
 * nccl-tests' bus bandwidth factor and data size of collective func over n
 * ranks: size = bytes * *mult, busbw = algbw * factor. Unknown: 1 and 1.
 */
double gpa_comm_bus_factor(const char *canonical, int n, unsigned *mult);

/*
 * The per-direction link peak of model device dev in GB/s, for busbw
 * efficiency: half the device table's bidirectional NVLink figure, else its
 * PCIe x16 figure; 0 when the device is not in the table (or a user file).
 */
double gpa_comm_link_peak_gbps(const struct gpa_model *m, uint32_t dev);

/* How communication kernels were told apart. */
enum gpa_comm_ident {
	GPA_COMM_BY_NONE = 0,
	GPA_COMM_BY_RECORDS = 1, /* NCCL records linked to kernels */
	GPA_COMM_BY_NAMES = 2,	 /* name rules only */
	GPA_COMM_BY_BOTH = 3,	 /* records where linked, names for the rest */
};

struct gpa_commclass;

struct gpa_comm_opts {
	const struct gpa_steps *steps;	  /* borrowed; NULL: whole trace per device */
	const char *const *kernel_rules; /* extra PCRE2 patterns naming comm kernels */
	size_t nkernel_rules;
	/* borrowed; NULL: computed here (with kernel_rules, which are then unused) */
	const struct gpa_commclass *comm;
};

/* One collective type and size bucket. */
struct gpa_comm_coll {
	uint32_t func; /* model string id of the canonical (or recorded) name */
	uint8_t bucket;
	int32_t nranks;		  /* largest communicator seen */
	uint64_t count;		  /* operations */
	uint64_t time;		  /* their durations (GPU when known, else host), summed */
	uint64_t bw_time;	  /* time used for bandwidth: the fastest rank's, when matched */
	uint64_t bytes;		  /* messages, summed */
	uint64_t data;		  /* nccl-tests data size S, summed */
	uint64_t gpu_known;	  /* operations with a GPU interval */
	double algbw, busbw;	  /* GB/s (1e9 B/s) over the bucket: sum S / sum bw_time */
	double peak;		  /* link peak GB/s; 0 unknown */
};

/* Communication on one device in one step (step GPA_NONE: the device's total). */
struct gpa_comm_dev {
	uint32_t dev, step;
	uint64_t comm;	  /* |C|: union of communication kernel time */
	uint64_t overlap; /* |C intersect K|: with compute kernels running */
	uint64_t exposed; /* |C \ K| */
	uint64_t compute; /* |K|: union of the other kernels */
	uint64_t kernels; /* communication kernels and peer copies */
};

/* One rank's part in operations matched across ranks. */
struct gpa_comm_rank {
	uint32_t proc;
	int32_t rank;
	uint64_t matched;   /* its operations matched on other ranks */
	uint64_t last;	    /* times it arrived last */
	uint64_t caused;    /* time the other ranks waited for it when it was last */
	uint64_t waited;    /* time it waited for the last arrival */
	uint64_t late_sum;  /* its arrival minus the first arrival, summed */
	uint64_t colls;	    /* its collectives offered for matching */
	uint8_t by;	    /* enum gpa_coll_by: how they were keyed (when colls) */
};

struct gpa_comm {
	GP_VEC(struct gpa_comm_coll) colls; /* by total time, longest first */
	GP_VEC(struct gpa_comm_dev) devs;   /* by device, then step; totals (step NONE) last */
	GP_VEC(struct gpa_comm_rank) ranks; /* by rank */
	uint64_t ops, p2p_ops;		    /* NCCL operations (and point-to-point among them) */
	uint64_t ops_gpu;		    /* with a GPU interval */
	uint64_t comm_kernels, by_record, by_name; /* by_name: CPU-op and kernel-name rules */
	uint64_t by_cpu_op;                         /* of by_name: by the launching CPU op */
	uint64_t peer_copies;                       /* peer-to-peer copies between GPUs */
	uint64_t host_colls;  /* a collective library's CPU ops / annotations (commclass.h) */
	uint32_t host_name;   /* model string id of the first one's name; 0 when none */
	enum gpa_comm_ident ident;
	/* across ranks: each process a rank, matched as the job report does (coll-match.h) */
	uint64_t groups;	 /* collectives matched across 2+ ranks */
	uint64_t unmatched;	 /* collectives found on one rank only */
	uint64_t skew_max, skew_sum;
	uint8_t straggler_ev;	 /* enum gpa_coll_evidence */
	uint32_t straggler;	 /* gpa_comm.ranks index when found, else GPA_NONE */
	uint64_t straggler_margin; /* median lead of its last arrivals over the next */
	struct gpa_coll_check match; /* keys, clock check: why nothing matched */
	bool peak_known;
};

void gpa_comm_opts_init(struct gpa_comm_opts *o);

/*
 * Whether the traces hold communication: NCCL/RCCL operations,
 * communication kernels or peer copies, or collectives a library recorded
 * only on the host (these add no GPU communication time).
 */
static inline bool gpa_comm_present(const struct gpa_comm *c)
{
	return c && (c->ops || c->comm_kernels || c->peer_copies || c->host_colls);
}
/*
 * Analyses the model's NCCL operations and communication kernels. Returns
 * 0, -GP_ERR_API for a bad kernel rule (reason in errbuf), -GP_ERR_NOMEM.
 */
int gpa_comm_analyze(const struct gpa_model *m, const struct gpa_comm_opts *o,
		     struct gpa_comm *out, char *errbuf, size_t errlen);
void gpa_comm_release(struct gpa_comm *c);

#endif /* GPA_COMM_H */
