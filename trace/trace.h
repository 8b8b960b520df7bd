/* SPDX-License-Identifier: MIT */
/*
 * trace.h - the public header of trace/: the .gpz file format's record
 * types, schema, writer and reader. trace/FORMAT.md is the specification.
 *
 * Nothing outside trace/ parses trace bytes.
 */
#ifndef GPT_TRACE_H
#define GPT_TRACE_H

#include "base/base.h"
#include "trace/records.h"

/*
 * The newest format this code reads and writes (FORMAT.md section 10). A
 * file's header holds the version needed to read it: a writer without
 * gpt_writer_opts.compact writes GPT_FORMAT_STREAM_MAJOR.MINOR files, which
 * 1.x readers read too; only compact files say 2.0.
 */
#define GPT_FORMAT_MAJOR 2
#define GPT_FORMAT_MINOR 1
#define GPT_FORMAT_STREAM_MAJOR 1
#define GPT_FORMAT_STREAM_MINOR 2
/* 1.3: process phase 3, a flight recording's trigger; only files that hold one say 1.3. */
#define GPT_FORMAT_FLIGHT_MINOR 3

/* Hard limits the reader enforces on untrusted files (the writer stays below). */
#define GPT_MAX_CHUNK_RECORDS (1u << 17)     /* records in one chunk */
#define GPT_MAX_CHUNK_BYTES (64u << 20)      /* raw or stored bytes of one chunk */
#define GPT_MAX_STRING_BYTES (1u << 20)      /* one interned string */
#define GPT_MAX_STRINGS_BYTES (256u << 20)   /* all strings of one file, NULs included */

/*
 * What one file may make the reader inflate and hand out, relative to its
 * size (FORMAT.md 4.2): a file that would pass one of these is refused,
 * reading stops with -GP_ERR_RANGE, so that a small crafted file cannot make
 * a command allocate far more than the file is worth. Real traces stay
 * under a tenth of each ratio (docs/reliability.md has the measurements);
 * the floors let small files be as regular as they like.
 */
#define GPT_LIMIT_RAW_PER_BYTE 64u          /* chunk payload bytes inflated per file byte */
#define GPT_LIMIT_RAW_MIN (64ull << 20)     /* ... at least this many */
#define GPT_LIMIT_RECORDS_PER_BYTE 8u       /* records handed out per file byte */
#define GPT_LIMIT_RECORDS_MIN (1ull << 20)  /* ... at least this many */
#define GPT_LIMIT_STRINGS_PER_BYTE 32u      /* string bytes, NULs and 8 per id, per file byte */
#define GPT_LIMIT_STRINGS_MIN (16ull << 20) /* ... at least this many */

/* ---------------------------------------------------------------- schema */

enum gpt_type {
	GPT_TY_u8 = 1,
	GPT_TY_u16 = 2,
	GPT_TY_u32 = 3,
	GPT_TY_u64 = 4,
	GPT_TY_i32 = 5,
	GPT_TY_i64 = 6,
	GPT_TY_str = 7, /* uint32_t string id */
};

/* Column encodings, as stored in the file. */
enum gpt_enc {
	GPT_ENC_CONST = 0,  /* one value for every record */
	GPT_ENC_VARINT = 1, /* unsigned LEB128 */
	GPT_ENC_ZIGZAG = 2, /* zigzag then LEB128 */
	GPT_ENC_DELTA = 3,  /* zigzag of the difference from the previous record */
	GPT_ENC_REL = 4,    /* zigzag of the difference from another field of the record */
	GPT_ENC_KEYED = 5,  /* zigzag of the difference from the last record with the same key */
	GPT_ENC__MAX = 6,
};
/* Format 2.x: OR-ed into a column's encoding byte, a scale varint follows it. */
#define GPT_ENC_SCALED 0x40u

struct gpt_field {
	uint16_t id;
	uint8_t type;   /* enum gpt_type */
	uint8_t enc;    /* preferred enum gpt_enc */
	uint16_t ref;   /* GPT_ENC_REL: the field it is relative to; GPT_ENC_KEYED: the key */
	uint16_t offset; /* in the record struct */
	const char *name;
};

struct gpt_kind_info {
	enum gpt_kind kind;
	const char *name;          /* "kernel" */
	size_t size;               /* sizeof(struct gpt_kernel) */
	const struct gpt_field *fields;
	size_t nfields;
	uint16_t time_field;       /* field id of the start time; 0 none */
	uint16_t end_field;        /* field id of the end time; 0 none */
};

