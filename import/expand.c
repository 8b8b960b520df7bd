/* SPDX-License-Identifier: MIT */
/*
 * expand.c - the inputs a command was given, as a list of files:
 * directories expanded into the traces they hold (in natural order, so
 * rank2 comes before rank10), streams copied into their temporaries
 * (stream.c).
 */
#define GP_LOG_TAG "import/expand"
#include "base/compat.h"
#include "import/import.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

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
			size_t dlen = strlen(args[i]);
			/* "job/" names "job/r0.gpz", never "job//r0.gpz" */
			gp_strbuf_addf(&sb2, "%s%s%s", args[i],
				       dlen && args[i][dlen - 1] == '/' ? "" : "/", de->d_name);
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
