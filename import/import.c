/* SPDX-License-Identifier: MIT */
/*
 * import.c - inputs other than .gpz: detection by content, and conversion
 * to .gpz through the importers (gpuprof convert); open.c opens such an
 * input for an analysis by way of a temporary .gpz.
 */
#define GP_LOG_TAG "import/import"
#include "base/compat.h"
#include "base/outfile.h"
#include "import/import.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/* The first bytes of a .gpz (trace/FORMAT.md). */
static const char gpz_magic[] = "\x89GPZ\r\n\x1a\n";

enum gpa_input_format gpa_input_detect_bytes(const unsigned char *b, size_t n)
{
	static const char sqlite_magic[] = "SQLite format 3";

	if (n >= 8 && !memcmp(b, gpz_magic, 8)) {
		return GPA_INPUT_GPZ;
	}
	if (n >= 16 && !memcmp(b, sqlite_magic, 16)) {
		return GPA_INPUT_NSYS;
	}
	if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
		return GPA_INPUT_KINETO; /* gzip: a compressed JSON trace */
	}
	size_t i = 0;
	while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) {
		i++;
	}
	/* A UTF-8 byte order mark may precede JSON. */
	if (i + 2 < n && b[i] == 0xef && b[i + 1] == 0xbb && b[i + 2] == 0xbf) {
		i += 3;
	}
	if (i >= n || (b[i] != '{' && b[i] != '[')) {
		return GPA_INPUT_UNKNOWN;
	}
	/*
	 * What follows must open an object's key or an array's object (or close
	 * them): random bytes that begin with a brace (1 in 100 of /dev/urandom's
	 * reads) are not JSON, and a device that never ends is not read for ever.
	 */
	unsigned char open = b[i++];
	while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) {
		i++;
	}
	if (i >= n || (open == '{' ? b[i] == '"' || b[i] == '}' : b[i] == '{' || b[i] == ']')) {
		return GPA_INPUT_KINETO;
	}
	return GPA_INPUT_UNKNOWN;
}

