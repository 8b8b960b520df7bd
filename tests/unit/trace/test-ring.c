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

/* The ring saved (names: its writer, or NULL) into b. */
static void save_bytes(const struct gpt_ring *r, const struct gpt_writer *names, struct tt_buf *b)
{
	int fd = memfd_create("ring-save", MFD_CLOEXEC);
	int keep = dup(fd);
	char err[256] = "";

	REQUIRE(fd >= 0 && keep >= 0);
	CHECK_EQ_I(gpt_ring_save_fd(r, names, fd, "saved.gpz", err, sizeof(err)), 0);
	off_t len = lseek(keep, 0, SEEK_END);
	REQUIRE(len > 0);
	b->p = malloc((size_t)len);
	REQUIRE(b->p && pread(keep, b->p, (size_t)len, 0) == len);
	b->len = (size_t)len;
	close(keep);
}

static void save(const struct gpt_ring *r, struct tt_read *rd)
{
	struct tt_buf b = {0};

	save_bytes(r, NULL, &b);
	tt_read_all(b.p, b.len, "saved.gpz", rd);
	tt_buf_free(&b);
}

/* A ring and its writer: 1,024 records per chunk, names by pattern or not. */
static void big_ring(uint64_t bound, bool number_names, struct gpt_ring **r,
		     struct gpt_writer **w)
{
	struct gpt_writer_opts o = {.level = 1, .chunk_records = 1024, .sink = gpt_ring_sink,
				    .number_names = number_names};

	REQUIRE(gpt_ring_new(bound, UINT64_MAX / 4, r) == 0);
	o.sink_ctx = *r;
	REQUIRE(gpt_writer_open_fd(-1, "ring", &o, w) == 0);
}