/* The schema of a record kind, or NULL for kinds that are not records. */
const struct gpt_kind_info *gpt_kind_info(unsigned kind);
/* Looks a kind up by its name ("kernel"); NULL when unknown. */
const struct gpt_kind_info *gpt_kind_by_name(const char *name);
const struct gpt_field *gpt_kind_field(const struct gpt_kind_info *ki, unsigned id);
/* Reads field f of record rec as 64 bits (signed types sign-extended). */
uint64_t gpt_field_get(const struct gpt_field *f, const void *rec);
/* Sets field f of rec; returns -GP_ERR_RANGE when v does not fit the type. */
int gpt_field_set(const struct gpt_field *f, void *rec, uint64_t v);
/*
 * Whether the field only ever holds a value inside a flight ring
 * (nvtx.message_num): a saved file, like every other, leaves it 0.
 */
static inline bool gpt_field_is_ring_only(const struct gpt_kind_info *ki,
					  const struct gpt_field *f)
{
	return ki->kind == GPT_KIND_NVTX && f->id == 16;
}
/* Whether the field is signed (i32, i64). */
static inline bool gpt_field_is_signed(const struct gpt_field *f)
{
	return f->type == GPT_TY_i32 || f->type == GPT_TY_i64;
}

/* ---------------------------------------------------------------- writer */

struct gpt_writer;
struct gpt_chunk;

/*
 * gpt_writer_opts.rows: takes one chunk's records as they were added (ch's
 * records are the writer's buffer, borrowed for the call; w's strings are
 * read with gpt_writer_string). 0, or a negative error the writer then
 * keeps (its last error says "cannot take KIND records").
 */
typedef int (*gpt_rows_fn)(void *ctx, const struct gpt_writer *w, const struct gpt_chunk *ch);

struct gpt_writer_opts {
	/* zlib level 0-9; 0 stores chunks uncompressed; -1 the default (1). */
	int level;
	/* Records per chunk of one kind, 1..GPT_MAX_CHUNK_RECORDS; 0 the default (8192). */
	uint32_t chunk_records;
	/*
	 * Write a format 2.0 file (FORMAT.md section 12): scaled columns, and a
	 * file whose chunk payloads total at most pack_bytes is written at
	 * close as one packed chunk with no footer. Until the payloads pass
	 * pack_bytes nothing but the header reaches the file (flush does not
	 * make it readable), so the injected library never sets it.
	 */
	bool compact;
	/* compact: packing threshold in raw payload bytes; 0 the default (256 KiB). */
	uint32_t pack_bytes;
	/*
	 * A chunk that cannot be written (a full disk, an I/O error) is cut
	 * back off the file (ftruncate to where it began), its records are
	 * counted as lost in the stats, and the writer goes on with the next
	 * chunk, so a passing error costs only the chunks it hit. Without it
	 * (the default) the first write error is sticky. A regular file only;
	 * the injected library sets it.
	 */
	bool keep_going;
	/*
	 * Instead of a file: every finished chunk (its 48-byte header and its
	 * payload, as the file would hold them) is handed to sink, which
	 * returns 0 or a negative error (the writer then fails). No file
	 * header, index or footer is made; the fd given is ignored (pass -1)
	 * and gpt_writer_close closes nothing. A flight ring (gpt_ring) is
	 * such a sink. Not with compact.
	 */
	int (*sink)(void *ctx, const uint8_t *chunk, size_t len);
	void *sink_ctx;
	/*
	 * Instead of encoding: every chunk's records are handed to rows as
	 * they are, in the order a file would hold the chunks, with first_ts
	 * and last_ts as the file's, index counting the chunks handed over,
	 * offset 0; strings stay in the writer. Nothing is encoded, compressed or written, the fd given is
	 * ignored (pass -1). What a reader of the file would give, without
	 * the file. Not with compact or sink.
	 */
	gpt_rows_fn rows;
	void *rows_ctx;
	/* The file holds a flight recording's trigger record: its header says 1.3. */
	bool flight;
	/*
	 * With sink: gpt_writer_intern_numbered keeps a name with a changing
	 * number as its pattern and the number (trace/names.c), so that a
	 * flight ring's strings do not grow by one per step. Only what
	 * gpt_ring_save_fd turns back into names may use it.
	 */
	bool number_names;
};

/*
 * Creates (truncates) path and writes the file header. On success *out is a
 * writer the caller must end with gpt_writer_close. opts may be NULL.
 * The writer is for one thread at a time. It never exits or prints; the
 * injected library links it, so it takes no locks and installs nothing.
 */
int gpt_writer_open(const char *path, const struct gpt_writer_opts *opts,
		    struct gpt_writer **out);
