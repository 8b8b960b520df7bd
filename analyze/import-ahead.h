/* SPDX-License-Identifier: MIT */
/*
 * import-ahead.h - Kineto JSON inputs of one model load imported on worker
 * threads, ahead of the file the model is reading (private to analyze/).
 *
 * gpa_model_load() reads its inputs one after the other in the order given;
 * an input that is a Kineto trace is first converted into a temporary .gpz.
 * With several such inputs and more than one thread, the conversions run on
 * worker threads, no more files at a time than threads, from the file being
 * read on, and
 * the model takes each converted trace in its turn. Each conversion is the
 * one the calling thread would have made (same file, same bytes), so the
 * model is the same on any number of threads; an error is reported for the
 * first failing file in the order given, with the message the file alone
 * gives.
 */
#ifndef GPUPROF_ANALYZE_IMPORT_AHEAD_H
#define GPUPROF_ANALYZE_IMPORT_AHEAD_H

#include <stddef.h>

struct gpt_reader;
struct gpa_import_ahead;

/*
 * gpa_import_ahead_start - starts converting the Kineto inputs among
 * paths[0..n) on up to threads workers (the calling thread mostly waits for
 * them; it reads each converted trace into the model in its turn). paths
 * must stay valid until gpa_import_ahead_free().
 * Returns NULL, and starts nothing, when there is nothing to gain (fewer
 * than two Kineto inputs, one thread) or no thread or memory to do it: the
 * caller then converts each input itself. errlen: the size of the buffer
 * gpa_import_ahead_take() will be given, so messages are cut where the
 * caller's own conversion would have cut them. Caller frees with
 * gpa_import_ahead_free().
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

#endif
