/* SPDX-License-Identifier: MIT */
/*
 * symbolize.c - function symbols from ELF files (.symtab and .dynsym), and
 * C++ demangling, for the frames of captured call stacks.
 *
 * The reader takes nothing on trust: the file header, the section header
 * table, each symbol table and its string table are read with pread after
 * checking that offset + size lies inside the file (checked arithmetic),
 * entry sizes are the ELF64 ones, string offsets are inside their table and
 * the table is NUL-terminated by us. Only 64-bit little-endian files are
 * read. Sections over GPA_ELF_MAX_SECTION_BYTES are refused. Symbols kept:
 * defined STT_FUNC and STT_GNU_IFUNC with a non-zero address, sorted by
 * address (sized ones first on ties), duplicates from the two tables merged.
 *
 * Demangling is libiberty's cplus_demangle (its cp-demangle.c, the same
 * code as libstdc++'s __cxa_demangle, carries a linking exception), with a
 * length cap and the name itself as the fallback.
 */
#include "base/compat.h"
#include "analyze/symbolize.h"

#include <elf.h>
#include <fcntl.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_MANGLED 4096

struct symvec {
	struct gpa_sym *v;
	size_t n, cap;
};

struct elf_file {
	int fd;
	uint64_t size;
	const char *path;
	char *err;
	size_t errlen;
};

static int bad(struct elf_file *f, const char *what)
{
	snprintf(f->err, f->errlen, "%s: %s", f->path, what);
	return -GP_ERR_FORMAT;
}

/* Reads [off, off + len) of the file into a new buffer (+1 NUL byte). */
static int read_range(struct elf_file *f, uint64_t off, uint64_t len, void **out,
		      const char *what)
{
	uint64_t end;
	char *buf;

	*out = NULL;
	if (__builtin_add_overflow(off, len, &end) || end > f->size) {
		char msg[160];
		snprintf(msg, sizeof(msg), "%s out of the file's bounds", what);
		return bad(f, msg);
	}
	if (len > GPA_ELF_MAX_SECTION_BYTES) {
		char msg[160];
		snprintf(msg, sizeof(msg), "%s too large", what);
		return bad(f, msg);
	}
	buf = malloc((size_t)len + 1);
	if (!buf) {
		return -GP_ERR_NOMEM;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t r = pread(f->fd, buf + done, (size_t)len - done, (off_t)(off + done));
		if (r <= 0) {
			free(buf);
			if (r < 0 && errno == EINTR) {
				continue;
			}
			snprintf(f->err, f->errlen, "%s: cannot read: %s", f->path,
				 r < 0 ? strerror(errno) : "unexpected end of file");
			return -GP_ERR_IO;
		}
		done += (size_t)r;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct gpa_sym *x = a, *y = b;

	if (x->addr != y->addr) {
		return x->addr < y->addr ? -1 : 1;
	}
	/* sized symbols first, then global ones, plain names, by name offset */
	if ((x->size != 0) != (y->size != 0)) {
		return x->size ? -1 : 1;
	}
	if (x->rank != y->rank) {
		return x->rank < y->rank ? -1 : 1;
	}
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Appends the function symbols of one symbol table and its string table. */
static int add_table(struct elf_file *f, struct gpa_symtab *t, const Elf64_Shdr *sh,
		     const Elf64_Shdr *strsh, struct symvec *syms, struct gp_strbuf *names)
{
	Elf64_Sym *tab = NULL;
	char *str = NULL;
	int ret;

	(void)t;
	if (sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_size % sizeof(Elf64_Sym)) {
		return bad(f, "symbol table with a bad entry size");
	}
	if (strsh->sh_type != SHT_STRTAB) {
		return bad(f, "symbol table linked to a section that is not a string table");
	}
	ret = read_range(f, sh->sh_offset, sh->sh_size, (void **)&tab, "symbol table");
	if (!ret) {
		ret = read_range(f, strsh->sh_offset, strsh->sh_size, (void **)&str,
				 "string table");
	}
	if (ret) {
		goto out;
	}
	size_t n = (size_t)(sh->sh_size / sizeof(Elf64_Sym));
	for (size_t i = 1; i < n; i++) {
		const Elf64_Sym *s = &tab[i];
		unsigned type = ELF64_ST_TYPE(s->st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF ||
		    !s->st_value || s->st_name >= strsh->sh_size) {
			continue;
		}
		const char *name = str + s->st_name; /* str is NUL-terminated at sh_size */
		if (!*name) {
			continue;
		}
		if (names->len > UINT32_MAX - 4096) {
			ret = bad(f, "too many symbol names");
			goto out;
		}
		struct gpa_sym sym = {
			.addr = s->st_value,
			.size = s->st_size,
			.name = (uint32_t)names->len,
			.rank = strchr(name, '.')		       ? 2
				: ELF64_ST_BIND(s->st_info) == STB_LOCAL ? 1
									 : 0};
		gp_strbuf_add(names, name, strlen(name) + 1);
		if (names->failed || gp_vec_push(syms, sym)) {
			ret = -GP_ERR_NOMEM;
			goto out;
		}
	}
out:
	free(tab);
	free(str);
	return ret;
}

/* The GNU build-id from a SHT_NOTE section, as hex. */
static void note_build_id(const uint8_t *p, uint64_t len, char *out, size_t size)
{
	while (len >= 12) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p, 4);
		memcpy(&descsz, p + 4, 4);
		memcpy(&type, p + 8, 4);
		uint64_t nsz = ((uint64_t)namesz + 3) & ~3ull, dsz = ((uint64_t)descsz + 3) & ~3ull;
		if (nsz > len - 12 || dsz > len - 12 - nsz) {
			return;
		}
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + 12, "GNU", 4) &&
		    descsz && descsz <= 64 && (size_t)descsz * 2 < size) {
			for (uint32_t k = 0; k < descsz; k++) {
				snprintf(out + 2 * k, 3, "%02x", p[12 + nsz + k]);
			}
			return;
		}
		p += 12 + nsz + dsz;
		len -= 12 + nsz + dsz;
	}
}

