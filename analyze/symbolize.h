/* SPDX-License-Identifier: MIT */
/*
 * symbolize.h - private to analyze/: function symbols of ELF files, for
 * naming the pcs of captured call stacks (stacks.c). The files are
 * untrusted: every offset and size is checked against the file.
 */
#ifndef GPA_SYMBOLIZE_H
#define GPA_SYMBOLIZE_H

#include "base/base.h"

struct gpa_sym {
	uint64_t addr, size; /* ELF virtual address; size 0 unknown */
	uint32_t name;	     /* offset into gpa_symtab.names */
	uint8_t rank;	     /* on equal addresses the lowest wins: 0 global, 1 local, 2 "x.suffix" */
};

/* The function symbols of one file (.symtab and .dynsym), sorted by address. */
struct gpa_symtab {
	struct gpa_sym *v;
	size_t n;
	char *names; /* NUL-terminated strings */
	size_t names_len;
	char build_id[129]; /* lower-case hex; "" none */
};

/* Limits on what one file may make us read. */
#define GPA_ELF_MAX_SECTIONS 65535u
#define GPA_ELF_MAX_SECTION_BYTES (1ull << 30)

/*
 * Reads the function symbols of a 64-bit little-endian ELF file into *out
 * (caller releases with gpa_symtab_release, also after an error). Returns 0,
 * -GP_ERR_IO (cannot open or read), -GP_ERR_FORMAT (not such an ELF file, or
 * a header, section or table out of bounds; the reason in errbuf), or
 * -GP_ERR_NOMEM. A file without symbols is not an error (n == 0).
 */
int gpa_symtab_read(const char *path, struct gpa_symtab *out, char *errbuf, size_t errlen);
void gpa_symtab_release(struct gpa_symtab *t);

/*
 * The function containing ELF address addr: its name (borrowed from t) and
 * addr's offset into it; NULL when no symbol covers addr.
 */
const char *gpa_symtab_lookup(const struct gpa_symtab *t, uint64_t addr, uint64_t *off);

/*
 * A C++ (Itanium ABI) name demangled into buf (libiberty's cplus_demangle,
 * with parameters); the name itself when it is not mangled, too long or
 * malformed. Returns buf.
 */
const char *gpa_demangle(const char *name, char *buf, size_t size);

#endif /* GPA_SYMBOLIZE_H */
