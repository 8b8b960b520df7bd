/* SPDX-License-Identifier: MIT */
/*
 * model.c - the model's storage: each table's functions (grow, free,
 * permute, shrink), the string table, the encoded columns (starts as
 * offsets from a block's base, durations too long for 32 bits), what the
 * analyses ask of the devices; and opening inputs.
 *
 * The load is in parts, one job each, sharing model-internal.h:
 * model-take.c takes each record kind into its table, model-sort.c sorts
 * the tables and builds the device timelines, model-link.c links GPU ops,
 * syncs, NVTX ranges, stacks, NCCL operations and graphs to their calls,
 * and model-load.c reads the files and runs those steps in order.
 *
 * Memory is the tables plus, while building, one index array per table
 * and a correlation hash; nothing is kept per record beyond the columns.
 */
#define GP_LOG_TAG "analyze/model"
#include "base/compat.h"
#include "analyze/model-internal.h"
#include "analyze/file-info.h"
#include "import/import.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ tables */

DEFINE_TABLE_FNS_(gpa_kernels, GPA_KERNEL_COLS, GPA_KERNEL_OPT_COLS_)
DEFINE_TABLE_FNS_(gpa_memcpys, GPA_MEMCPY_COLS, GPA_GRAPH_COLS_)
DEFINE_TABLE_FNS_(gpa_memsets, GPA_MEMSET_COLS, GPA_GRAPH_COLS_)
DEFINE_TABLE_FNS_(gpa_apis, GPA_API_COLS, GPA_API_OPT_COLS_)
DEFINE_TABLE_FNS_(gpa_syncs, GPA_SYNC_COLS, GPA_NO_COLS_)
DEFINE_TABLE_FNS_(gpa_nvtxs, GPA_NVTX_COLS, GPA_NVTX_OPT_COLS_)
DEFINE_TABLE_FNS_(gpa_overheads, GPA_OVERHEAD_COLS, GPA_NO_COLS_)
DEFINE_TABLE_FNS_(gpa_gpus, GPA_GPU_COLS, GPA_NO_COLS_)
DEFINE_TABLE_FNS_(gpa_mems, GPA_MEM_COLS, GPA_MEM_OPT_COLS_)

/* ------------------------------------------------------------ strings */

const char *gpa_model_str(const struct gpa_model *m, uint32_t id)
{
	if (id == 0 || id > m->strs.off.n) {
		return "";
	}
	return m->strs.text.buf + m->strs.off.v[id - 1];
}

static uint64_t str_hash(const char *s, size_t len)
{
	return gp_hash_bytes(s, len);
}

static int strtab_grow(struct gpa_strtab *st)
{
	size_t nn = st->nslots ? st->nslots * 2 : 4096;
	uint32_t *ns = calloc(nn, sizeof(*ns));

	if (!ns) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < st->nslots; i++) {
		uint32_t id = st->slots[i];
		if (id) {
			const char *s = st->text.buf + st->off.v[id - 1];
			size_t j = str_hash(s, strlen(s)) & (nn - 1);
			while (ns[j]) {
				j = (j + 1) & (nn - 1);
			}
			ns[j] = id;
		}
	}
	free(st->slots);
	st->slots = ns;
	st->nslots = nn;
	return 0;
}

uint32_t gpa_model_intern(struct gpa_model *m, const char *s)
{
	struct gpa_strtab *st = &m->strs;
	size_t len = strlen(s), j;

	if (!len) {
		return 0;
	}
	if ((st->off.n + 1) * 2 > st->nslots && strtab_grow(st)) {
		return GPA_NONE;
	}
	for (j = str_hash(s, len) & (st->nslots - 1); st->slots[j]; j = (j + 1) & (st->nslots - 1)) {
		const char *t = st->text.buf + st->off.v[st->slots[j] - 1];
		if (!strcmp(t, s)) {
			return st->slots[j];
		}
	}
	if (st->text.len + len + 1 > UINT32_MAX) {
		return GPA_NONE;
	}
	uint32_t off = (uint32_t)st->text.len;
	gp_strbuf_add(&st->text, s, len + 1); /* keeps the NUL */
	if (st->text.failed || gp_vec_push(&st->off, off)) {
		return GPA_NONE;
	}
	st->text.len = off + len + 1;
	st->slots[j] = (uint32_t)st->off.n;
	return st->slots[j];
}

int gpa_starts_encode(struct gpa_starts *s, uint32_t *col, const uint64_t *v, size_t n)
{
	s->base.n = 0;
	s->far.n = 0;
	for (size_t r = 0; r < n; r++) {
		if (gpa_starts_set(s, col, r, v[r])) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

uint64_t *gpa_starts_decode(const struct gpa_starts *s, const uint32_t *col, size_t n)
{
	uint64_t *v = gp_malloc_big((n ? n : 1) * sizeof(*v));

	for (size_t r = 0; v && r < n; r++) {
		v[r] = gpa_start_of(col, s, r);
	}
	return v;
}

uint64_t gpa_long_dur(const struct gpa_long_durs *l, size_t row)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->v[mid].row < row) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < l->n && l->v[lo].row == row ? l->v[lo].dur : 0;
}

