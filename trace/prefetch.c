/* SPDX-License-Identifier: MIT */
/*
 * prefetch.c - a pool of worker threads decoding chunks ahead of the
 * reader (prefetch.h). The jobs sit in a ring of fixed size, so the memory
 * held is bounded by the ring whatever the file's length: the reader plans
 * at the tail, the workers take jobs in order, the reader takes results at
 * the head. Nothing here is global; each reader has its own pool.
 */
#include "base/compat.h"
#include "trace/prefetch.h"

#include <pthread.h>
#include <unistd.h>
#include <zlib.h>
#ifdef GPT_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

struct gpt_pf {
	struct gpt_pf_src src;
	pthread_mutex_t mu;
	pthread_cond_t work; /* a job was submitted, or stop */
	pthread_cond_t done; /* a job is done */
	struct gpt_pf_job *jobs;
	size_t depth;
	uint64_t head, run, tail; /* head <= run <= tail; run: the next job for a worker */
	bool stop;
	pthread_t *th;
	unsigned nth;
};

static bool grow(uint8_t **buf, size_t *cap, size_t want)
{
	if (want <= *cap) {
		return true;
	}
	uint8_t *n = realloc(*buf, want);
	if (!n) {
		return false;
	}
	*buf = n;
	*cap = want;
	return true;
}

/* The stored bytes of the job's chunk, or NULL when they cannot all be read. */
static const uint8_t *read_stored(const struct gpt_pf_src *s, struct gpt_pf_job *j)
{
	uint64_t off = j->off + GPT_CHUNK_HEADER_SIZE;
	size_t len = j->h.stored_len, got = 0;

	if (off > s->size || len > s->size - off) {
		return NULL;
	}
	if (s->mem) {
		return s->mem + off;
	}
	if (!grow(&j->stored, &j->stored_cap, len + 1)) {
		return NULL;
	}
	while (got < len) {
		ssize_t n = pread(s->fd, j->stored + got, len - got, (off_t)(off + got));
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return NULL; /* the reader reads it again and says what went wrong */
		}
		got += (size_t)n;
	}
	return j->stored;
}

struct inflater {
#ifdef GPT_HAVE_LIBDEFLATE
	struct libdeflate_decompressor *ld;
#else
	z_stream zs;
#endif
};

static bool inflate_job(struct inflater *in, const uint8_t *stored, struct gpt_pf_job *j)
{
	if (!grow(&j->rawbuf, &j->raw_cap, (size_t)j->h.raw_len + 1)) {
		return false;
	}
#ifdef GPT_HAVE_LIBDEFLATE
	size_t in_used = 0, out_got = 0;
	return libdeflate_deflate_decompress_ex(in->ld, stored, j->h.stored_len, j->rawbuf,
						(size_t)j->h.raw_len + 1, &in_used,
						&out_got) == LIBDEFLATE_SUCCESS &&
	       in_used == j->h.stored_len && out_got == j->h.raw_len;
#else
	inflateReset(&in->zs);
	in->zs.next_in = (uint8_t *)stored;
	in->zs.avail_in = j->h.stored_len;
	in->zs.next_out = j->rawbuf;
	in->zs.avail_out = j->h.raw_len + 1;
	return inflate(&in->zs, Z_FINISH) == Z_STREAM_END && in->zs.avail_out == 1 &&
	       in->zs.avail_in == 0;
#endif
}

/* One job: what fails is left for the reader to do again. */
static void work_on(const struct gpt_pf_src *s, struct inflater *in, struct gpt_pf_job *j)
{
	const uint8_t *stored = read_stored(s, j);
	char reason[128];

	j->raw_ok = j->dec_ok = false;
	if (!stored) {
		return;
	}
	j->raw = stored;
	if (j->h.flags & GPT_CHUNK_FLAG_DEFLATE) {
		if (!inflate_job(in, stored, j)) {
			return;
		}
		j->raw = j->rawbuf;
	}
#ifdef GPT_HAVE_LIBDEFLATE
	uint32_t crc = libdeflate_crc32(0, j->raw, j->h.raw_len);
#else
	uint32_t crc = (uint32_t)crc32(0, j->raw, j->h.raw_len);
#endif
	if (crc != j->h.raw_crc) {
		return;
	}
	j->raw_ok = true;
	if (!j->ki || !grow(&j->recs, &j->recs_cap, (size_t)j->h.count * j->ki->size + 1)) {
		return;
	}
	j->dec_ok = gpt_decode_records_ex(j->ki, j->raw, j->h.raw_len, j->h.count, j->recs, reason,
					  sizeof(reason), s->v2) == 0;
}