int gpa_symtab_read(const char *path, struct gpa_symtab *out, char *errbuf, size_t errlen)
{
	struct elf_file f = {.fd = -1, .path = path, .err = errbuf, .errlen = errlen};
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	struct symvec syms = {0};
	struct gp_strbuf names;
	struct stat sb;
	int ret;

	memset(out, 0, sizeof(*out));
	gp_strbuf_init(&names);
	/* non-blocking: a FIFO at a module's path must not hang the run (refused below) */
	f.fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f.fd < 0 || fstat(f.fd, &sb) || !S_ISREG(sb.st_mode)) {
		snprintf(errbuf, errlen, "%s: cannot open: %s", path,
			 f.fd < 0 || errno ? strerror(errno) : "not a regular file");
		if (f.fd >= 0 && !S_ISREG(sb.st_mode)) {
			snprintf(errbuf, errlen, "%s: cannot open: not a regular file", path);
		}
		ret = -GP_ERR_IO;
		goto out;
	}
	f.size = (uint64_t)sb.st_size;
	if (f.size < sizeof(eh) || pread(f.fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh)) {
		ret = bad(&f, "too short for an ELF header");
		goto out;
	}
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG)) {
		ret = bad(&f, "not an ELF file");
		goto out;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		ret = bad(&f, "not a 64-bit little-endian ELF file");
		goto out;
	}
	if (!eh.e_shoff || !eh.e_shnum) {
		ret = 0; /* no section headers: no symbols */
		goto out;
	}
	if (eh.e_shentsize != sizeof(Elf64_Shdr)) {
		ret = bad(&f, "bad section header size");
		goto out;
	}
	ret = read_range(&f, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), (void **)&sh,
			 "section header table");
	if (ret) {
		goto out;
	}
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		if (sh[i].sh_type == SHT_NOTE && !out->build_id[0] && sh[i].sh_size <= 65536) {
			uint8_t *note = NULL;
			ret = read_range(&f, sh[i].sh_offset, sh[i].sh_size, (void **)&note, "note");
			if (ret) {
				goto out;
			}
			note_build_id(note, sh[i].sh_size, out->build_id, sizeof(out->build_id));
			free(note);
		}
		if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) {
			continue;
		}
		if (sh[i].sh_link >= eh.e_shnum || sh[i].sh_link == i) {
			ret = bad(&f, "symbol table linked to a missing string table");
			goto out;
		}
		ret = add_table(&f, out, &sh[i], &sh[sh[i].sh_link], &syms, &names);
		if (ret) {
			goto out;
		}
	}
	if (syms.n) {
		qsort(syms.v, syms.n, sizeof(*syms.v), cmp_sym);
		/* one entry per address (the sized one, else the first) */
		size_t k = 0;
		for (size_t i = 0; i < syms.n; i++) {
			if (k && syms.v[k - 1].addr == syms.v[i].addr) {
				continue;
			}
			syms.v[k++] = syms.v[i];
		}
		syms.n = k;
	}
	if (names.failed) {
		ret = -GP_ERR_NOMEM; /* never names cut short */
		goto out;
	}
	out->v = syms.v;
	out->n = syms.n;
	syms.v = NULL;
	out->names_len = names.len;
	out->names = gp_strbuf_detach(&names, NULL);
	ret = 0;
out:
	if (f.fd >= 0) {
		close(f.fd);
	}
	free(sh);
	gp_vec_free(&syms);
	gp_strbuf_release(&names);
	return ret;
}

void gpa_symtab_release(struct gpa_symtab *t)
{
	if (!t) {
		return;
	}
	free(t->v);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

const char *gpa_symtab_lookup(const struct gpa_symtab *t, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = t->n;

	/* the last symbol starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].addr <= addr) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (!lo) {
		return NULL;
	}
	const struct gpa_sym *s = &t->v[lo - 1];
	if (s->size ? addr - s->addr >= s->size : addr - s->addr >= (1u << 20)) {
		return NULL; /* past its end (unsized: within 1 MiB of its start) */
	}
	if (s->name >= t->names_len) {
		return NULL;
	}
	*off = addr - s->addr;
	return t->names + s->name;
}

const char *gpa_demangle(const char *name, char *buf, size_t size)
{
	size_t len = strlen(name);
	char *d = NULL;

	if (len > 2 && len < MAX_MANGLED && name[0] == '_' && name[1] == 'Z') {
		d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
	}
	snprintf(buf, size, "%s", d ? d : name);
	free(d);
	return buf;
}
