/* SPDX-License-Identifier: MIT */
/*
 * json-scan.h - a pull tokenizer for large JSON documents (private to import/).
 *
 * The scanner reads through a caller-supplied read function into one sliding
 * buffer and hands out one token per call: no document tree, memory bounded by
 * the buffer (which grows only while a single token is longer than it, up to
 * the token limit). It is strict RFC 8259: one value at the top level, no
 * trailing commas, no comments, no leading zeros or '+', escapes checked,
 * control characters in strings refused, UTF-8 checked (overlong forms,
 * encoded surrogates and code points past U+10FFFF refused). A \uD800-\uDFFF
 * escape that is not part of a surrogate pair decodes to U+FFFD.
 *
 * gpa_json_skip() passes over a whole value (container or scalar) with the
 * same checks but without decoding strings or keeping them in the buffer, so
 * skipped strings may be of any length.
 *
 * Errors carry the byte offset and line of the offending byte.
 */
#ifndef GPUPROF_IMPORT_JSON_SCAN_H
#define GPUPROF_IMPORT_JSON_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum gpa_json_type {
	GPA_JSON_EOF = 0,	/* the top-level value ended and only whitespace followed */
	GPA_JSON_NULL,
	GPA_JSON_TRUE,
	GPA_JSON_FALSE,
	GPA_JSON_NUMBER,	/* s/n: the number's text, syntax already checked */
	GPA_JSON_STRING,	/* s/n: the decoded string (may hold NUL bytes) */
	GPA_JSON_KEY,		/* s/n: an object key, decoded */
	GPA_JSON_BEGIN_OBJECT,
	GPA_JSON_END_OBJECT,
	GPA_JSON_BEGIN_ARRAY,
	GPA_JSON_END_ARRAY,
};

/* One token; s is borrowed until the next call on the scanner. */
struct gpa_json_tok {
	enum gpa_json_type type;
	const char *s;
	size_t n;
};

/*
 * Reads up to n bytes into buf: the count, 0 at the end of the input, or a
 * negative enum gp_err (the source keeps its own error text).
 */
typedef ssize_t (*gpa_json_read_fn)(void *ctx, void *buf, size_t n);

struct gpa_json_scan;

#define GPA_JSON_MAX_DEPTH 128

/*
 * gpa_json_scan_new - a scanner over read(ctx, ...); max_token bounds the
 * longest string or number handed out (longer ones fail with -GP_ERR_RANGE).
 * Caller frees with gpa_json_scan_free().
 */
int gpa_json_scan_new(gpa_json_read_fn read, void *ctx, size_t max_token,
		      struct gpa_json_scan **out);
void gpa_json_scan_free(struct gpa_json_scan *s);

/*
 * gpa_json_next - the next token. 0, or a negative enum gp_err:
 * -GP_ERR_FORMAT for bad JSON, -GP_ERR_TRUNCATED when the input ends inside a
 * value, -GP_ERR_RANGE for a token over the limit or nesting deeper than
 * GPA_JSON_MAX_DEPTH, -GP_ERR_NOMEM, or the read function's error. After an
 * error every call returns the same error.
 */
int gpa_json_next(struct gpa_json_scan *s, struct gpa_json_tok *tok);

/*
 * gpa_json_skip - passes over the next value (call it right after a KEY token,
 * or inside an array where a value is due). Returns as gpa_json_next().
 */
int gpa_json_skip(struct gpa_json_scan *s);

/*
 * gpa_json_skip_rest - passes over the rest of the innermost open container,
 * its closing bracket included (call it where a key, a ',' or the end is
 * due). Returns as gpa_json_next().
 */
int gpa_json_skip_rest(struct gpa_json_scan *s);

/*
 * Raw access, for a caller's own fast path over input already in the buffer
 * (the Kineto importer reads whole events this way, with the readers of
 * json-raw.h). The caller reads ahead on its own and then tells the scanner
 * where it stopped; whatever it does not take (a value running past the
 * buffer, an escape, anything unusual or wrong) it leaves to
 * gpa_json_next(), which reads more input or reports the error exactly as it
 * would have anyway.
 *
 * gpa_json_raw - the unread bytes [*p, *e) and what the scanner expects
 * there. *e is a '"' sentinel with padding behind it (json-raw.h). The
 * pointers are valid until the next call that moves the scanner.
 */
