/* SPDX-License-Identifier: MIT */
/*
 * import.h - the public header of import/: readers of foreign traces (PyTorch
 * profiler (Kineto) JSON, Nsight Systems SQLite exports) that write the same
 * records as a recording, through a trace writer the caller opened.
 * Nothing here reads the analysis model; docs/dev/design.md says why this is
 * a module of its own.
 */
#ifndef GPA_IMPORT_H
#define GPA_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "trace/trace.h"

struct stat;

/* ----------------------------------------------------------- nsys import */

/* What one import read and wrote (docs/import-nsys.md). */
struct gpa_nsys_import_stats {
	uint64_t rows;          /* activity rows read (kernel ... NVTX tables) */
	uint64_t kernels, memcpys, memsets, api, syncs, nvtx; /* records written */
	uint64_t devices, threads;
	uint64_t skipped_api;   /* RUNTIME rows whose eventClass is not 0 or 1 (e.g. 67) */
	uint64_t skipped_nvtx;  /* NVTX rows that are not ranges or marks (names, domains) */
	uint64_t skipped_threads; /* ThreadNames rows of processes with no activity */
	uint64_t processes;     /* processes with CUDA or NVTX activity */
	uint32_t main_pid;      /* the one written as the PROCESS record */
	uint64_t overheads;     /* OVERHEAD records (CUPTI_ACTIVITY_KIND_OVERHEAD, PROFILER_OVERHEAD) */
	uint64_t skipped_rows;  /* rows of other processes (one-process import) */
	uint64_t time_shift;    /* ns added to every time: the export had times before 0 */
};

/*
 * One process of an export: its globalPid with the thread bits cleared,
 * shifted down (globalPid >> 24: pid in the low 24 bits, then VM and
 * hardware ids, docs/import-nsys.md).
 */
struct gpa_nsys_process {
	uint64_t key;
	uint32_t pid;
	uint64_t rows; /* CUDA rows (kernel, copy, set, sync, API); NVTX rows when none */
};

/* What an import reads (NULL: everything, as gpa_import_nsys). */
struct gpa_nsys_import_opts {
	bool one_process;  /* only the rows of the process whose key is `process` */
	uint64_t process;  /* a gpa_nsys_process key */
	const struct gp_progress_cb *progress; /* NULL: none; "importing", rows read */
};

/*
 * Reads an Nsight Systems SQLite export (nsys export --type sqlite) and
 * writes the equivalent records through w, which the caller opened and
 * closes. Every CUDA and NVTX row of every process is written; one PROCESS
 * record names the process with the most CUDA activity. Returns 0, or a
 * negative gp_err with "FILE: table T: row N: what" in errbuf:
 * -GP_ERR_IO (cannot open), -GP_ERR_FORMAT (not an nsys export, or a NULL or
 * wrongly typed value where one is needed), -GP_ERR_RANGE (a value that does
 * not fit our record), or the writer's error. The writer may then hold part
 * of the records.
 */
int gpa_import_nsys(const char *path, struct gpt_writer *w, char *errbuf, size_t errlen);
/* The same, also filling *stats (may be NULL). */
int gpa_import_nsys_ex(const char *path, struct gpt_writer *w, struct gpa_nsys_import_stats *stats,
		       char *errbuf, size_t errlen);
/*
 * The same with options: with one_process, only that process's rows (and,
 * for the main process, the rows that name no process) and a PROCESS record
 * for it, so the processes of one export can be loaded apart.
 */
int gpa_import_nsys_opts(const char *path, struct gpt_writer *w,
			 const struct gpa_nsys_import_opts *opts,
			 struct gpa_nsys_import_stats *stats, char *errbuf, size_t errlen);
/*
 * The processes of an export that have CUDA or NVTX rows, by key (caller
 * frees *out). Rows whose globalPid / globalTid is NULL or whose table lacks
 * it belong to the main process (the most CUDA rows); *main is its index.
 * Returns 0 (*n may be 0: no activity at all) or a negative gp_err.
 */