/* n, or big under GPUPROF_STRESS=1 (make stress). */
static uint64_t stress_n(uint64_t n, uint64_t big)
{
	const char *stress = getenv("GPUPROF_STRESS");

	return stress && !strcmp(stress, "1") ? big : n;
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
	uint64_t n = stress_n(1000000, 10000000);
	struct gpt_ring *r;
	struct gpt_ring_stats st;
	struct gpt_writer *w = NULL;
	uint64_t worst = 0;

	big_ring(bound, false, &r, &w);
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

/* ---- names kept as patterns (trace/names.c) */

/* split then expand: the name comes back byte for byte */
static void round_trip(struct gpt_name_shapes *t, const char *s, bool want_split, const char *pat)
{
	char p[GPT_NAME_PATTERN_MAX + 1], back[GPT_NAME_PATTERN_MAX + 24];
	size_t plen = 0;
	uint64_t num = 1;
	int split = gpt_name_split(t, s, strlen(s), p, &plen, &num);

	CHECK_EQ_I(split, want_split);
	CHECK_EQ_I(num != 0, want_split);
	if (split) {
		p[plen] = '\0';
		CHECK_STR(p, pat);
		CHECK_EQ_U(gpt_name_expand(p, num, back, sizeof(back)), strlen(s));
		CHECK_STR(back, s);
	}
}

TEST(ring_name_patterns)
{
	struct gpt_name_shapes t = {0};
	char big[300];

	/* the first name of a shape is whole; the next one that differs gives the run */
	round_trip(&t, "ProfilerStep#0", false, NULL);
	round_trip(&t, "ProfilerStep#0", false, NULL);
	round_trip(&t, "ProfilerStep#1", true, "ProfilerStep#\x1a");
	round_trip(&t, "ProfilerStep#437", true, "ProfilerStep#\x1a");
	/* the run that changes, wherever it is; leading zeros kept */
	round_trip(&t, "iter 1 of 1000", false, NULL);
	round_trip(&t, "iter 2 of 1000", true, "iter \x1a of 1000");
	round_trip(&t, "iter 123 of 1000", true, "iter \x1a of 1000");
	round_trip(&t, "epoch 2 step_0045", false, NULL);
	round_trip(&t, "epoch 2 step_0046", true, "epoch 2 step_\x1a");
	round_trip(&t, "epoch 2 step_0000", true, "epoch 2 step_\x1a");
	round_trip(&t, "epoch 3 step_0000", true, "epoch 3 step_\x1a");
	/* numbers that do not change stay in the name: one string */
	round_trip(&t, "aten::conv2d", false, NULL);
	round_trip(&t, "aten::conv2d", false, NULL);
	/* 18 digits are not a number (17 at most); the mark itself, long names: whole */
	round_trip(&t, "n123456789012345678", false, NULL);
	round_trip(&t, "n123456789012345679", false, NULL);
	round_trip(&t, "x 99999999999999999", false, NULL);
	round_trip(&t, "x 99999999999999998", true, "x \x1a");
	round_trip(&t, "odd\x1a 1", false, NULL);
	round_trip(&t, "odd\x1a 2", false, NULL);
	memset(big, 'a', sizeof(big) - 3);
	memcpy(big + sizeof(big) - 3, "1", 2);
	round_trip(&t, big, false, NULL);
	big[sizeof(big) - 3] = '2';
	round_trip(&t, big, false, NULL);
	/* a pattern without its mark, or no number: the text as it is */
	char out[8];
	CHECK_EQ_U(gpt_name_expand("plain", 1 << 5 | 1, out, sizeof(out)), 5);
	CHECK_STR(out, "plain");
	CHECK_EQ_U(gpt_name_expand("long \x1a name", 7 << 5 | 1, out, sizeof(out)), 7);
	CHECK_STR(out, "long 7 ");
	gpt_name_shapes_release(&t);
	gpt_name_shapes_release(&t);
}

/* The name of range kind c (category) of step i: five kinds of per-iteration names. */
static void step_name(uint32_t c, uint64_t i, char *buf, size_t size)
{
	switch (c) {
	case 1:
		snprintf(buf, size, "ProfilerStep#%llu", (unsigned long long)i);
		break;
	case 2:
		snprintf(buf, size, "iter %llu of 1000000", (unsigned long long)i);
		break;
	case 3:
		snprintf(buf, size, "step_%06llu", (unsigned long long)(i % 1000000));
		break;
	case 4:
		snprintf(buf, size, "forward");
		break;
	default:
		snprintf(buf, size, "layer3.conv2d");
		break;
	}
}

/*
 * Many distinct step names into a ring whose writer keeps names as
 * patterns: the pinned strings stay a few hundred bytes however many steps
 * (one string per step would pass the whole bound), and the saved file
 * names every range it holds exactly. 3 x 10^5 steps of five ranges, 3 x
 * 10^6 under GPUPROF_STRESS=1.
 */
TEST(ring_step_names_bounded)
{
	const uint64_t bound = 256 << 10;
	uint64_t steps = stress_n(300000, 3000000);
	struct gpt_ring *r;
	struct gpt_ring_stats st;
	struct gpt_writer *w = NULL;
	uint64_t worst_pinned = 0, worst = 0;
	char name[64];

	big_ring(bound, true, &r, &w);
	for (uint64_t i = 0; i < steps; i++) {
		for (uint32_t c = 1; c <= 5; c++) {
			struct gpt_nvtx n = {.start = 1000000 + 10000 * i + c, .type = GPT_NVTX_PUSH_POP,
					     .category = c, .start_tid = 7, .end_tid = 7};
			n.end = n.start + 9000 - c;
			step_name(c, i, name, sizeof(name));
			REQUIRE(gpt_writer_intern_numbered(w, name, strlen(name), &n.message,
							   &n.message_num) == 0);
			REQUIRE(gpt_writer_add(w, GPT_KIND_NVTX, &n) == 0);
		}
		if ((i & 1023) == 0) {
			gpt_ring_get_stats(r, &st);
			worst_pinned = st.pinned_bytes > worst_pinned ? st.pinned_bytes : worst_pinned;
			worst = st.peak_bytes;
		}
	}
	CHECK_EQ_I(gpt_writer_flush(w), 0);
	gpt_ring_get_stats(r, &st);
	/* a handful of patterns and first names, not one string per step */
	CHECK(gpt_writer_strings_written(w) <= 12);
	CHECK(worst_pinned <= 1024);
	CHECK(st.pinned_bytes <= 1024);
	CHECK(worst <= bound && st.peak_bytes <= bound);
	CHECK(st.dropped_chunks > 0);
	CHECK_EQ_U(st.added_records, steps * 5);

	/* saved: ordinary records, every name as it was given */
	struct tt_buf b = {0};
	save_bytes(r, w, &b);
	struct gpt_reader *rd = NULL;
	struct gpt_chunk c;
	uint64_t kept = 0, bad = 0, newest = 0;
	REQUIRE(gpt_reader_open_mem(b.p, b.len, "saved.gpz", &rd) == 0);
	while (gpt_reader_next(rd, &c) == 1) {
		if (c.kind != GPT_KIND_NVTX) {
			continue;
		}
		const struct gpt_nvtx *v = c.records;
		for (uint32_t i = 0; i < c.count; i++) {
			uint64_t step = (v[i].start - 1000000) / 10000;
			const char *s = gpt_reader_string(rd, v[i].message);
			step_name(v[i].category, step, name, sizeof(name));
			bad += !s || strcmp(s, name) || v[i].message_num;
			newest = step > newest ? step : newest;
			kept++;
		}
	}
	CHECK_EQ_U(bad, 0);
	CHECK_EQ_U(kept + st.dropped_records, steps * 5);
	CHECK_EQ_U(newest, steps - 1);
	gpt_reader_free(rd);
	tt_buf_free(&b);
	CHECK_EQ_I(gpt_writer_close(w), 0);
	gpt_ring_free(r);
}

/* Without number_names (every writer but a flight ring's) names are interned whole. */
TEST(ring_names_whole_elsewhere)
{
	struct gpt_writer *w = NULL;
	struct gpt_writer_opts o = {.level = 1};
	uint32_t a, b;
	uint64_t na = 1, nb = 1;
	int fd = memfd_create("plain", MFD_CLOEXEC);

	REQUIRE(fd >= 0 && gpt_writer_open_fd(fd, "plain.gpz", &o, &w) == 0);
	CHECK_EQ_I(gpt_writer_intern_numbered(w, "ProfilerStep#1", 14, &a, &na), 0);
	CHECK_EQ_I(gpt_writer_intern_numbered(w, "ProfilerStep#2", 14, &b, &nb), 0);
	CHECK(a != b && na == 0 && nb == 0);
	CHECK_STR(gpt_writer_string(w, b), "ProfilerStep#2");
	CHECK_EQ_I(gpt_writer_close(w), 0);
}