enum gpa_json_raw_state {
	GPA_JSON_RAW_NONE,		/* nothing to take here (an error, ':' due, the end) */
	GPA_JSON_RAW_VALUE,		/* a value */
	GPA_JSON_RAW_VALUE_OR_END,	/* after '[': a value or ']' */
	GPA_JSON_RAW_KEY,		/* after ',' in an object: a key */
	GPA_JSON_RAW_KEY_OR_END,	/* after '{': a key or '}' */
	GPA_JSON_RAW_AFTER,		/* after a value: ',' or the end of the container */
};
enum gpa_json_raw_state gpa_json_raw(const struct gpa_json_scan *s, const unsigned char **p,
				     const unsigned char **e);

/*
 * gpa_json_raw_resume - the caller read up to p (inside what gpa_json_raw()
 * showed) and opened nopen objects there that are still open; st is what
 * is due at p. Checking the nesting limit is the caller's: it must not pass
 * GPA_JSON_MAX_DEPTH.
 */
void gpa_json_raw_resume(struct gpa_json_scan *s, const unsigned char *p, int nopen,
			 enum gpa_json_raw_state st);

/* The longest string or number the scanner hands out (gpa_json_scan_new). */
size_t gpa_json_max_token(const struct gpa_json_scan *s);

/* What went wrong (without position); "" when nothing did. */
const char *gpa_json_error(const struct gpa_json_scan *s);

/* Byte offset (from 0) and line (from 1) of the error, or of the scan position. */
uint64_t gpa_json_offset(const struct gpa_json_scan *s);
uint64_t gpa_json_line(const struct gpa_json_scan *s);

/*
 * gpa_json_scan_no_lines - stop counting lines (a few per cent of the scan
 * time); gpa_json_line() then says 0 and the caller finds the line of an
 * error offset itself (gpa_json_file_line()).
 */
void gpa_json_scan_no_lines(struct gpa_json_scan *s);

/* Containers open at the scan position. */
int gpa_json_depth(const struct gpa_json_scan *s);

/*
 * An input file, plain or gzip (told from its first two bytes; several
 * gzip members are read one after the other), for the scanner or anything
 * else that reads a file as a stream. gzip is inflated with ISA-L.
 */
struct gpa_json_file;

/*
 * gpa_json_file_open - opens path. 0 or -GP_ERR_IO / -GP_ERR_NOMEM with
 * "PATH: why" in errbuf. Caller frees with gpa_json_file_close().
 */
int gpa_json_file_open(const char *path, struct gpa_json_file **out, char *errbuf,
		       size_t errlen);

/*
 * gpa_json_file_read_ahead - inflates a gzip file on a thread of its own from
 * now on, a few megabytes ahead of the reads, which then only copy; call it
 * before the first read (later, and on a plain file, it does nothing). The
 * reads give the same bytes, the same end and the same errors at the same
 * byte as without it (the inflater's calls are the same either way). 0, or
 * -GP_ERR_NOMEM when the thread or its buffers cannot be had: the file is
 * then read as before.
 */
int gpa_json_file_read_ahead(struct gpa_json_file *f);

/* A gpa_json_read_fn: ctx is the struct gpa_json_file. */
ssize_t gpa_json_file_read(void *ctx, void *buf, size_t n);
/* Bytes read from the file so far (compressed ones for a gzip file), for progress. */
uint64_t gpa_json_file_consumed(const struct gpa_json_file *f);

/* What the last failed read says ("bad gzip data: ..."), without the path. */
const char *gpa_json_file_error(const struct gpa_json_file *f);

void gpa_json_file_close(struct gpa_json_file *f);

/*
 * gpa_json_file_line - the line (from 1) holding byte offset of the
 * (decompressed) file, by reading it again up to there; for error messages.
 * A read error or the end of the file stops the count where it happened.
 */
int gpa_json_file_line(const char *path, uint64_t offset, uint64_t *line);

#endif