uint32_t gpa_model_work_devices(const struct gpa_model *m, uint32_t *first)
{
	uint32_t n = 0;

	if (first) {
		*first = GPA_NONE;
	}
	for (size_t d = 0; d < m->devs.n; d++) {
		if (!m->devs.v[d].gpu_count) {
			continue;
		}
		if (first && *first == GPA_NONE) {
			*first = (uint32_t)d;
		}
		n++;
	}
	return n;
}

uint32_t gpa_gpu_stream(const struct gpa_model *m, size_t i)
{
	uint32_t r = gpa_gpu_row(m, i);

	switch (gpa_gpu_kind(m, i)) {
	case GPA_GPU_KERNEL:
		return gpa_kern_stream(m, r);
	case GPA_GPU_MEMCPY:
		return m->copy.stream[r];
	case GPA_GPU_MEMSET:
		return m->set.stream[r];
	default:
		GP_BUG("GPU operation %zu has kind %u", i, gpa_gpu_kind(m, i));
	}
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

/* A .gpz (a stream's copy for a stream: import/stream.c), named path in messages. */
static int open_gpz(const char *path, struct gpt_reader **r, char *errbuf, size_t errlen)
{
	int fd = gpa_input_open_fd(path);
	int ret;

	if (fd < 0) {
		ret = gpt_reader_open(path, r); /* says why, as it always did */
	} else {
		ret = gpt_reader_open_fd(fd, path, r);
	}
	if (ret) {
		snprintf(errbuf, errlen, "%s", *r ? gpt_reader_last_error(*r) : gp_err_str(ret));
	}
	return ret;
}

/*
 * The reader's limits on an import's temporary .gpz are those of the input
 * it came from, whose importer bounded what it wrote (a regular file: its
 * size; a stream, whose size is not known: none but the format's).
 */
static void import_limits(struct gpt_reader *r, const char *path)
{
	struct stat sb;

	gpt_reader_limit_as(r, stat(path, &sb) || !S_ISREG(sb.st_mode) ? UINT64_MAX
									: (uint64_t)sb.st_size);
}

/*
 * Opens a trace for reading: a .gpz directly; a Kineto JSON or nsys export
 * through its importer into an unlinked temporary .gpz (every analysis then
 * reads every input the same way).
 */
int gpa_model_open_input(const char *path, const struct gpa_nsys_import_opts *nsys,
		      const struct gp_progress_cb *progress, unsigned threads,
		      struct gpt_reader **r, char *errbuf, size_t errlen)
{
	enum gpa_input_format fmt;
	int ret = gpa_input_detect(path, &fmt, errbuf, errlen);

	*r = NULL;
	if (ret) {
		return ret;
	}
	if (fmt == GPA_INPUT_GPZ) {
		return open_gpz(path, r, errbuf, errlen);
	}
	struct gpt_writer *w = NULL;
	/* A file with no name: nothing is left behind, whatever ends the process. */
	int fd = gp_tmpfile();
	int rfd = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3); /* the writer closes fd */
	if (rfd < 0) {
		snprintf(errbuf, errlen, "%s: cannot create a temporary file in %s: %s", path,
			 gp_tmpdir(), strerror(errno));
		if (fd >= 0) {
			close(fd);
		}
		return -GP_ERR_IO;
	}
	gp_debug("%s: %s, converted through a temporary file in %s", path,
		 fmt == GPA_INPUT_NSYS ? "an Nsight Systems export" : "a Kineto trace",
		 gp_tmpdir());
	const struct gpt_writer_opts wo = {.chunk_records = GPA_IMPORT_CHUNK_RECORDS};
	ret = gpt_writer_open_fd(fd, path, &wo, &w);
	if (!ret) {
		struct gpa_nsys_import_opts no = {.progress = progress};
		if (nsys) {
			no.one_process = nsys->one_process;
			no.process = nsys->process;
		}
		ret = fmt == GPA_INPUT_NSYS
			      ? gpa_import_nsys_opts(path, w, &no, NULL, errbuf, errlen)
			      : gpa_import_kineto_threads(path, w, progress, threads, errbuf,
							  errlen);
		if (ret) {
			gpt_writer_abandon(w);
		} else {
			ret = gpt_writer_close(w);
			if (ret) {
				snprintf(errbuf, errlen, "%s: cannot write the converted trace: %s",
					 path, gp_err_str(ret));
			}
		}
	} else {
		snprintf(errbuf, errlen, "%s: %s", path, gp_err_str(ret));
	}
	if (!ret) {
		ret = gpt_reader_open_fd(rfd, path, r);
		if (ret) {
			snprintf(errbuf, errlen, "%s", *r ? gpt_reader_last_error(*r) : gp_err_str(ret));
		} else {
			import_limits(*r, path);
		}
	} else {
		close(rfd);
	}
	return ret;
}