/* Same on an open file descriptor, which the writer owns (closes) from now on. */
int gpt_writer_open_fd(int fd, const char *name, const struct gpt_writer_opts *opts,
		       struct gpt_writer **out);

/*
 * Interns a string and returns its id (>= 1) in *id; the empty string and
 * NULL are id 0. A string is written before the first chunk that can refer
 * to it. Strings longer than GPT_MAX_STRING_BYTES are cut there.
 */
int gpt_writer_intern(struct gpt_writer *w, const char *s, size_t len, uint32_t *id);
/*
 * gpt_writer_intern, or with gpt_writer_opts.number_names a name such as
 * "ProfilerStep#437" interned as its pattern: *id the pattern's, *num the
 * number (nvtx.message_num); *num is 0 when the name was interned whole.
 */
int gpt_writer_intern_numbered(struct gpt_writer *w, const char *s, size_t len, uint32_t *id,
			       uint64_t *num);
static inline int gpt_writer_intern_cstr(struct gpt_writer *w, const char *s, uint32_t *id)
{
	return gpt_writer_intern(w, s, s ? strlen(s) : 0, id);
}

/*
 * Appends one record (a struct gpt_<kind>); a full chunk is encoded and
 * written. After any error the writer stays failed: every later call
 * returns that error and adds nothing.
 */
int gpt_writer_add(struct gpt_writer *w, enum gpt_kind kind, const void *rec);

/*
 * Encodes and writes every pending record as whole chunks; the file is then
 * readable to here. Records held (gpt_writer_hold) stay held.
 */
int gpt_writer_flush(struct gpt_writer *w);

/*
 * Holding: records added from now on are timed relative to an offset the
 * caller learns later (a Kineto trace's "baseTimeNanoseconds" comes after
 * its events). Records of kinds with a time field are kept unencoded, in
 * full, until gpt_writer_release adds the offset to their time and end
 * fields and writes them; the others are written as usual. The writer's
 * memory grows by the held records meanwhile: gpt_writer_held_bytes says
 * how much, and the caller bounds it. -GP_ERR_API when already holding or
 * when records of a timed kind are pending (they would get the offset too).
 */
int gpt_writer_hold(struct gpt_writer *w);
/* Bytes of held records beyond the writer's usual chunk buffers. */
size_t gpt_writer_held_bytes(const struct gpt_writer *w);
/*
 * Adds offset to the time and end fields of every record added since
 * gpt_writer_hold and writes the full chunks among them; the writer stops
 * holding. -GP_ERR_RANGE (the writer then failed) when a time would wrap
 * around 0 or 2^64. Closing a holding writer releases with offset 0.
 */
int gpt_writer_release(struct gpt_writer *w, int64_t offset);

/*
 * Flushes, writes the footer index and closes the file. Frees w whatever
 * the result; returns the first error the writer saw, if any.
 */
int gpt_writer_close(struct gpt_writer *w);
/* gpt_writer_close, and on error its last error line ("NAME: reason") in errbuf. */
int gpt_writer_close_err(struct gpt_writer *w, char *errbuf, size_t errlen);

/* Closes the file without flushing or writing a footer (as a crash would); frees w. */
void gpt_writer_abandon(struct gpt_writer *w);

const char *gpt_writer_last_error(const struct gpt_writer *w);

/* The text of interned string id, NULL when id is 0 or unknown. Borrowed until the next intern. */
const char *gpt_writer_string(const struct gpt_writer *w, uint32_t id);
/* The highest string id interned so far (ids 1..it are defined). */
uint32_t gpt_writer_string_ids(const struct gpt_writer *w);

/*
 * Appends one whole chunk made by another writer (header and payload as
 * that writer's sink received them) to the file as it is, and lists it in
 * the footer index. The chunk's string ids must be this file's: a writer
 * that copies chunks copies the string chunks too and interns nothing.
 * -GP_ERR_API when the bytes are not one chunk.
 */
int gpt_writer_append_chunk(struct gpt_writer *w, const uint8_t *chunk, size_t len);

struct gpt_writer_stats {
	uint64_t records[GPT_KIND__MAX]; /* records written per kind */
	uint64_t chunks;
	uint64_t strings;
	uint64_t raw_bytes;    /* chunk payloads before compression */
	uint64_t file_bytes;   /* bytes written to the file, headers included */
	/* keep_going: chunks that could not be written, and what they held */
	uint64_t lost_chunks;
	uint64_t lost_records; /* records (not strings) in those chunks */
	uint64_t lost_bytes;   /* their bytes as they would have been written */
	int lost_errno;        /* the errno of the last failed write, 0 none */
};
void gpt_writer_get_stats(const struct gpt_writer *w, struct gpt_writer_stats *st);

