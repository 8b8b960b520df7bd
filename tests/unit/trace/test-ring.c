/* SPDX-License-Identifier: MIT */
/*
 * test-ring.c - the flight ring (trace/ring.c): a writer whose sink is a
 * ring writes nothing; the saved file reads back whole, with the pinned
 * strings and metadata and only the newest data chunks; the byte and time
 * bounds hold over many chunks and drops are counted exactly.
 */
#include "base/compat.h"
#include "tests/unit/test.h"
#include "tests/unit/trace/trace-test.h"

#include <sys/mman.h>
#include <unistd.h>

static struct gpt_kernel kern(uint64_t i)
{
	return (struct gpt_kernel){.start = 1000000 + 1000 * i, .end = 1000500 + 1000 * i,
				   .device = 0, .stream = 7, .correlation = (uint32_t)i + 1};
}

/* A writer into ring r, 4 records per chunk. */
static struct gpt_writer *ring_writer(struct gpt_ring *r)
{
	struct gpt_writer_opts o = {.level = 1, .chunk_records = 4, .sink = gpt_ring_sink,
				    .sink_ctx = r};
	struct gpt_writer *w = NULL;

	gpt_writer_open_fd(-1, "ring", &o, &w);
	return w;
}

static void save(const struct gpt_ring *r, struct tt_read *rd)
{
	int fd = memfd_create("ring-save", MFD_CLOEXEC);
	int keep = dup(fd);
	char err[256] = "";
	struct tt_buf b = {0};

	REQUIRE(fd >= 0 && keep >= 0);
	CHECK_EQ_I(gpt_ring_save_fd(r, fd, "saved.gpz", err, sizeof(err)), 0);
	off_t len = lseek(keep, 0, SEEK_END);
	REQUIRE(len > 0);
	b.p = malloc((size_t)len);
	REQUIRE(b.p && pread(keep, b.p, (size_t)len, 0) == len);
	b.len = (size_t)len;
	close(keep);
	tt_read_all(b.p, b.len, "saved.gpz", rd);
	tt_buf_free(&b);
}

TEST(ring_keeps_newest_and_pinned)
{
	struct gpt_ring *r;
	struct gpt_ring_stats st;
	struct tt_read rd;
	uint32_t name;

	REQUIRE(gpt_ring_new(1 << 20, 1000000000ull, &r) == 0);
	struct gpt_writer *w = ring_writer(r);
	REQUIRE(w != NULL);
	struct gpt_device dev = {.id = 0, .num_sms = 132};
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "gemm_kernel", &name), 0);
	CHECK_STR(gpt_writer_string(w, name), "gemm_kernel");
	CHECK(gpt_writer_string(w, 0) == NULL);
	CHECK(gpt_writer_string(w, 99) == NULL);
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_DEVICE, &dev), 0);
	/* 2,000 kernels, 1 us apart: 2 ms of data, all inside a 1 s window */
	for (uint64_t i = 0; i < 2000; i++) {
		struct gpt_kernel k = kern(i);
		k.name = name;
		CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_KERNEL, &k), 0);
	}
	CHECK_EQ_I(gpt_writer_flush(w), 0);
	gpt_ring_get_stats(r, &st);
	CHECK_EQ_U(st.ring_chunks, 500);
	CHECK_EQ_U(st.dropped_chunks, 0);
	CHECK_EQ_U(st.pinned_chunks, 2); /* the string chunk and the device */
	CHECK_EQ_U(st.oldest_ts, 1000000);

	/* 2.5 s later: the window keeps only what is newer than 1 s before */
	gpt_ring_trim(r, 1000000 + 1000 * 1999 + 2500000000ull);
	gpt_ring_get_stats(r, &st);
	CHECK_EQ_U(st.ring_chunks, 0);
	CHECK_EQ_U(st.dropped_chunks, 500);
	CHECK_EQ_U(st.dropped_records, 2000);
	for (uint64_t i = 0; i < 8; i++) {
		struct gpt_kernel k = kern(3000000 + i);
		k.name = name;
		CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_KERNEL, &k), 0);
	}
	CHECK_EQ_I(gpt_writer_flush(w), 0);
	save(r, &rd);
	CHECK_EQ_I(rd.next_ret, 0);
	CHECK(rd.st.has_footer);
	CHECK_EQ_U(rd.st.major, 1);
	CHECK_EQ_U(rd.st.minor, GPT_FORMAT_FLIGHT_MINOR);
	CHECK(rd.strings_ok);
	CHECK_EQ_U(rd.recs[GPT_KIND_DEVICE].n, 1);
	REQUIRE(rd.recs[GPT_KIND_KERNEL].n == 8);
	const struct gpt_kernel *k = (const void *)rd.recs[GPT_KIND_KERNEL].v;
	CHECK_EQ_U(k[0].start, kern(3000000).start);
	CHECK_EQ_U(k[7].correlation, 3000008);
	tt_read_release(&rd);
	/* the sink wrote no file: closing has nothing to write */
	CHECK_EQ_I(gpt_writer_close(w), 0);
	gpt_ring_free(r);
}