int gpa_nsys_processes(const char *path, struct gpa_nsys_process **out, size_t *n, size_t *main,
		       char *errbuf, size_t errlen);

/* ------------------------------------------------------- end nsys import */

/* ------------------------------------------------------------ kineto import */

/*
 * Converts a PyTorch profiler (Kineto) Chrome-trace JSON file, plain or
 * gzip-compressed (detected by its magic bytes), into records written
 * through w, which the caller opened and closes (docs/import.md has the
 * mapping). The file is parsed as a stream: memory stays bounded whatever
 * its size. Timestamps become integer nanoseconds exactly from the decimal
 * text, plus "baseTimeNanoseconds" when the trace gives it. Returns 0, or
 * -GP_ERR_IO, -GP_ERR_FORMAT (malformed JSON, wrong types, missing fields),
 * -GP_ERR_TRUNCATED, -GP_ERR_RANGE (absurd values), -GP_ERR_NOMEM or the
 * writer's error, with "FILE: line L (byte B): what is wrong" in errbuf.
 * Records written before an error stay in w.
 */
int gpa_import_kineto(const char *path, struct gpt_writer *w, char *errbuf, size_t errlen);
/* The same, calling progress (may be NULL) now and then: "importing", bytes of the file read. */
int gpa_import_kineto_opts(const char *path, struct gpt_writer *w,
			   const struct gp_progress_cb *progress, char *errbuf, size_t errlen);
/*
 * The same on threads (at most 2 are used): a side thread parses part of
 * each buffer of events while the calling thread reads and writes the
 * rest. Records, file and messages are those of one thread.
 */
int gpa_import_kineto_threads(const char *path, struct gpt_writer *w,
			      const struct gp_progress_cb *progress, unsigned threads, char *errbuf,
			      size_t errlen);
/*
 * The process record's settings string the Kineto importer writes when the
 * file's times were epoch microseconds with decimals and no
 * baseTimeNanoseconds (otherwise "pytorch-profiler"); the model marks such
 * processes (gpa_proc.ts_epoch_decimals) for breakdown's HTA compatibility.
 */
#define GPA_KINETO_SETTINGS_EPOCH_DECIMALS "pytorch-profiler; ts: epoch us with decimals"

/* ------------------------------------------------------------ end kineto import */

/* ---------------------------------------------------------------- inputs */

enum gpa_input_format {
	GPA_INPUT_UNKNOWN = 0,
	GPA_INPUT_GPZ = 1,    /* our own trace */
	GPA_INPUT_KINETO = 2, /* PyTorch profiler Chrome-trace JSON, plain or gzip */
	GPA_INPUT_NSYS = 3,   /* Nsight Systems SQLite export */
};

/*
 * Tells an input's format from its first bytes: the .gpz magic, SQLite's
 * header, gzip's magic or JSON's first character. Content nothing claims is
 * GPA_INPUT_GPZ, so the trace reader's message says what it is not.
 */
int gpa_input_detect(const char *path, enum gpa_input_format *fmt, char *errbuf, size_t errlen);
/* The format the first n bytes of an input claim; GPA_INPUT_UNKNOWN if none does. */
enum gpa_input_format gpa_input_detect_bytes(const unsigned char *b, size_t n);

/*
 * Streams: "-" (standard input), pipes, FIFOs, character devices. Each is
 * copied once per process into a private temporary file with no name
 * (gp_tmpfile) by gpa_stream_spool(); the openers below then open that copy
 * wherever they are given the stream's path, so every format is read from
 * a stream as from a file. A FIFO is opened without blocking; with no
 * writer, GPA_STREAM_WAITING is noted, then the open waits for one. Content
 * that no format claims is copied only as far as its first 16 bytes. An
 * nsys export (SQLite opens files by name) is copied into a named private
 * temporary instead, in the list a signal removes (gp_cleanup_add), removed
 * by gpa_stream_release_all().
 */
