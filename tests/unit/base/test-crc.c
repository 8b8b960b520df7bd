/* SPDX-License-Identifier: MIT */
/*
 * test-crc.c - gp_crc32 against published check values, a bit-at-a-time
 * reference written here, and zlib's crc32() (loaded at run time: the base
 * test binary links nothing but base/).
 */
#include "base/compat.h"
#include "base/base.h"
#include "tests/unit/test.h"

#include <dlfcn.h>

/* The textbook reflected CRC-32, one bit at a time. */
static uint32_t crc_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++) {
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
		}
	}
	return ~crc;
}

typedef unsigned long (*zlib_crc32_fn)(unsigned long crc, const unsigned char *buf,
				       unsigned int len);

static zlib_crc32_fn load_zlib_crc32(void)
{
	void *h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		h = dlopen("libz.so", RTLD_NOW | RTLD_LOCAL);
	}
	if (!h) {
		return NULL;
	}
	return (zlib_crc32_fn)dlsym(h, "crc32");
}

TEST(crc32_known_vectors)
{
	CHECK_EQ_U(gp_crc32(0, "123456789", 9), 0xCBF43926u);
	CHECK_EQ_U(gp_crc32(0, "", 0), 0);
	CHECK_EQ_U(gp_crc32(0, NULL, 0), 0);
	CHECK_EQ_U(gp_crc32(0, "a", 1), 0xE8B7BE43u);
	CHECK_EQ_U(gp_crc32(0, "abc", 3), 0x352441C2u);
	CHECK_EQ_U(gp_crc32(0, "The quick brown fox jumps over the lazy dog", 43), 0x414FA339u);
	static const uint8_t zeros[32] = {0};
	uint8_t ff[32];
	memset(ff, 0xff, sizeof(ff));
	/* iSCSI/RFC 3720 B.4 vectors for CRC-32 (IEEE) as computed by zlib. */
	CHECK_EQ_U(gp_crc32(0, zeros, 32), 0x190A55ADu);
	CHECK_EQ_U(gp_crc32(0, ff, 32), 0xFF6CAB0Bu);
	uint8_t inc[32];
	for (int i = 0; i < 32; i++) {
		inc[i] = (uint8_t)i;
	}
	CHECK_EQ_U(gp_crc32(0, inc, 32), 0x91267E8Au);
}

TEST(crc32_incremental)
{
	static const char s[] = "The quick brown fox jumps over the lazy dog";
	uint32_t whole = gp_crc32(0, s, 43);

	for (size_t cut = 0; cut <= 43; cut++) {
		uint32_t c = gp_crc32(0, s, cut);
		c = gp_crc32(c, s + cut, 43 - cut);
		CHECK_EQ_U(c, whole);
	}
}

TEST(crc32_random_buffers)
{
	enum { MAX = 70000 };
	uint8_t *buf = malloc(MAX + 16);
	zlib_crc32_fn zcrc = load_zlib_crc32();
	struct gp_rng rng;
	unsigned checked = 0;

	REQUIRE(buf != NULL);
	if (!zcrc) {
		fprintf(stderr,
			"  note: libz.so.1 not loadable, comparing with the bitwise CRC only\n");
	}
	gp_rng_seed(&rng, 0xc5c);
	for (size_t i = 0; i < MAX + 16; i++) {
		buf[i] = (uint8_t)gp_rng_next(&rng);
	}
	/* Every length 0..300 at every start offset 0..15: all tails and alignments. */
	for (size_t start = 0; start < 16; start++) {
		for (size_t len = 0; len <= 300; len++) {
			uint32_t got = gp_crc32(0, buf + start, len);
			uint32_t ref = crc_bitwise(0, buf + start, len);
			if (got != ref) {
				TFAIL("start %zu len %zu: %08x != bitwise %08x", start, len, got,
				      ref);
				goto out;
			}
			if (zcrc && got != (uint32_t)zcrc(0, buf + start, (unsigned)len)) {
				TFAIL("start %zu len %zu: %08x != zlib", start, len, got);
				goto out;
			}
			checked++;
		}
	}
	/* Random long lengths and starts, and chained calls with a random seed crc. */
	for (int i = 0; i < 300; i++) {
		size_t start = (size_t)gp_rng_below(&rng, 16);
		size_t len = (size_t)gp_rng_below(&rng, MAX);
		uint32_t seed = (uint32_t)gp_rng_next(&rng);
		uint32_t got = gp_crc32(seed, buf + start, len);
		uint32_t ref = crc_bitwise(seed, buf + start, len);
		if (got != ref) {
			TFAIL("seed %08x start %zu len %zu: %08x != bitwise %08x", seed, start, len,
			      got, ref);
			break;
		}
		if (zcrc && got != (uint32_t)zcrc(seed, buf + start, (unsigned)len)) {
			TFAIL("seed %08x start %zu len %zu: %08x != zlib", seed, start, len, got);
			break;
		}
		checked++;
	}
	CHECK(checked == 16 * 301 + 300);
out:
	free(buf);
}

TEST(crc32_detects_single_bit_flips)
{
	uint8_t buf[256];
	struct gp_rng rng;

	gp_rng_seed(&rng, 3);
	for (size_t i = 0; i < sizeof(buf); i++) {
		buf[i] = (uint8_t)gp_rng_next(&rng);
	}
	uint32_t base = gp_crc32(0, buf, sizeof(buf));
	for (size_t bit = 0; bit < sizeof(buf) * 8; bit++) {
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (gp_crc32(0, buf, sizeof(buf)) == base) {
			TFAIL("flip of bit %zu not detected", bit);
		}
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	CHECK_EQ_U(gp_crc32(0, buf, sizeof(buf)), base);
}