/*
 * Names interned by pattern (gpt_writer_opts.number_names, trace/names.c):
 * a pattern is the name with one number replaced by GPT_NAME_NUMBER_MARK,
 * kept apart as value << 5 | digits (leading zeros kept).
 */
/* Stands for the number in a pattern; a name holding it is never split. */
#define GPT_NAME_NUMBER_MARK '\x1a'
/* Longer names are interned whole. */
#define GPT_NAME_PATTERN_MAX 255

/*
 * The name a pattern and its number stand for, NUL-terminated in out (cut
 * to size - 1 bytes); the pattern itself when num is 0 or it has no mark.
 * Returns the length written.
 */
size_t gpt_name_expand(const char *pattern, uint64_t num, char *out, size_t size);

/* ------------------------------------------------------------ flight ring */

/*
 * A bounded in-memory ring of finished chunks (ring.c): a writer whose
 * sink is gpt_ring_sink (ctx the ring) fills it; gpt_ring_save_fd writes
 * what it holds as a complete .gpz. Pinned chunks (strings and what
 * describes the process: FORMAT.md "Flight recordings") are kept for good;
 * the others leave whole, oldest first, when the ring holds more than
 * max_bytes (pinned included) or when their last time is more than
 * window_ns older than the newest time seen. For one thread at a time.
 */
struct gpt_ring;
struct gpt_ring_stats {
	uint64_t ring_chunks, ring_bytes;     /* held now, not pinned */
	uint64_t pinned_chunks, pinned_bytes; /* held for good */
	uint64_t added_records;               /* records of every ring chunk ever added */
	uint64_t dropped_chunks, dropped_records, dropped_bytes; /* left the ring */
	uint64_t oldest_ts;                   /* first time of the oldest ring chunk held, 0 none */
	uint64_t peak_bytes;                  /* the most held at once, pinned included */
};
/* max_bytes and window_ns > 0, else -GP_ERR_API. Caller frees with gpt_ring_free. */
int gpt_ring_new(uint64_t max_bytes, uint64_t window_ns, struct gpt_ring **out);
void gpt_ring_free(struct gpt_ring *r);
/* Adds one chunk (header and payload); -GP_ERR_API when it is not one, -GP_ERR_NOMEM. */
int gpt_ring_add(struct gpt_ring *r, const uint8_t *chunk, size_t len);
/* gpt_writer_opts.sink for a ring (ctx: the ring). */
int gpt_ring_sink(void *ctx, const uint8_t *chunk, size_t len);
/* Drops what is older than the window at now_ns (the newest time seen, if later). */
void gpt_ring_trim(struct gpt_ring *r, uint64_t now_ns);
/*
 * While a save waits (the seconds after a trigger), the window must not
 * drop what came after floor_ts: chunks whose last time is at or after it
 * stay (the byte bound still applies). 0 releases the hold.
 */
void gpt_ring_hold(struct gpt_ring *r, uint64_t floor_ts);
void gpt_ring_get_stats(const struct gpt_ring *r, struct gpt_ring_stats *st);
/*
 * Writes the ring as a .gpz on fd (owned and closed): the file header, the
 * pinned chunks, the ring's chunks in order, the footer index. The ring is
 * unchanged. names is the writer that filled the ring, or NULL: with it,
 * the NVTX ranges its number_names kept as patterns are written with the
 * names they stand for (a string chunk and the chunk again), so the file
 * holds only ordinary records. 0, or an error with "NAME: reason" in errbuf.
 */
int gpt_ring_save_fd(const struct gpt_ring *r, const struct gpt_writer *names, int fd,
		     const char *name, char *errbuf, size_t errlen);

/* ---------------------------------------------------------------- reader */

struct gpt_reader;

/*
 * Decodes the chunks ahead on threads worker threads (inflating, checking
 * and decoding each one), while gpt_reader_next hands them out in file order
 * as before: the chunks, records, problems and messages are the same as
 * with one thread, only sooner. 0 or 1: no workers (the default); at most
 * GPT_MAX_THREADS. Call it after opening, before the first gpt_reader_next.
 * Memory grows by about two chunks per thread. Returns 0 or -GP_ERR_NOMEM.
 */
#define GPT_MAX_THREADS 256u
int gpt_reader_set_threads(struct gpt_reader *r, unsigned threads);