/*
 * The byte bound over many chunks: the ring never holds more than its
 * bound, and every record added is either held or counted as dropped.
 * GPUPROF_STRESS=1 adds 10^7 records; the default 10^6.
 */
TEST(ring_byte_bound)
{
	const uint64_t bound = 256 << 10;
	const char *stress = getenv("GPUPROF_STRESS");
	uint64_t n = stress && !strcmp(stress, "1") ? 10000000 : 1000000;
	struct gpt_ring *r;
	struct gpt_ring_stats st;
	struct gpt_writer_opts o = {.level = 1, .chunk_records = 1024, .sink = gpt_ring_sink};
	struct gpt_writer *w = NULL;
	uint64_t worst = 0;

	REQUIRE(gpt_ring_new(bound, UINT64_MAX / 4, &r) == 0);
	o.sink_ctx = r;
	REQUIRE(gpt_writer_open_fd(-1, "ring", &o, &w) == 0);
	for (uint64_t i = 0; i < n; i++) {
		struct gpt_kernel k = kern(i);
		uint64_t h = gp_hash_u64(i); /* not all alike: about 6 bytes a record on disk */
		k.start += h & 511;
		k.end = k.start + ((h >> 9) & 1023);
		k.grid_x = (uint32_t)(h >> 20) & 0xffff;
		k.block_x = (uint32_t)(h >> 36) & 0x3ff;
		REQUIRE(gpt_writer_add(w, GPT_KIND_KERNEL, &k) == 0);
		if ((i & 4095) == 0) {
			gpt_ring_get_stats(r, &st);
			if (st.ring_bytes + st.pinned_bytes > worst) {
				worst = st.ring_bytes + st.pinned_bytes;
			}
		}
	}
	CHECK_EQ_I(gpt_writer_flush(w), 0);
	gpt_ring_get_stats(r, &st);
	CHECK(worst <= bound);
	CHECK(st.ring_bytes + st.pinned_bytes <= bound);
	CHECK(st.ring_bytes > bound / 2); /* it is used, not emptied */
	CHECK(st.dropped_chunks > 0);
	CHECK_EQ_U(st.added_records, n);
	struct tt_read rd;
	save(r, &rd);
	CHECK_EQ_I(rd.next_ret, 0);
	CHECK_EQ_U(rd.recs[GPT_KIND_KERNEL].n + st.dropped_records, n);
	/* the newest records are the ones kept, in order */
	const struct gpt_kernel *k = (const void *)rd.recs[GPT_KIND_KERNEL].v;
	size_t kn = rd.recs[GPT_KIND_KERNEL].n;
	REQUIRE(kn > 0);
	CHECK_EQ_U(k[kn - 1].correlation, n);
	CHECK_EQ_U(k[0].correlation, st.dropped_records + 1);
	tt_read_release(&rd);
	CHECK_EQ_I(gpt_writer_close(w), 0);
	gpt_ring_free(r);
}

TEST(ring_misuse)
{
	struct gpt_ring *r = NULL;
	uint8_t junk[64] = {0};
	struct gpt_writer *w = NULL;
	struct gpt_writer_opts o = {.compact = true, .sink = gpt_ring_sink};

	CHECK_EQ_I(gpt_ring_new(0, 1, &r), -GP_ERR_API);
	CHECK_EQ_I(gpt_ring_new(1, 0, &r), -GP_ERR_API);
	REQUIRE(gpt_ring_new(1 << 20, 1000, &r) == 0);
	CHECK_EQ_I(gpt_ring_add(r, junk, sizeof(junk)), -GP_ERR_API);
	CHECK_EQ_I(gpt_ring_add(r, junk, 3), -GP_ERR_API);
	o.sink_ctx = r;
	CHECK_EQ_I(gpt_writer_open_fd(-1, "ring", &o, &w), -GP_ERR_API); /* not with compact */
	gpt_ring_free(r);
	gpt_ring_free(NULL);
}