static void *worker(void *arg)
{
	struct gpt_pf *p = arg;
	struct inflater in;
	bool ok;

#ifdef GPT_HAVE_LIBDEFLATE
	in.ld = libdeflate_alloc_decompressor();
	ok = in.ld != NULL;
#else
	memset(&in.zs, 0, sizeof(in.zs));
	ok = inflateInit2(&in.zs, -15) == Z_OK;
#endif
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->stop && p->run == p->tail) {
			pthread_cond_wait(&p->work, &p->mu);
		}
		if (p->stop) {
			break;
		}
		struct gpt_pf_job *j = &p->jobs[p->run++ % p->depth];
		pthread_mutex_unlock(&p->mu);
		if (ok) {
			work_on(&p->src, &in, j);
		} else {
			j->raw_ok = j->dec_ok = false;
		}
		pthread_mutex_lock(&p->mu);
		j->done = true;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
#ifdef GPT_HAVE_LIBDEFLATE
	libdeflate_free_decompressor(in.ld);
#else
	if (ok) {
		inflateEnd(&in.zs);
	}
#endif
	return NULL;
}

int gpt_pf_start(const struct gpt_pf_src *src, unsigned threads, struct gpt_pf **out)
{
	struct gpt_pf *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p) {
		return -GP_ERR_NOMEM;
	}
	p->src = *src;
	p->depth = (size_t)threads * 2 + 2;
	p->jobs = calloc(p->depth, sizeof(*p->jobs));
	p->th = calloc(threads, sizeof(*p->th));
	if (!p->jobs || !p->th) {
		free(p->jobs);
		free(p->th);
		free(p);
		return -GP_ERR_NOMEM;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	for (unsigned i = 0; i < threads; i++) {
		if (pthread_create(&p->th[p->nth], NULL, worker, p)) {
			break;
		}
		p->nth++;
	}
	if (!p->nth) {
		gpt_pf_stop(p);
		return -GP_ERR_NOMEM;
	}
	*out = p;
	return 0;
}

void gpt_pf_stop(struct gpt_pf *p)
{
	if (!p) {
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 0; i < p->nth; i++) {
		pthread_join(p->th[i], NULL);
	}
	for (size_t i = 0; i < p->depth; i++) {
		free(p->jobs[i].stored);
		free(p->jobs[i].rawbuf);
		free(p->jobs[i].recs);
	}
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->mu);
	free(p->jobs);
	free(p->th);
	free(p);
}

struct gpt_pf_job *gpt_pf_slot(struct gpt_pf *p)
{
	/* Only the reader moves head and tail: no lock needed to read them. */
	if (p->tail - p->head >= p->depth) {
		return NULL;
	}
	struct gpt_pf_job *j = &p->jobs[p->tail % p->depth];
	j->done = false;
	j->raw_ok = j->dec_ok = false;
	return j;
}

void gpt_pf_submit(struct gpt_pf *p)
{
	pthread_mutex_lock(&p->mu);
	p->tail++;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->mu);
}

struct gpt_pf_job *gpt_pf_head(struct gpt_pf *p)
{
	struct gpt_pf_job *j = NULL;

	pthread_mutex_lock(&p->mu);
	if (p->head < p->tail) {
		j = &p->jobs[p->head % p->depth];
		while (!j->done) {
			pthread_cond_wait(&p->done, &p->mu);
		}
	}
	pthread_mutex_unlock(&p->mu);
	return j;
}

void gpt_pf_pop(struct gpt_pf *p)
{
	pthread_mutex_lock(&p->mu);
	if (p->head < p->tail) {
		p->head++;
	}
	pthread_mutex_unlock(&p->mu);
}

void gpt_pf_drop(struct gpt_pf *p)
{
	pthread_mutex_lock(&p->mu);
	p->tail = p->run; /* the jobs no worker took are forgotten */
	for (uint64_t i = p->head; i < p->run; i++) {
		while (!p->jobs[i % p->depth].done) {
			pthread_cond_wait(&p->done, &p->mu);
		}
	}
	p->head = p->tail;
	pthread_mutex_unlock(&p->mu);
}

bool gpt_pf_empty(struct gpt_pf *p)
{
	return p->head == p->tail;
}
