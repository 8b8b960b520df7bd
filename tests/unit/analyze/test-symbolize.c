/* SPDX-License-Identifier: MIT */
/*
 * Tests of the ELF symbol reader and the demangler (analyze/symbolize.c):
 * this test binary's own symbols, and damaged copies of it (cut at many
 * lengths, header and section-table fields pointed out of the file,
 * thousands of seeded random byte changes), which must each give an error
 * or a table, never a crash, a hang or a read out of bounds (make check
 * runs this under AddressSanitizer).
 */
#include "base/compat.h"
#include "analyze/symbolize.h"
#include "tests/unit/test.h"

#include <elf.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline, used)) int symtest_target(int x)
{
	return x * 3 + 1;
}

static char *read_self(size_t *len)
{
	FILE *f = fopen("/proc/self/exe", "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f) {
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0) {
			break;
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

static void write_file(const char *path, const void *p, size_t len)
{
	FILE *f = fopen(path, "wb");
	REQUIRE(f != NULL);
	CHECK_EQ_U(fwrite(p, 1, len, f), len);
	fclose(f);
}

/* Reads path; returns the error (0 ok) and checks the table's invariants. */
static int read_check(const char *path)
{
	struct gpa_symtab t;
	char err[512] = "";
	int ret = gpa_symtab_read(path, &t, err, sizeof(err));

	if (ret) {
		CHECK(err[0] != '\0');
		CHECK(strstr(err, path) != NULL);
	}
	for (size_t i = 0; i < t.n; i++) {
		CHECK(t.v[i].name < t.names_len);
		if (i) {
			CHECK(t.v[i - 1].addr < t.v[i].addr);
		}
	}
	gpa_symtab_release(&t);
	return ret;
}

TEST(symbolize_own_binary)
{
	char exe[1024];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct gpa_symtab t;
	char err[512];
	uint64_t off = 99;

	REQUIRE(n > 0);
	exe[n] = '\0';
	REQUIRE(gpa_symtab_read(exe, &t, err, sizeof(err)) == 0);
	CHECK(t.n > 10);
	const struct gpa_sym *hit = NULL;
	for (size_t i = 0; i < t.n; i++) {
		if (!strcmp(t.names + t.v[i].name, "symtest_target")) {
			hit = &t.v[i];
		}
	}
	REQUIRE(hit != NULL);
	CHECK(hit->size > 0);
	const char *name = gpa_symtab_lookup(&t, hit->addr + 1, &off);
	CHECK_STR(name, "symtest_target");
	CHECK_EQ_U(off, 1);
	CHECK(gpa_symtab_lookup(&t, 0, &off) == NULL);
	CHECK(t.build_id[0] != '\0');
	gpa_symtab_release(&t);
}

TEST(symbolize_not_elf)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/notelf", test_tmpdir());
	write_file(path, "hello, this is not an ELF file at all, but long enough ....", 60);
	CHECK_EQ_I(read_check(path), -GP_ERR_FORMAT);
	write_file(path, "\x7f" "ELF", 4);
	CHECK_EQ_I(read_check(path), -GP_ERR_FORMAT);
	CHECK_EQ_I(read_check("/nonexistent/file.so"), -GP_ERR_IO);
	CHECK_EQ_I(read_check(test_tmpdir()), -GP_ERR_IO);
	/* a 32-bit header */
	uint8_t h[sizeof(Elf64_Ehdr)] = {0x7f, 'E', 'L', 'F', ELFCLASS32, ELFDATA2LSB, 1};
	write_file(path, h, sizeof(h));
	CHECK_EQ_I(read_check(path), -GP_ERR_FORMAT);
}

TEST(symbolize_cut_files)
{
	size_t len = 0;
	char *self = read_self(&len);
	char path[512];

	REQUIRE(self != NULL && len > 4096);
	snprintf(path, sizeof(path), "%s/cut", test_tmpdir());
	/* every length up to 256 bytes, then a spread to the end */
	for (size_t cut = 0; cut < len; cut += cut < 256 ? 1 : len / 61 + 1) {
		write_file(path, self, cut);
		int ret = read_check(path);
		CHECK(ret == 0 || ret == -GP_ERR_FORMAT);
	}
	free(self);
}

TEST(symbolize_fields_out_of_bounds)
{
	size_t len = 0;
	char *self = read_self(&len);
	char *copy;
	char path[512];

	REQUIRE(self != NULL && len > sizeof(Elf64_Ehdr));
	copy = malloc(len);
	REQUIRE(copy != NULL);
	snprintf(path, sizeof(path), "%s/bounds", test_tmpdir());
	Elf64_Ehdr eh;
	memcpy(&eh, self, sizeof(eh));
	REQUIRE(eh.e_shoff && eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) <= len);

	static const uint64_t wild[] = {0, 1, 0x7fffffffffffffffull, 0xffffffffffffffffull,
					0xfffffffffffffff0ull, 4096, 1ull << 40};
	/* e_shoff, e_shnum, e_shentsize */
	for (size_t k = 0; k < GP_ARRAY_SIZE(wild); k++) {
		Elf64_Ehdr e = eh;
		memcpy(copy, self, len);
		e.e_shoff = wild[k];
		memcpy(copy, &e, sizeof(e));
		write_file(path, copy, len);
		int ret = read_check(path);
		CHECK(ret == 0 || ret == -GP_ERR_FORMAT);
	}
	{
		Elf64_Ehdr e = eh;
		memcpy(copy, self, len);
		e.e_shnum = 0xffff;
		memcpy(copy, &e, sizeof(e));
		write_file(path, copy, len);
		CHECK_EQ_I(read_check(path), -GP_ERR_FORMAT);
		e = eh;
		e.e_shentsize = 12;
		memcpy(copy, &e, sizeof(e));
		write_file(path, copy, len);
		CHECK_EQ_I(read_check(path), -GP_ERR_FORMAT);
	}
	/* the offset, size, link and entry size of every section the reader reads */
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr orig;
		memcpy(&orig, self + eh.e_shoff + (uint64_t)i * sizeof(orig), sizeof(orig));
		if (orig.sh_type != SHT_SYMTAB && orig.sh_type != SHT_DYNSYM &&
		    orig.sh_type != SHT_STRTAB && orig.sh_type != SHT_NOTE) {
			continue;
		}
		for (unsigned field = 0; field < 4; field++) {
			for (size_t k = 0; k < GP_ARRAY_SIZE(wild); k++) {
				Elf64_Shdr sh;
				uint64_t at = eh.e_shoff + (uint64_t)i * sizeof(sh);
				memcpy(copy, self, len);
				memcpy(&sh, copy + at, sizeof(sh));
				if (field == 0) {
					sh.sh_offset = wild[k];
				} else if (field == 1) {
					sh.sh_size = wild[k];
				} else if (field == 2) {
					sh.sh_link = (uint32_t)wild[k];
				} else {
					sh.sh_entsize = wild[k];
				}
				memcpy(copy + at, &sh, sizeof(sh));
				write_file(path, copy, len);
				int ret = read_check(path);
				CHECK(ret == 0 || ret == -GP_ERR_FORMAT);
			}
		}
	}
	free(copy);
	free(self);
}

