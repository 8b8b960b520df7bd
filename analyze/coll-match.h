/* SPDX-License-Identifier: MIT */
/*
 * coll-match.h - collectives matched across ranks (analyze/coll-match.c):
 * which collectives of a rank are matched and how they are keyed, and the
 * one matcher both `gpuprof comm` (every trace in one model) and the job
 * report (each trace alone, analyze/job.c) use, so the two give the same
 * arrivals, skew and straggler (docs/comm.md, "Across ranks";
 * docs/cluster.md).
 */
#ifndef GPA_COLL_MATCH_H
#define GPA_COLL_MATCH_H

#include "analyze/model.h"

struct gpa_commclass;

/* How a rank's collectives are keyed for matching across ranks (stored in the job's bytes). */
enum gpa_coll_by {
	GPA_COLL_SEQ = 0,	   /* communicator hash and sequence number (NCCL records) */
	GPA_COLL_ORDER_COMM = 1,   /* no sequence numbers: order per communicator (NCCL records) */
	GPA_COLL_ORDER_STREAM = 2, /* no NCCL records: communication kernels, order per stream */
	GPA_COLL_BY__COUNT = 3,
};

/* "sequence number", "order per communicator", "order per stream". */
const char *gpa_coll_by_name(uint8_t by);

/*
 * Keyed by stream, a hash is the stream's place among its rank's
 * communication streams (1 the first to communicate; the key) and the
 * stream's id on that rank: these give them.
 */
static inline uint32_t gpa_coll_stream_place(uint64_t hash)
{
	return (uint32_t)(hash >> 32);
}
static inline uint32_t gpa_coll_stream_id(uint64_t hash)
{
	return (uint32_t)hash;
}

/* A collective's GPU ends on all ranks coincide within this on aligned clocks. */
#define GPA_COLL_END_NS 1000000ull
/* A straggler is last in at least half the matched collectives, this far ahead of the rest. */
#define GPA_COLL_STRAGGLER_NS 50000ull

/* One collective a rank took part in, as gpa_coll_take() finds it in a model. */
struct gpa_coll_src {
	uint64_t hash;	   /* communicator hash; by stream: the stream's place and id */
	uint64_t seq;	   /* the record's sequence number, or its place in its key's order (1..) */
	uint8_t by;	   /* enum gpa_coll_by */
	bool gpu_end;	   /* end is the GPU's: the ranks' ends of one collective coincide */
	const char *func;  /* its name as recorded (borrowed from the model) */
	uint64_t bytes;	   /* 0 unknown */
	uint64_t arrival;  /* host start (by order: the GPU start when known) */
	uint64_t end;	   /* the GPU end when known, else the host's */
	uint64_t host_at;  /* the host start (a kernel's start when there is no record) */
	uint32_t dev;	   /* model device, GPA_NONE */
	uint32_t proc;	   /* model process (0 when the model is one rank) */
	uint32_t op;	   /* NCCL operation index, GPA_NONE for a kernel */
};

/*
 * The collectives to match of each rank of m, in *out (caller frees), at
 * most max: NCCL records with communicator hash and sequence number; a rank
 * with none of those: its NCCL records by order per communicator; a rank
 * without NCCL collective records (none, or point-to-point only): its
 * communication kernels (cc) by order per stream.
 * per_proc: each process of the model is a rank; else the model is one.
 * Returns 0 or -GP_ERR_NOMEM.
 */
int gpa_coll_take(const struct gpa_model *m, const struct gpa_commclass *cc, bool per_proc,
		  size_t max, struct gpa_coll_src **out, size_t *nout);

/* One collective of one rank to match, on a timeline shared by the ranks. */
struct gpa_coll_ev {
	uint64_t hash, seq;
	uint8_t by;
	bool gpu_end;
	const char *func; /* canonical name (borrowed): same spelling on every rank */
	uint64_t bytes, arrival, end;
	uint32_t rank;	  /* the caller's rank index, below nranks */
	uint32_t tag;	  /* the caller's, carried through */
};

/* A collective matched on two ranks or more. */
struct gpa_coll_group {
	uint64_t hash, seq;
	uint8_t by;
	const char *func;    /* borrowed */
	size_t a, b;	     /* its arrivals: ev[a..b) of the sorted array, the last at b - 1 */
	uint32_t ranks;
	uint64_t first;	     /* earliest arrival */
	uint64_t skew;	     /* last arrival minus first */
	uint64_t margin;     /* last arrival minus the one before it */
	uint64_t end_spread; /* latest GPU end minus the earliest; 0 when not all GPU-timed */
	uint32_t last;	     /* rank index of the last arrival */
};

/* One rank's part in the matched collectives. */
struct gpa_coll_rank {
	uint64_t matched;  /* collectives matched on 2+ ranks it took part in */
	uint64_t last;	   /* times it arrived last */
	uint64_t caused;   /* time the others waited for it when it came last */
	uint64_t waited;   /* time it waited for the last arrival */
	uint64_t late_sum; /* its arrival minus the first arrival, summed */
};

/* What the matching found, and what it checked: enough to say why nothing matched. */
struct gpa_coll_check {
	uint32_t nranks;
	uint64_t colls;		     /* collectives given */
	uint64_t groups, unmatched;  /* matched on 2+ ranks; found on one rank only */
	uint8_t by;		     /* enum gpa_coll_by: the loosest key of a group */
	uint64_t mismatched;	     /* groups by order whose kinds or sizes differ */
	uint64_t ends_checked;	     /* groups timed on the GPU */
	uint64_t ends_far;	     /* of those, ends beyond GPA_COLL_END_NS */
	uint64_t end_spread_median;  /* over the groups checked */
	bool clocks_disagree;	     /* most checked groups' ends far apart: none used */
};

enum gpa_coll_evidence {
	GPA_COLL_NONE = 0,    /* nothing to judge (fewer than 2 ranks, nothing matched) */
	GPA_COLL_NOTHING = 1, /* judged: nothing material */
	GPA_COLL_FOUND = 2,
};

struct gpa_coll_match {
	GP_VEC(struct gpa_coll_group) groups; /* by skew, largest first */
	struct gpa_coll_rank *ranks;	      /* nranks, by the caller's rank index */
	struct gpa_coll_check chk;
	uint8_t straggler_ev;		      /* enum gpa_coll_evidence */
	uint32_t straggler;		      /* rank index, or GPA_NONE */
	uint64_t straggler_margin;	      /* median lead of its last arrivals over the next */
	uint32_t straggler_at;		      /* groups index of its latest lead, or GPA_NONE */
};

/*
 * Matches ev (sorted here by key, then arrival, then rank) across nranks
 * ranks into *out (zeroed by the call; release with gpa_coll_match_release):
 * the same key on 2+ ranks is one collective, kept when (matched by order)
 * its kind and size agree and its GPU ends lie within GPA_COLL_END_NS
 * unless most groups' ends do not (then the clocks disagree and nothing is
 * kept). The straggler is the rank last in at least half the groups with a
 * median lead of GPA_COLL_STRAGGLER_NS or more. The result depends only on
 * the arrivals and rank indexes, never on ev's order. Returns 0 or
 * -GP_ERR_NOMEM.
 */
int gpa_coll_match(struct gpa_coll_ev *ev, size_t n, uint32_t nranks, struct gpa_coll_match *out);
void gpa_coll_match_release(struct gpa_coll_match *x);

/*
 * Why no collective was matched (c->groups 0), one sentence into buf
 * ("" when some were); returns buf.
 */
const char *gpa_coll_why_unmatched(const struct gpa_coll_check *c, char *buf, size_t len);

#endif /* GPA_COLL_MATCH_H */