/* One decoded chunk: count records of one kind, borrowed until the next call. */
struct gpt_chunk {
	enum gpt_kind kind;
	const struct gpt_kind_info *info;
	uint32_t count;
	const void *records; /* count structs of info->size bytes */
	uint64_t first_ts, last_ts;
	uint64_t offset;     /* of the chunk header in the file */
	uint32_t index;      /* ordinal of the chunk in the file, from 0 */
};

/* A chunk the reader could not use, or the end of a cut file. */
struct gpt_problem {
	uint32_t chunk_index;
	uint64_t offset;
	int err;             /* negative enum gp_err */
	char reason[160];
};

struct gpt_reader_status {
	uint16_t major, minor;
	uint32_t flags;
	uint64_t created_realtime;
	uint64_t file_bytes;
	uint64_t chunks;         /* chunks read successfully (records and strings) */
	uint64_t records[GPT_KIND__MAX];
	uint64_t strings;
	bool has_footer;         /* the writer closed the file cleanly */
	bool truncated;          /* the file ends inside a chunk or without a footer */
	uint64_t truncated_at;   /* offset of the first missing byte when truncated */
	uint64_t problems;       /* chunks skipped as corrupt */
	uint64_t bytes_skipped;
};

/*
 * Opens a trace and checks its header. Errors: -GP_ERR_IO, -GP_ERR_FORMAT
 * (not a gpuprof trace), -GP_ERR_VERSION (a newer major format),
 * -GP_ERR_TRUNCATED (shorter than a header). On error *out is still set when
 * it could be allocated, so gpt_reader_last_error explains; free it.
 */
int gpt_reader_open(const char *path, struct gpt_reader **out);
/*
 * The same over fd, a regular file read with pread only (its offset is not
 * used), which the reader owns from now on, also on error; name is used in
 * messages.
 */
int gpt_reader_open_fd(int fd, const char *name, struct gpt_reader **out);
/*
 * Sets the limits on what the file may make the reader allocate
 * (GPT_LIMIT_*) as for a file of size bytes, when that is more than the
 * file's own size: for a file converted from a larger input (an import's
 * temporary .gpz), whose importer bounded what it made. UINT64_MAX lifts
 * them, leaving the format's hard limits. Call it before reading.
 */
void gpt_reader_limit_as(struct gpt_reader *r, uint64_t size);
/* The same over bytes in memory (borrowed until gpt_reader_free); name is used in messages. */
int gpt_reader_open_mem(const void *data, size_t len, const char *name, struct gpt_reader **out);
void gpt_reader_free(struct gpt_reader *r);

/*
 * Reads the next record chunk. Returns 1 with *out filled, 0 at the end of
 * the file, or a negative error that ends reading (I/O error, out of memory).
 * Corrupt chunks are skipped where their length can be trusted, else the
 * reader scans for the next valid chunk header; each is counted as a
 * problem. String chunks are absorbed, never returned.
 */
int gpt_reader_next(struct gpt_reader *r, struct gpt_chunk *out);

/*
 * Sums the record counts the chunk headers from the reader's position on
 * announce, per kind, reading headers only (no payload): a quick estimate
 * for sizing tables before reading. Stops at the first header that is cut
 * or fails its CRC. Does not move the reader. Returns 0, -GP_ERR_IO, or
 * -GP_ERR_RANGE when they announce more records than the file may hold
 * (GPT_LIMIT_RECORDS_*; gpt_reader_last_error says so): do not size by them.
 */
int gpt_reader_count_records(struct gpt_reader *r, uint64_t counts[GPT_KIND__MAX]);

/*
 * The string for an id; "" for 0; NULL for an id the file never defined.
 * The pointer stays valid until gpt_reader_free.
 */
const char *gpt_reader_string(const struct gpt_reader *r, uint32_t id);
/* Same, with a visible placeholder instead of NULL. */
const char *gpt_reader_string_or(const struct gpt_reader *r, uint32_t id, const char *missing);
/*
 * The highest string id the chunks read so far define or skip: every id
 * above it is undefined (gpt_reader_string gives NULL) until a later string
 * chunk defines it. Never more than 2^24.
 */
uint32_t gpt_reader_string_ids(const struct gpt_reader *r);

void gpt_reader_get_status(const struct gpt_reader *r, struct gpt_reader_status *st);
const char *gpt_reader_name(const struct gpt_reader *r);
const char *gpt_reader_last_error(const struct gpt_reader *r);
/* Problems seen so far (corrupt chunks, truncation); borrowed. */
const struct gpt_problem *gpt_reader_problems(const struct gpt_reader *r, size_t *n);

#endif /* GPT_TRACE_H */
