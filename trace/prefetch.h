/* SPDX-License-Identifier: MIT */
/*
 * prefetch.h - decoding the chunks ahead of the reader on worker threads
 * (internal to trace/). The reader plans jobs in file order; workers read,
 * inflate, check the CRC and decode the records of each; the reader takes
 * the results in the same order. A job that fails at any step is done again
 * by the reader itself, so problems are found and worded as without workers.
 */
#ifndef GPT_PREFETCH_H
#define GPT_PREFETCH_H

#include "trace/format.h"

/* Where the workers read the chunks from: a file descriptor or bytes in memory. */
struct gpt_pf_src {
	int fd;
	const uint8_t *mem;
	uint64_t size;
	bool v2; /* format 2.x: scaled columns */
};

struct gpt_pf_job {
	/* planned by the reader */
	uint64_t off;                   /* of the chunk header */
	struct gpt_chunk_header h;
	const struct gpt_kind_info *ki; /* NULL: a string chunk */
	/* results, read once the job is done */
	bool raw_ok;                    /* read, inflated, CRC checked: raw holds raw_len bytes */
	bool dec_ok;                    /* ki's records decoded into recs */
	const uint8_t *raw;
	uint8_t *recs;
	/* the worker's buffers, kept from job to job */
	uint8_t *stored, *rawbuf;
	size_t stored_cap, raw_cap, recs_cap;
	bool done;
};

struct gpt_pf;

/* Starts threads workers (>= 1) over src; returns 0 or -GP_ERR_NOMEM. */
int gpt_pf_start(const struct gpt_pf_src *src, unsigned threads, struct gpt_pf **out);
/* Drops the jobs, ends the workers and frees p. NULL is fine. */
void gpt_pf_stop(struct gpt_pf *p);
/* A free job to plan, or NULL when every slot is taken; gpt_pf_submit hands it over. */
struct gpt_pf_job *gpt_pf_slot(struct gpt_pf *p);
void gpt_pf_submit(struct gpt_pf *p);
/* The oldest job not popped, once done; NULL when there is none. */
struct gpt_pf_job *gpt_pf_head(struct gpt_pf *p);
/* Frees the oldest job's slot. */
void gpt_pf_pop(struct gpt_pf *p);
/* Forgets every job, waiting for those being worked on. */
void gpt_pf_drop(struct gpt_pf *p);
bool gpt_pf_empty(struct gpt_pf *p);

#endif /* GPT_PREFETCH_H */