enum gpa_stream_event {
	GPA_STREAM_WAITING, /* a FIFO with no writer yet: the open now blocks */
	GPA_STREAM_SKIPPED, /* a FIFO, socket or device found in a directory input: left out */
};
typedef void (*gpa_stream_note_fn)(enum gpa_stream_event ev, const char *path);
/* Who is told of those events (the command line prints them); NULL: nobody. */
void gpa_stream_set_note(gpa_stream_note_fn fn);
void gpa_stream_note(enum gpa_stream_event ev, const char *path);
/* Is path "-" or, through links, a FIFO, socket or character device? */
bool gpa_input_is_stream(const char *path);
/*
 * Copies the stream path into its temporary (once: later calls return what
 * the first did). 0, or a negative error with one line naming path in errbuf.
 */
int gpa_stream_spool(const char *path, char *errbuf, size_t errlen);
/* Opens an input for reading (the copy of a spooled stream): a descriptor, or -1 (errno). */
int gpa_input_open_fd(const char *path);
/* A name that opens the input: path, or /proc/self/fd/N of its copy, written into buf. */
const char *gpa_input_path(const char *path, char *buf, size_t len);
/* stat(2) of an input, of its copy for a spooled stream. */
int gpa_input_stat(const char *path, struct stat *sb);
/* Closes every copy, removing the named ones (an nsys export's): at exit. */
void gpa_stream_release_all(void);
/*
 * Records per chunk of the temporary .gpz an analysis writes when it is given
 * a Kineto or nsys file (and of bench-kineto, which times that import). Small
 * chunks keep the writer's row buffers (one per record kind) in cache while
 * the parser fills them: with the default 8192 they were megabytes, and the
 * import of a Kineto trace ran 20-23 % slower (docs/dev/import-figures.md,
 * "Fifth pass"). `gpuprof convert` keeps 8192: its file is kept, and larger
 * chunks compress better.
 */
#define GPA_IMPORT_CHUNK_RECORDS 2048

/* "gpz", "kineto" or "nsys" for an enum gpa_input_format; "unknown" otherwise. */
const char *gpa_input_format_name(int format);

/* ------------------------------------------------------- opening inputs */

/*
 * Opening an input for an analysis (open.c): what the analyses read of any
 * input is a stream of record chunks. A .gpz is opened as a trace reader; a
 * Kineto JSON or nsys SQLite export is handed over by its importer chunk by
 * chunk (gpa_input_take), or, for gpuprof info and dump and for conversion
 * ahead, converted into an unlinked temporary .gpz, which is opened. import/
 * hands the chunks over and never sees what the caller builds from them
 * (analyze/'s model).
 */
struct gpa_input_opts {
	const struct gpa_nsys_import_opts *nsys; /* one process of an export; NULL: all */
	const struct gp_progress_cb *progress;   /* "importing"; NULL: none */
	unsigned threads;                        /* for a Kineto import (at most 2 used) */
};

/*
 * Opens path (a file, or a stream already spooled) as a trace reader, with
 * o (NULL: one thread, no progress). Returns 0 (caller frees *r with
 * gpt_reader_free), or a negative error with "FILE: problem" in errbuf.
 */
int gpa_input_open_opts(const char *path, const struct gpa_input_opts *o, struct gpt_reader **r,
			char *errbuf, size_t errlen);
/*
 * A Kineto or nsys input read straight into take, with no file: its
 * importer writes through a trace writer whose chunks go to take
 * unencoded (gpt_writer_opts.rows), on the calling thread, in the order
 * and with the records a reader of the temporary .gpz would give. take
 * reads the strings from the writer it is handed (gpt_writer_string).
 * Returns 1, having done nothing, for a .gpz (open it with
 * gpa_input_open_opts); 0; or a negative error with "FILE: problem" in
 * errbuf (the import's, or take's: the import then stops).
 */
int gpa_input_take(const char *path, const struct gpa_input_opts *o, gpt_rows_fn take,
		   void *ctx, char *errbuf, size_t errlen);
/*
 * The same for one input given alone (gpuprof info, dump): a stream is
 * spooled first, and an input that cannot be read is said by the trace
 * reader. *format (may be NULL) is set to its enum gpa_input_format.
 */