int gpa_input_open(const char *path, struct gpt_reader **r, int *format, char *errbuf,
		   size_t errlen)
{
	enum gpa_input_format fmt = GPA_INPUT_UNKNOWN;
	int ret = gpa_input_is_stream(path) ? gpa_stream_spool(path, errbuf, errlen) : 0;

	*r = NULL;
	if (ret) {
		return ret;
	}
	ret = gpa_input_detect(path, &fmt, errbuf, errlen);
	if (format) {
		*format = ret ? GPA_INPUT_GPZ : (int)fmt;
	}
	if (ret) {
		/* Unreadable: the trace reader says why, as it did before imports were read. */
		ret = gpt_reader_open(path, r);
		snprintf(errbuf, errlen, "%s", *r ? gpt_reader_last_error(*r) : gp_err_str(ret));
		return ret ? ret : -GP_ERR_IO;
	}
	return gpa_model_open_input(path, NULL, NULL, 1, r, errbuf, errlen);
}

/* ------------------------------------------------------------ inputs */

/*
 * File names in natural order: runs of digits compare as numbers, so
 * rank2.gpz comes before rank10.gpz and the ranks load in numeric order.
 */
static int cmp_str(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;

	while (*x && *y) {
		if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
			const char *ex, *ey;
			while (*x == '0' && isdigit((unsigned char)x[1])) {
				x++;
			}
			while (*y == '0' && isdigit((unsigned char)y[1])) {
				y++;
			}
			for (ex = x; isdigit((unsigned char)*ex); ex++) {
			}
			for (ey = y; isdigit((unsigned char)*ey); ey++) {
			}
			if (ex - x != ey - y) {
				return ex - x < ey - y ? -1 : 1;
			}
			int c = strncmp(x, y, (size_t)(ex - x));
			if (c) {
				return c;
			}
			x = ex;
			y = ey;
			continue;
		}
		if (*x != *y) {
			return (unsigned char)*x < (unsigned char)*y ? -1 : 1;
		}
		x++;
		y++;
	}
	if (*x || *y) {
		return *x ? 1 : -1;
	}
	/* Equal but for leading zeros: any fixed order will do. */
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool gpa_is_trace_name(const char *name)
{
	return has_suffix(name, ".gpz") || has_suffix(name, ".json") ||
	       has_suffix(name, ".json.gz") || has_suffix(name, ".sqlite");
}

/* A FIFO, socket or device in a directory (through links): never one of its traces. */
static bool is_special(const struct dirent *de, const char *path)
{
	struct stat sb;

	if (de->d_type == DT_REG || de->d_type == DT_DIR) {
		return false;
	}
	return !stat(path, &sb) && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode);
}

int gpa_expand_inputs(const char *const *args, size_t nargs, char ***out, size_t *nout,
		      char *errbuf, size_t errlen)
{
	GP_VEC(char *) v = {0};
	int ret = 0;

	for (size_t i = 0; i < nargs && !ret; i++) {
		struct stat sb;
		if (stat(args[i], &sb) || !S_ISDIR(sb.st_mode)) {
			/* A stream is read once, into a temporary every reader then opens. */
			if (gpa_input_is_stream(args[i])) {
				ret = gpa_stream_spool(args[i], errbuf, errlen);
				if (ret) {
					break;
				}
			}
			char *s = strdup(args[i]);
			if (!s || gp_vec_push(&v, s)) {
				free(s);
				ret = -GP_ERR_NOMEM;
			}
			continue;
		}
		DIR *d = opendir(args[i]);
		if (!d) {
			snprintf(errbuf, errlen, "%s: cannot open directory: %s", args[i],
				 strerror(errno));
			ret = -GP_ERR_IO;
			break;
		}
		size_t first = v.n;
		struct dirent *de;
		while ((de = readdir(d))) {
			size_t len = strlen(de->d_name);
			if (len < 5 || !gpa_is_trace_name(de->d_name)) {
				continue;
			}
			struct gp_strbuf sb2 = GP_STRBUF_INIT;
			gp_strbuf_addf(&sb2, "%s/%s", args[i], de->d_name);
			char *s = sb2.failed ? NULL : gp_strbuf_detach(&sb2, NULL);
			gp_strbuf_release(&sb2);
			/* A FIFO would block the run, and is read by whoever opens it first. */
			if (s && is_special(de, s)) {
				gpa_stream_note(GPA_STREAM_SKIPPED, s);
				free(s);
				continue;
			}
			if (!s || gp_vec_push(&v, s)) {
				free(s);
				ret = -GP_ERR_NOMEM;
				break;
			}
		}
		closedir(d);
		if (!ret && v.n == first) {
			snprintf(errbuf, errlen, "%s: no traces in the directory (.gpz, .json, .json.gz, "
						 ".sqlite)", args[i]);
			ret = -GP_ERR_NOTFOUND;
		}
		if (!ret) {
			gp_qsort(v.v + first, v.n - first, sizeof(char *), cmp_str);
		}
	}
	if (ret) {
		if (ret == -GP_ERR_NOMEM) {
			snprintf(errbuf, errlen, "out of memory");
		}
		for (size_t i = 0; i < v.n; i++) {
			free(v.v[i]);
		}
		gp_vec_free(&v);
		return ret;
	}
	*out = v.v;
	*nout = v.n;
	return 0;
}

