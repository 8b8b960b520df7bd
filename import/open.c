/* SPDX-License-Identifier: MIT */
/*
 * open.c - any input opened as a stream of record chunks: a .gpz as a trace
 * reader; a Kineto JSON or nsys SQLite export through its importer, its
 * chunks handed straight to the caller (gpa_input_take) or converted into
 * an unlinked temporary .gpz opened as a reader. The model (analyze/) takes
 * the chunks as they come, so every analysis reads every input the same way
 * and nothing here knows the model.
 */
#define GP_LOG_TAG "import/open"
#include "base/compat.h"
#include "import/import.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

const char *gpa_input_format_name(int format)
{
	switch (format) {
	case GPA_INPUT_GPZ:
		return "gpz";
	case GPA_INPUT_KINETO:
		return "kineto";
	case GPA_INPUT_NSYS:
		return "nsys";
	default:
		return "unknown";
	}
}

/* A .gpz (a stream's copy for a stream: stream.c), named path in messages. */
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

/* Runs fmt's importer on path, writing through w; o as gpa_input_open_opts. */
static int import_into(const char *path, enum gpa_input_format fmt,
		       const struct gpa_input_opts *o, struct gpt_writer *w, char *errbuf,
		       size_t errlen)
{
	struct gpa_nsys_import_opts no = {.progress = o->progress};

	if (o->nsys) {
		no.one_process = o->nsys->one_process;
		no.process = o->nsys->process;
	}
	return fmt == GPA_INPUT_NSYS
		       ? gpa_import_nsys_opts(path, w, &no, NULL, errbuf, errlen)
		       : gpa_import_kineto_threads(path, w, o->progress, o->threads, errbuf, errlen);
}

/* A Kineto or nsys input of format fmt, converted into an unlinked temporary .gpz and opened. */
static int open_converted(const char *path, enum gpa_input_format fmt,
			  const struct gpa_input_opts *o, struct gpt_reader **r, char *errbuf,
			  size_t errlen)
{
	struct gpt_writer *w = NULL;
	/* A file with no name: nothing is left behind, whatever ends the process. */
	int fd = gp_tmpfile();
	int rfd = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3); /* the writer closes fd */
	int ret;

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
		ret = import_into(path, fmt, o, w, errbuf, errlen);
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

int gpa_input_take(const char *path, const struct gpa_input_opts *o, gpt_rows_fn take,
		   void *ctx, char *errbuf, size_t errlen)
{
	static const struct gpa_input_opts none = {.threads = 1};
	const struct gpt_writer_opts wo = {.chunk_records = GPA_IMPORT_CHUNK_RECORDS,
					   .rows = take, .rows_ctx = ctx};
	struct gpt_writer *w = NULL;
	enum gpa_input_format fmt;
	int ret = gpa_input_detect(path, &fmt, errbuf, errlen);

	if (ret || fmt == GPA_INPUT_GPZ) {
		return ret ? ret : 1;
	}
	gp_debug("%s: %s, taken straight from its importer", path,
		 fmt == GPA_INPUT_NSYS ? "an Nsight Systems export" : "a Kineto trace");
	ret = gpt_writer_open_fd(-1, path, &wo, &w);
	if (ret) {
		snprintf(errbuf, errlen, "%s: %s", path, gp_err_str(ret));
		return ret;
	}
	ret = import_into(path, fmt, o ? o : &none, w, errbuf, errlen);
	if (ret) {
		gpt_writer_abandon(w);
		return ret;
	}
	/* the records still buffered go to take now */
	return gpt_writer_close_err(w, errbuf, errlen);
}

int gpa_input_open_opts(const char *path, const struct gpa_input_opts *o, struct gpt_reader **r,
			char *errbuf, size_t errlen)
{
	static const struct gpa_input_opts none = {.threads = 1};
	enum gpa_input_format fmt;
	int ret = gpa_input_detect(path, &fmt, errbuf, errlen);

	*r = NULL;
	if (ret) {
		return ret;
	}
	if (fmt == GPA_INPUT_GPZ) {
		return open_gpz(path, r, errbuf, errlen);
	}
	return open_converted(path, fmt, o ? o : &none, r, errbuf, errlen);
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
	if (ret == -GP_ERR_IO) {
		/* Unreadable: the trace reader says why, as it did before imports were read. */
		ret = gpt_reader_open(path, r);
		snprintf(errbuf, errlen, "%s", *r ? gpt_reader_last_error(*r) : gp_err_str(ret));
		return ret ? ret : -GP_ERR_IO;
	}
	if (ret) {
		return ret;
	}
	return gpa_input_open_opts(path, NULL, r, errbuf, errlen);
}

void gpa_input_processes(const char *path, struct gpa_nsys_process **procs, size_t *n,
			 char *errbuf, size_t errlen)
{
	enum gpa_input_format fmt = GPA_INPUT_UNKNOWN;
	size_t main = 0;

	*procs = NULL;
	*n = 0;
	if (!gpa_input_detect(path, &fmt, errbuf, errlen) && fmt == GPA_INPUT_NSYS &&
	    gpa_nsys_processes(path, procs, n, &main, errbuf, errlen)) {
		*n = 0; /* the import proper says what is wrong */
	}
}