int gpa_input_open(const char *path, struct gpt_reader **r, int *format, char *errbuf,
		   size_t errlen);
/*
 * The processes of an nsys export that has several, each loaded apart
 * (gpa_nsys_import_opts.one_process); *n is 0 for any other input, or when
 * they cannot be listed (the import proper then says what is wrong, and
 * errbuf may hold a message meanwhile). Caller frees *procs.
 */
void gpa_input_processes(const char *path, struct gpa_nsys_process **procs, size_t *n,
			 char *errbuf, size_t errlen);

/* Is NAME (a file name) one a directory input reads: .gpz, .json, .json.gz, .sqlite? */
bool gpa_is_trace_name(const char *name);
/*
 * Expands directories (every trace inside: gpa_is_trace_name, sorted in
 * natural order) into a list of files (expand.c). Caller frees each string
 * and the array. A stream given ("-", a pipe, a FIFO, a device) is copied
 * into its temporary here (gpa_stream_spool); one inside a directory is
 * left out and noted (GPA_STREAM_SKIPPED).
 */
int gpa_expand_inputs(const char *const *args, size_t nargs, char ***out, size_t *nout,
		      char *errbuf, size_t errlen);

/* ------------------------------------------------------ conversion ahead */

/*
 * Kineto inputs of one load imported on worker threads, ahead of the input
 * the caller reads (ahead.c). The caller reads its inputs one after the
 * other in the order given; with several Kineto inputs and more than one
 * thread, their conversions run on worker threads, no more files at a time
 * than threads, from the input being read on, and the caller takes each
 * converted trace in its turn. Each conversion is the one the calling
 * thread would have made (same file, same bytes), so what the caller
 * builds is the same on any number of threads; an error is reported for
 * the first failing file in the order given, with the message the file
 * alone gives.
 */
struct gpa_import_ahead;

/*
 * gpa_import_ahead_start - starts converting the Kineto inputs among
 * paths[0..n) on up to threads workers. paths must stay valid until
 * gpa_import_ahead_free(). Returns NULL, and starts nothing, when there is
 * nothing to gain (fewer than two Kineto inputs, one thread) or no thread
 * or memory to do it: the caller then opens each input itself. errlen: the
 * size of the buffer gpa_import_ahead_take() will be given, so messages
 * are cut where the caller's own conversion would have cut them. Caller
 * frees with gpa_import_ahead_free().
 */
struct gpa_import_ahead *gpa_import_ahead_start(const char *const *paths, size_t n,
						unsigned threads, size_t errlen);
/*
 * gpa_import_ahead_take - the converted trace of paths[i], once ready.
 * Returns 1 when input i is not converted ahead (*r untouched: the caller
 * opens it itself), else what gpa_input_open() returned for it: 0 with *r
 * (caller frees with gpt_reader_free), or a negative enum gp_err with the
 * reason in errbuf. Taking input i lets the workers go on past it. a may be
 * NULL (returns 1).
 */
int gpa_import_ahead_take(struct gpa_import_ahead *a, size_t i, struct gpt_reader **r,
			  char *errbuf, size_t errlen);
/*
 * gpa_import_ahead_free - stops the workers (a conversion under way is
 * finished first), frees the traces nobody took. NULL does nothing.
 */
void gpa_import_ahead_free(struct gpa_import_ahead *a);

/* ------------------------------------------------------------ conversion */

/* Runs the importer for fmt (KINETO or NSYS), writing through w. */
int gpa_import(const char *in, enum gpa_input_format fmt, struct gpt_writer *w, char *errbuf,
	       size_t errlen);
/*
 * Writes any importable input as a .gpz at out, as base/outfile.h says ("-"
 * standard output; on error out is as it was). An input that is empty, a
 * .gpz already or of no known format is refused with a line saying which.
 */
int gpa_convert(const char *in, const char *out, char *errbuf, size_t errlen);
/* The same, with progress (may be NULL) as the importers report it. */
int gpa_convert_opts(const char *in, const char *out, const struct gp_progress_cb *progress,
		     char *errbuf, size_t errlen);

#endif