TEST(symbolize_random_damage)
{
	size_t len = 0;
	char *self = read_self(&len);
	char *copy;
	char path[512];
	uint64_t s = 0x9e3779b97f4a7c15ull;

	REQUIRE(self != NULL);
	copy = malloc(len);
	REQUIRE(copy != NULL);
	snprintf(path, sizeof(path), "%s/damaged", test_tmpdir());
	Elf64_Ehdr eh;
	memcpy(&eh, self, sizeof(eh));
	uint64_t shend = eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr);
	unsigned ok = 0, bad = 0;
	for (int round = 0; round < 120; round++) {
		memcpy(copy, self, len);
		for (int k = 0; k < 8; k++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			uint64_t r = s >> 11;
			/* aim at the headers, where the reader's trust is */
			size_t at = (r & 1) ? (size_t)(r >> 1) % sizeof(Elf64_Ehdr)
					    : (size_t)(eh.e_shoff + (r >> 1) % (shend - eh.e_shoff));
			if (at < len) {
				copy[at] = (char)(s >> 56);
			}
		}
		write_file(path, copy, len);
		int ret = read_check(path);
		CHECK(ret == 0 || ret == -GP_ERR_FORMAT || ret == -GP_ERR_NOMEM);
		ret ? bad++ : ok++;
	}
	CHECK(ok + bad == 120);
	free(copy);
	free(self);
}

TEST(symbolize_demangle)
{
	char buf[256];

	CHECK_STR(gpa_demangle("_ZN2ns6Worker4copyEi", buf, sizeof(buf)), "ns::Worker::copy(int)");
	CHECK_STR(gpa_demangle("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_"
			       "addIfEESt5arrayIPcLm3EEEEviT0_T1_",
			       buf, sizeof(buf)),
		  "void at::native::vectorized_elementwise_kernel<4, "
		  "at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, "
		  "at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)");
	CHECK_STR(gpa_demangle("main", buf, sizeof(buf)), "main");
	CHECK_STR(gpa_demangle("_Z", buf, sizeof(buf)), "_Z");
	CHECK_STR(gpa_demangle("_Zjunk!!", buf, sizeof(buf)), "_Zjunk!!");
	/* deep nesting: refused or demangled, never a crash */
	char deep[6000];
	size_t n = 0;
	memcpy(deep, "_Z1f", 4);
	n = 4;
	while (n + 2 < sizeof(deep) - 2) {
		deep[n++] = 'P';
	}
	deep[n++] = 'i';
	deep[n] = '\0';
	CHECK(gpa_demangle(deep, buf, sizeof(buf)) == buf);
	CHECK(strlen(buf) < sizeof(buf));
	/* a small output buffer cuts, still terminated */
	char small[8];
	gpa_demangle("_ZN2ns6Worker4copyEi", small, sizeof(small));
	CHECK_STR(small, "ns::Wor");
}