int gpa_input_detect(const char *path, enum gpa_input_format *fmt, char *errbuf, size_t errlen)
{
	unsigned char b[16] = {0};
	int fd = gpa_input_open_fd(path);
	ssize_t n;

	*fmt = GPA_INPUT_UNKNOWN;
	if (fd < 0) {
		snprintf(errbuf, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -GP_ERR_IO;
	}
	n = pread(fd, b, sizeof(b), 0);
	close(fd);
	if (n < 0) {
		snprintf(errbuf, errlen, "%s: cannot read: %s", path, strerror(errno));
		return -GP_ERR_IO;
	}
	*fmt = gpa_input_detect_bytes(b, (size_t)n);
	/*
	 * Content none of the readers takes is said in plain words; an empty
	 * file, or the start of a .gpz signature alone, is left to the .gpz
	 * reader, whose message says how the file is cut short.
	 */
	if (*fmt == GPA_INPUT_UNKNOWN && n > 0 &&
	    memcmp(b, gpz_magic, (size_t)n < 8 ? (size_t)n : 8)) {
		snprintf(errbuf, errlen, "%s: not a gpuprof trace (.gpz), Kineto JSON or nsys SQLite "
			 "file", path);
		return -GP_ERR_FORMAT;
	}
	if (*fmt == GPA_INPUT_UNKNOWN) {
		gp_debug("%s: content not recognized; read as a .gpz", path);
		*fmt = GPA_INPUT_GPZ;
	}
	gp_debug("%s: format %s", path, gpa_input_format_name((int)*fmt));
	return 0;
}

int gpa_import(const char *in, enum gpa_input_format fmt, struct gpt_writer *w, char *errbuf,
	       size_t errlen)
{
	int ret;

	switch (fmt) {
	case GPA_INPUT_KINETO:
		ret = gpa_import_kineto(in, w, errbuf, errlen);
		break;
	case GPA_INPUT_NSYS:
		ret = gpa_import_nsys(in, w, errbuf, errlen);
		break;
	default:
		snprintf(errbuf, errlen, "%s: not an importable trace", in);
		return -GP_ERR_API;
	}
	gp_debug("%s: %s import %s", in, gpa_input_format_name((int)fmt),
		 ret ? gp_err_str(ret) : "done");
	return ret;
}

/* Says why in, not a Kineto or nsys input, cannot be converted. */
static int not_importable(const char *in, char *errbuf, size_t errlen)
{
	unsigned char b[8];
	int fd = gpa_input_open_fd(in);
	ssize_t n = fd < 0 ? -1 : pread(fd, b, sizeof(b), 0);

	if (fd >= 0) {
		close(fd);
	}
	if (n < 0) {
		snprintf(errbuf, errlen, "%s: cannot read: %s", in, strerror(errno));
		return -GP_ERR_IO;
	}
	if (n == 0) {
		snprintf(errbuf, errlen, "%s: empty file", in);
		return -GP_ERR_FORMAT;
	}
	if (n == (ssize_t)sizeof(b) && !memcmp(b, gpz_magic, sizeof(b))) {
		snprintf(errbuf, errlen, "%s: already a gpuprof trace", in);
		return -GP_ERR_API;
	}
	snprintf(errbuf, errlen,
		 "%s: not a trace: unrecognised format (neither Kineto JSON nor an Nsight Systems "
		 "SQLite export)", in);
	return -GP_ERR_FORMAT;
}

int gpa_convert(const char *in, const char *out, char *errbuf, size_t errlen)
{
	return gpa_convert_opts(in, out, NULL, errbuf, errlen);
}

int gpa_convert_opts(const char *in, const char *out, const struct gp_progress_cb *progress,
		     char *errbuf, size_t errlen)
{
	enum gpa_input_format fmt;
	struct gpt_writer *w = NULL;
	int ret = gpa_input_is_stream(in) ? gpa_stream_spool(in, errbuf, errlen) : 0;

	if (!ret) {
		ret = gpa_input_detect(in, &fmt, errbuf, errlen);
	}
	/* Content no reader takes: convert's own words, since a .gpz is no input to it. */
	if (ret == -GP_ERR_FORMAT || (!ret && fmt == GPA_INPUT_GPZ)) {
		return not_importable(in, errbuf, errlen);
	}
	if (ret) {
		return ret;
	}
	/*
	 * Offline, so the strongest deflate level: the file is written once and
	 * kept (the recording library's default, level 1, is for the hot path).
	 * Compact (format 2.0): scaled columns (Kineto's times are microsecond
	 * multiples) and small files packed into one chunk; crash safety of
	 * streamed chunks does not matter for a file made in one go.
	 */
	struct gpt_writer_opts wo = {.level = 9, .compact = true};
	struct gp_out o;
	/* Written as base/outfile.h says: a failed conversion leaves out as it was. */
	ret = gp_out_open(&o, out, 0, errbuf, errlen);
	if (ret) {
		return ret;
	}
	int fd = fcntl(o.fd, F_DUPFD_CLOEXEC, 3); /* the writer closes its copy */
	ret = fd < 0 ? -GP_ERR_IO : gpt_writer_open_fd(fd, out, &wo, &w);
	if (ret) {
		if (w) {
			snprintf(errbuf, errlen, "%s", gpt_writer_last_error(w));
		} else {
			snprintf(errbuf, errlen, "%s: cannot write: %s", out,
				 fd < 0 ? strerror(errno) : gp_err_str(ret));
		}
		gpt_writer_abandon(w); /* the writer closed fd if it failed before taking it */
		gp_out_abandon(&o);
		return ret;
	}
	if (fmt == GPA_INPUT_NSYS) {
		struct gpa_nsys_import_opts no = {.progress = progress};
		ret = gpa_import_nsys_opts(in, w, &no, NULL, errbuf, errlen);
	} else if (fmt == GPA_INPUT_KINETO) {
		ret = gpa_import_kineto_opts(in, w, progress, errbuf, errlen);
	} else {
		ret = gpa_import(in, fmt, w, errbuf, errlen);
	}
	if (ret) {
		gpt_writer_abandon(w);
		gp_out_abandon(&o);
		return ret;
	}
	ret = gpt_writer_close_err(w, errbuf, errlen);
	if (ret) {
		gp_out_abandon(&o);
		return ret;
	}
	return gp_out_close(&o, errbuf, errlen);
}
