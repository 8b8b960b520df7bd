/* SPDX-License-Identifier: MIT */
/*
 * nsys.c - converts an Nsight Systems SQLite export (nsys export
 * --type sqlite) into gpuprof records through a trace writer.
 *
 * Every table is read with one prepared statement, streamed row by row; the
 * only state kept is a map from nsys StringIds ids to our string ids (4 bytes
 * per id), the NVTX domain names and the per-process activity counts. Columns
 * are looked up by name, so a column a schema version lacks reads as NULL.
 * A NULL in a column we need, or a value of the wrong type or out of range,
 * fails the import with the table, row id and column; rows that have no
 * gpuprof record are skipped and counted (struct gpa_nsys_import_stats).
 * docs/import-nsys.md has the mapping.
 */
#define GP_LOG_TAG "import/nsys"
#include "base/compat.h"
#include "import/import.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <stdio.h>

#define MAX_COLS 48
#define SMAP_MAX_ID (1u << 26) /* nsys string ids cached up to here; larger ones looked up */
#define SMAP_MIN_ID (1u << 16) /* ... and at least up to here, whatever the file's size */

struct imp {
	sqlite3 *db;
	struct gpt_writer *w;
	const struct gp_progress_cb *progress; /* NULL: none */
	const char *path;
	char *errbuf;
	size_t errlen;
	struct gpa_nsys_import_stats *st;
	sqlite3_stmt *str_stmt;        /* SELECT value FROM StringIds WHERE id = ? */
	uint32_t *smap;                /* nsys string id -> our id + 1; 0 unknown */
	size_t smap_n;
	uint64_t smap_max;             /* ids cached below this: a quarter of the file's size */
	int schema_rc;                 /* the SQLite error of a failed has_table, else 0 */
	GP_VEC(struct pidcount { uint64_t key; uint64_t n; }) pids; /* key: globalPid >> 24 */
	GP_VEC(struct domain { int64_t id; uint32_t name; }) domains;
	uint32_t main_pid;
	uint64_t main_key;
	bool one_process;  /* only the rows of process `key` */
	bool is_main;      /* that process also gets the rows that name none */
	uint64_t key;
	int64_t shift;     /* added to every time: 0, or minus the earliest negative time */
};

/* One table being read: its statement and the columns asked for. */
struct tab {
	struct imp *im;
	const char *name;
	const char *const *cols;
	int ncols;
	sqlite3_stmt *stmt;
	int64_t rowid;
};

GP_PRINTF(3, 4)
static int fail(struct imp *im, int err, const char *fmt, ...)
{
	if (im->errbuf && im->errlen) {
		va_list ap;
		int n = snprintf(im->errbuf, im->errlen, "%s: ", im->path);

		if (n >= 0 && (size_t)n < im->errlen) {
			va_start(ap, fmt);
			vsnprintf(im->errbuf + n, im->errlen - n, fmt, ap);
			va_end(ap);
		}
	}
	return -err;
}

static int db_fail(struct imp *im, const char *what)
{
	int code = sqlite3_errcode(im->db);
	int err = GP_ERR_FORMAT;

	if (code == SQLITE_NOMEM) {
		err = GP_ERR_NOMEM;
	} else if (code == SQLITE_IOERR || code == SQLITE_CANTOPEN) {
		err = GP_ERR_IO;
	}
	return fail(im, err, "%s: %s", what, sqlite3_errmsg(im->db));
}

/*
 * Whether the export has the table; false also when the lookup itself fails
 * (out of memory), which is kept in im->schema_rc for schema_failed to say.
 */
static bool has_table(struct imp *im, const char *name)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(im->db,
				    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
				    -1, &s, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
		rc = sqlite3_step(s);
		sqlite3_finalize(s);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE && !im->schema_rc) {
		im->schema_rc = rc == SQLITE_OK ? SQLITE_ERROR : rc;
	}
	return rc == SQLITE_ROW;
}

/* A has_table lookup that failed: the error, so that no table is taken for absent. */
static int schema_failed(struct imp *im)
{
	if (im->schema_rc == SQLITE_NOMEM) {
		return fail(im, GP_ERR_NOMEM, "out of memory");
	}
	return fail(im, GP_ERR_FORMAT, "reading the schema: %s", sqlite3_errstr(im->schema_rc));
}

static int has_column(struct imp *im, const char *table, const char *col, bool *out)
{
	sqlite3_stmt *s;
	int rc;

	*out = false;
	if (sqlite3_prepare_v2(im->db, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?", -1, &s,
			       NULL) != SQLITE_OK) {
		return db_fail(im, "reading the schema");
	}
	sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, col, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	*out = rc == SQLITE_ROW;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		return db_fail(im, "reading the schema");
	}
	return 0;
}

/*
 * Prepares "SELECT rowid, c1, c2 ... FROM table [where]": a column the table
 * lacks reads as NULL, unless its name starts with '*' (required): then the
 * table is rejected.
 */
static int tab_open(struct imp *im, struct tab *t, const char *table, const char *const *cols,
		    int ncols, const char *where)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;
	int ret = 0;

	*t = (struct tab){.im = im, .name = table, .cols = cols, .ncols = ncols};
	gp_strbuf_adds(&sb, "SELECT rowid");
	for (int i = 0; i < ncols; i++) {
		const char *c = cols[i][0] == '*' ? cols[i] + 1 : cols[i];
		bool present;

		ret = has_column(im, table, c, &present);
		if (ret) {
			goto out;
		}
		if (!present && cols[i][0] == '*') {
			ret = fail(im, GP_ERR_FORMAT, "table %s: no column %s", table, c);
			goto out;
		}
		gp_strbuf_addf(&sb, present ? ", \"%s\"" : ", NULL", c);
	}
	gp_strbuf_addf(&sb, " FROM \"%s\"%s%s", table, where ? " WHERE " : "", where ? where : "");
	if (sb.failed) {
		ret = fail(im, GP_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (sqlite3_prepare_v2(im->db, sb.buf, -1, &t->stmt, NULL) != SQLITE_OK) {
		ret = db_fail(im, table);
	}
out:
	gp_strbuf_release(&sb);
	return ret;
}

/* 1 with a row, 0 at the end, or a negative error. */
static int tab_step(struct tab *t)
{
	int rc = sqlite3_step(t->stmt);

	if (rc == SQLITE_DONE) {
		return 0;
	}
	if (rc != SQLITE_ROW) {
		char what[128];

		snprintf(what, sizeof(what), "table %s", t->name);
		return db_fail(t->im, what);
	}
	t->rowid = sqlite3_column_int64(t->stmt, 0);
	return 1;
}

static void tab_close(struct tab *t)
{
	sqlite3_finalize(t->stmt);
	t->stmt = NULL;
}

static const char *col_name(const struct tab *t, int i)
{
	return t->cols[i][0] == '*' ? t->cols[i] + 1 : t->cols[i];
}

static bool is_null(const struct tab *t, int i)
{
	return sqlite3_column_type(t->stmt, i + 1) == SQLITE_NULL;
}

/*
 * Reads integer column i into *out, checking min <= value <= max. NULL gives
 * dflt when the column may be NULL ('*' not set), else fails.
 */
static int get_int(struct tab *t, int i, int64_t min, int64_t max, int64_t dflt, int64_t *out)
{
	int type = sqlite3_column_type(t->stmt, i + 1);
	int64_t v;

	if (type == SQLITE_NULL) {
		if (t->cols[i][0] == '*') {
			return fail(t->im, GP_ERR_FORMAT, "table %s: row %" PRId64 ": %s is NULL",
				    t->name, t->rowid, col_name(t, i));
		}
		*out = dflt;
		return 0;
	}
	if (type != SQLITE_INTEGER) {
		return fail(t->im, GP_ERR_FORMAT, "table %s: row %" PRId64 ": %s is %s, not an integer",
			    t->name, t->rowid, col_name(t, i),
			    type == SQLITE_TEXT ? "text" : type == SQLITE_FLOAT ? "real" : "a blob");
	}
	v = sqlite3_column_int64(t->stmt, i + 1);
	if (v < min || v > max) {
		return fail(t->im, GP_ERR_RANGE,
			    "table %s: row %" PRId64 ": %s = %" PRId64 " is out of range", t->name,
			    t->rowid, col_name(t, i), v);
	}
	*out = v;
	return 0;
}

#define GET_U(t, i, max, dst)                                                                      \
	do {                                                                                       \
		int64_t v_;                                                                        \
		int r_ = get_int((t), (i), 0, (int64_t)(max), 0, &v_);                             \
		if (r_) {                                                                          \
			return r_;                                                                 \
		}                                                                                  \
		(dst) = v_;                                                                        \
	} while (0)

#define GET_I32(t, i, dst)                                                                         \
	do {                                                                                       \
		int64_t v_;                                                                        \
		int r_ = get_int((t), (i), INT32_MIN, INT32_MAX, 0, &v_);                          \
		if (r_) {                                                                          \
			return r_;                                                                 \
		}                                                                                  \
		(dst) = (int32_t)v_;                                                               \
	} while (0)

/* Any 64-bit pattern (globalTid, eventSyncId): stored signed by SQLite. */
#define GET_BITS(t, i, dst)                                                                        \
	do {                                                                                       \
		int64_t v_;                                                                        \
		int r_ = get_int((t), (i), INT64_MIN, INT64_MAX, 0, &v_);                          \
		if (r_) {                                                                          \
			return r_;                                                                 \
		}                                                                                  \
		(dst) = (uint64_t)v_;                                                              \
	} while (0)

/* A 32-bit value nsys may store signed or unsigned (NVTX color, returnValue). */
#define GET_U32_ANY(t, i, dst)                                                                     \
	do {                                                                                       \
		int64_t v_;                                                                        \
		int r_ = get_int((t), (i), INT32_MIN, UINT32_MAX, 0, &v_);                         \
		if (r_) {                                                                          \
			return r_;                                                                 \
		}                                                                                  \
		(dst) = (uint32_t)v_;                                                              \
	} while (0)

static inline uint32_t tid_of(uint64_t gtid)
{
	return (uint32_t)(gtid % 0x1000000u);
}

static inline uint32_t pid_of(uint64_t gtid)
{
	return (uint32_t)(gtid / 0x1000000u % 0x1000000u);
}

/* The process key of a globalPid or globalTid: the pid, VM and hardware ids. */
static inline uint64_t key_of(uint64_t gid)
{
	return gid >> 24;
}

static int intern(struct imp *im, const char *s, size_t len, uint32_t *id)
{
	int ret = gpt_writer_intern(im->w, s, len, id);

	if (ret) {
		return fail(im, -ret, "writing: %s", gpt_writer_last_error(im->w));
	}
	return 0;
}

static int add(struct imp *im, enum gpt_kind kind, const void *rec)
{
	int ret = gpt_writer_add(im->w, kind, rec);

	if (ret) {
		return fail(im, -ret, "writing: %s", gpt_writer_last_error(im->w));
	}
	return 0;
}

/* Our string id for nsys string id sid, found in StringIds. */
static int string_id(struct tab *t, int i, int64_t sid, uint32_t *out)
{
	struct imp *im = t->im;
	const unsigned char *s;
	int rc, ret;

	if (sid >= 0 && (uint64_t)sid < im->smap_n && im->smap[sid]) {
		*out = im->smap[sid] - 1;
		return 0;
	}
	sqlite3_reset(im->str_stmt);
	sqlite3_bind_int64(im->str_stmt, 1, sid);
	rc = sqlite3_step(im->str_stmt);
	if (rc == SQLITE_DONE) {
		return fail(im, GP_ERR_FORMAT,
			    "table %s: row %" PRId64 ": %s = %" PRId64 " is not in StringIds", t->name,
			    t->rowid, col_name(t, i), sid);
	}
	if (rc != SQLITE_ROW) {
		return db_fail(im, "table StringIds");
	}
	s = sqlite3_column_text(im->str_stmt, 0);
	ret = intern(im, (const char *)s, s ? (size_t)sqlite3_column_bytes(im->str_stmt, 0) : 0, out);
	if (ret) {
		return ret;
	}
	if (sid >= 0 && (uint64_t)sid < im->smap_max) {
		if ((uint64_t)sid >= im->smap_n) {
			size_t n = im->smap_n ? im->smap_n : 1024;
			uint32_t *m;

			while (n <= (uint64_t)sid) {
				n *= 2;
			}
			m = realloc(im->smap, n * sizeof(*m));
			if (!m) {
				return fail(im, GP_ERR_NOMEM, "out of memory");
			}
			memset(m + im->smap_n, 0, (n - im->smap_n) * sizeof(*m));
			im->smap = m;
			im->smap_n = n;
		}
		im->smap[sid] = *out + 1;
	}
	return 0;
}

/* A StringIds reference in column i; NULL (allowed) gives 0. */
static int get_str(struct tab *t, int i, uint32_t *out)
{
	int64_t sid;
	int ret = get_int(t, i, INT64_MIN, INT64_MAX, -1, &sid);

	*out = 0;
	if (ret || is_null(t, i)) {
		return ret;
	}
	return string_id(t, i, sid, out);
}

/* A TEXT column (text may also be stored as a number); NULL gives 0. */
static int get_text(struct tab *t, int i, uint32_t *out)
{
	int type = sqlite3_column_type(t->stmt, i + 1);
	const unsigned char *s;

	*out = 0;
	if (type == SQLITE_NULL) {
		return 0;
	}
	if (type == SQLITE_BLOB) {
		return fail(t->im, GP_ERR_FORMAT, "table %s: row %" PRId64 ": %s is a blob, not text",
			    t->name, t->rowid, col_name(t, i));
	}
	s = sqlite3_column_text(t->stmt, i + 1);
	return intern(t->im, (const char *)s, s ? (size_t)sqlite3_column_bytes(t->stmt, i + 1) : 0,
		      out);
}

/* ------------------------------------------------------------ processes */

static int count_pid(struct imp *im, uint64_t key, uint64_t n)
{
	for (size_t i = 0; i < im->pids.n; i++) {
		if (im->pids.v[i].key == key) {
			im->pids.v[i].n += n;
			return 0;
		}
	}
	if (gp_vec_push(&im->pids, ((struct pidcount){key, n}))) {
		return fail(im, GP_ERR_NOMEM, "out of memory");
	}
	return 0;
}

/* Adds the rows of table per process (col: globalPid or globalTid) to im->pids. */
static int scan_pids(struct imp *im, const char *table, const char *col, uint64_t weight)
{
	char sql[256];
	sqlite3_stmt *s;
	bool present;
	int rc, ret;

	if (!has_table(im, table)) {
		return 0;
	}
	ret = has_column(im, table, col, &present);
	if (ret || !present) {
		return ret;
	}
	/* SQLite's >> is arithmetic, as key_of on the value read back as int64 and cast. */
	snprintf(sql, sizeof(sql),
		 "SELECT \"%s\" >> 24, count(*) FROM \"%s\" "
		 "WHERE typeof(\"%s\") = 'integer' GROUP BY 1",
		 col, table, col);
	if (sqlite3_prepare_v2(im->db, sql, -1, &s, NULL) != SQLITE_OK) {
		return db_fail(im, table);
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		ret = count_pid(im, (uint64_t)sqlite3_column_int64(s, 0) & (UINT64_MAX >> 24),
				(uint64_t)sqlite3_column_int64(s, 1) * weight);
		if (ret) {
			break;
		}
	}
	sqlite3_finalize(s);
	if (!ret && rc != SQLITE_DONE) {
		ret = db_fail(im, table);
	}
	return ret;
}

static bool key_seen(const struct imp *im, uint64_t key)
{
	if (im->one_process) {
		return key == im->key;
	}
	for (size_t i = 0; i < im->pids.n; i++) {
		if (im->pids.v[i].key == key) {
			return true;
		}
	}
	return false;
}

/*
 * Counts the rows of every process (im->pids) and picks the main one: CUDA
 * activity decides; NVTX (weight 1 of 1e9) only breaks a tie of nothing;
 * ties go to the lower pid.
 */
static int scan_processes(struct imp *im)
{
	static const char *const cuda_pid[] = {
		"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
		"CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
	};
	uint64_t best = 0;
	int ret = 0;

	for (size_t i = 0; i < GP_ARRAY_SIZE(cuda_pid) && !ret; i++) {
		ret = scan_pids(im, cuda_pid[i], "globalPid", 1000000000);
	}
	if (!ret) {
		ret = scan_pids(im, "CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid", 1000000000);
	}
	if (!ret) {
		ret = scan_pids(im, "CUPTI_ACTIVITY_KIND_DRIVER", "globalTid", 1000000000);
	}
	if (!ret) {
		ret = scan_pids(im, "NVTX_EVENTS", "globalTid", 1);
	}
	if (ret) {
		return ret;
	}
	for (size_t i = 0; i < im->pids.n; i++) {
		uint32_t pid = (uint32_t)(im->pids.v[i].key & 0xffffff);
		if (im->pids.v[i].n > best ||
		    (im->pids.v[i].n == best && pid < im->main_pid)) {
			best = im->pids.v[i].n;
			im->main_pid = pid;
			im->main_key = im->pids.v[i].key;
		}
	}
	return 0;
}

/*
 * The WHERE clause that keeps one process's rows of a table whose process
 * column is col (globalPid or globalTid), into buf; NULL: every row.
 */
static const char *process_where(struct imp *im, const char *table, const char *col, char *buf,
				 size_t len)
{
	bool present = false;

	if (!im->one_process || !col) {
		return NULL;
	}
	if (has_column(im, table, col, &present) || !present) {
		return im->is_main ? NULL : "0";
	}
	snprintf(buf, len, "((\"%s\" >> 24) & %" PRIu64 ") = %" PRIu64 "%s%s%s", col,
		 UINT64_MAX >> 24, im->key,
		 im->is_main ? " OR \"" : "", im->is_main ? col : "",
		 im->is_main ? "\" IS NULL" : "");
	return buf;
}

/* A one-value query; returns the text or NULL (the caller frees). */
static char *query_text(struct imp *im, const char *sql, const char *arg)
{
	sqlite3_stmt *s;
	char *out = NULL;

	if (sqlite3_prepare_v2(im->db, sql, -1, &s, NULL) != SQLITE_OK) {
		return NULL;
	}
	if (arg) {
		sqlite3_bind_text(s, 1, arg, -1, SQLITE_STATIC);
	}
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
		const char *t = (const char *)sqlite3_column_text(s, 0);

		out = t ? strdup(t) : NULL;
	}
	sqlite3_finalize(s);
	return out;
}

static int write_process(struct imp *im)
{
	struct gpt_process p = {.rank = -1, .local_rank = -1, .world_size = -1,
				.local_world_size = -1, .exit_status = -1, .phase = 1};
	struct gp_strbuf sb = GP_STRBUF_INIT;
	char *s, pidbuf[32];
	int ret = scan_processes(im);

	if (ret) {
		return ret;
	}
	im->st->processes = im->pids.n;
	if (im->one_process) {
		im->is_main = im->key == im->main_key;
		im->main_pid = (uint32_t)(im->key & 0xffffff);
	}
	p.pid = im->main_pid;
	snprintf(pidbuf, sizeof(pidbuf), "%" PRIu32, im->main_pid);
	if (has_table(im, "PROCESSES")) {
		s = query_text(im, "SELECT name FROM PROCESSES WHERE pid = CAST(?1 AS INTEGER) "
				   "ORDER BY rowid LIMIT 1", pidbuf);
		ret = s ? intern(im, s, strlen(s), &p.exe) : 0;
		free(s);
	}
	if (!ret && has_table(im, "TARGET_INFO_SYSTEM_ENV")) {
		s = query_text(im, "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = ?1 LIMIT 1",
			       "Hostname");
		ret = s ? intern(im, s, strlen(s), &p.host) : 0;
		free(s);
	}
	if (!ret && has_table(im, "TARGET_INFO_SESSION_START_TIME")) {
		s = query_text(im, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME "
				   "WHERE typeof(utcEpochNs) = 'integer' LIMIT 1", NULL);
		p.start_realtime = s ? strtoull(s, NULL, 10) : 0;
		free(s);
	}
	if (ret) {
		return ret;
	}
	/* Settings say where the trace came from: "import=nsys schema=3.25.0 nsys=2026.2.1". */
	gp_strbuf_adds(&sb, "import=nsys");
	for (int i = 0; i < 2; i++) {
		const char *meta = i ? "EXPORT_META_DATA" : "META_DATA_EXPORT";
		char sql[160];

		if (!has_table(im, meta)) {
			continue;
		}
		snprintf(sql, sizeof(sql), "SELECT value FROM %s WHERE name = ?1", meta);
		s = query_text(im, sql, "EXPORT_SCHEMA_VERSION");
		if (s) {
			gp_strbuf_addf(&sb, " schema=%s", s);
		}
		free(s);
		s = query_text(im, sql, "EXPORT_PRODUCT_VERSION");
		if (s) {
			gp_strbuf_addf(&sb, " nsys=%s", s);
		}
		free(s);
	}
	if (im->shift) {
		gp_strbuf_addf(&sb, " time-shift=%" PRId64, im->shift);
	}
	if (sb.failed) {
		ret = fail(im, GP_ERR_NOMEM, "out of memory");
	} else {
		ret = intern(im, sb.buf, sb.len, &p.settings);
	}
	gp_strbuf_release(&sb);
	if (!ret) {
		ret = add(im, GPT_KIND_PROCESS, &p);
	}
	return ret;
}

static int write_threads(struct imp *im)
{
	static const char *const cols[] = {"*nameId", "*globalTid"};
	struct tab t;
	int ret;

	if (!has_table(im, "ThreadNames")) {
		return 0;
	}
	ret = tab_open(im, &t, "ThreadNames", cols, 2, NULL);
	while (!ret && (ret = tab_step(&t)) == 1) {
		struct gpt_thread th = {0};
		uint64_t gtid;

		ret = get_int(&t, 1, INT64_MIN, INT64_MAX, 0, (int64_t *)&gtid);
		if (ret) {
			break;
		}
		if (!key_seen(im, key_of(gtid))) {
			im->st->skipped_threads++;
			continue;
		}
		th.tid = tid_of(gtid);
		ret = get_str(&t, 0, &th.name);
		if (!ret) {
			ret = add(im, GPT_KIND_THREAD, &th);
			im->st->threads++;
		}
	}
	tab_close(&t);
	return ret < 0 ? ret : 0;
}

/* ------------------------------------------------------------- devices */

/* "554a6988-03dd-6206-3dd1-f43fb60a3ed0" (optionally "GPU-" first) into two halves. */
static void parse_uuid(const char *s, uint64_t *hi, uint64_t *lo)
{
	uint64_t half[2] = {0, 0};
	int n = 0;

	if (s && !strncmp(s, "GPU-", 4)) {
		s += 4;
	}
	for (; s && *s && n < 32; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0'
			: *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
			: *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;

		if (d >= 0) {
			half[n / 16] = half[n / 16] << 4 | (uint64_t)d;
			n++;
		}
	}
	*hi = half[0];
	*lo = half[1];
}

enum {
	G_ID, G_CUDEV, G_NAME, G_BUS, G_L2, G_MEM, G_BW, G_CLOCK, G_SMS, G_UUID, G_CONST, G_IPC,
	G_REGS_BLOCK, G_SMEM_BLOCK, G_SMEM_OPTIN, G_SMEM_SM, G_REGS_SM, G_WARP, G_ENGINES,
	G_WARPS_SM, G_BLOCKS_SM, G_THREADS_BLOCK, G_BX, G_BY, G_BZ, G_GX, G_GY, G_GZ, G_CCMAJ,
	G_CCMIN, G_NUMA, G__N
};

static int gpu_row(struct imp *im, struct tab *t)
{
	struct gpt_device d = {.numa_id = -1};
	const char *s;
	int64_t v;
	int ret;

	GET_U(t, G_ID, UINT32_MAX, d.id);
	if (!is_null(t, G_CUDEV)) {
		GET_U(t, G_CUDEV, UINT32_MAX, d.id);
	}
	ret = get_text(t, G_NAME, &d.name);
	if (ret) {
		return ret;
	}
	s = (const char *)sqlite3_column_text(t->stmt, G_BUS + 1);
	if (s) {
		unsigned dom, bus, dev;

		if (sscanf(s, "%x:%x:%x", &dom, &bus, &dev) == 3) {
			d.pci_domain = dom;
			d.pci_bus = bus;
			d.pci_device = dev;
		}
	}
	GET_U(t, G_L2, UINT32_MAX, d.l2_bytes);
	GET_U(t, G_MEM, INT64_MAX, d.global_mem_bytes);
	GET_U(t, G_BW, INT64_MAX, v);
	d.global_mem_bw_kbps = (uint64_t)v / 1000u;
	GET_U(t, G_CLOCK, INT64_MAX, v);
	d.core_clock_khz = (uint32_t)((uint64_t)v / 1000u);
	GET_U(t, G_SMS, UINT32_MAX, d.num_sms);
	parse_uuid((const char *)sqlite3_column_text(t->stmt, G_UUID + 1), &d.uuid_hi, &d.uuid_lo);
	GET_U(t, G_CONST, UINT32_MAX, d.constant_mem_bytes);
	GET_U(t, G_IPC, UINT32_MAX, d.max_ipc);
	GET_U(t, G_REGS_BLOCK, UINT32_MAX, d.max_regs_per_block);
	GET_U(t, G_SMEM_BLOCK, INT64_MAX, d.max_smem_per_block);
	GET_U(t, G_SMEM_OPTIN, INT64_MAX, d.max_smem_per_block_optin);
	GET_U(t, G_SMEM_SM, INT64_MAX, d.max_smem_per_sm);
	GET_U(t, G_REGS_SM, UINT32_MAX, d.max_regs_per_sm);
	GET_U(t, G_WARP, UINT32_MAX, d.warp_size);
	GET_U(t, G_ENGINES, UINT32_MAX, d.num_memcpy_engines);
	GET_U(t, G_WARPS_SM, UINT32_MAX, d.max_warps_per_sm);
	GET_U(t, G_BLOCKS_SM, UINT32_MAX, d.max_blocks_per_sm);
	GET_U(t, G_THREADS_BLOCK, UINT32_MAX, d.max_threads_per_block);
	GET_U(t, G_BX, UINT32_MAX, d.max_block_dim_x);
	GET_U(t, G_BY, UINT32_MAX, d.max_block_dim_y);
	GET_U(t, G_BZ, UINT32_MAX, d.max_block_dim_z);
	GET_U(t, G_GX, UINT32_MAX, d.max_grid_dim_x);
	GET_U(t, G_GY, UINT32_MAX, d.max_grid_dim_y);
	GET_U(t, G_GZ, UINT32_MAX, d.max_grid_dim_z);
	GET_U(t, G_CCMAJ, UINT8_MAX, d.cc_major);
	GET_U(t, G_CCMIN, UINT8_MAX, d.cc_minor);
	if (!is_null(t, G_NUMA)) {
		GET_I32(t, G_NUMA, d.numa_id);
	}
	d.max_threads_per_sm = d.max_warps_per_sm * d.warp_size;
	im->st->devices++;
	return add(im, GPT_KIND_DEVICE, &d);
}

struct idset {
	uint32_t *v;
	size_t n, cap;
};

static int cuda_device_row(struct imp *im, struct tab *t, struct idset *seen)
{
	struct gpt_device d = {.numa_id = -1};

	GET_U(t, 0, UINT32_MAX, d.id);
	for (size_t i = 0; i < seen->n; i++) {
		if (seen->v[i] == d.id) {
			return 0; /* one row per process and device: keep the first */
		}
	}
	if (gp_vec_push(seen, d.id)) {
		return fail(im, GP_ERR_NOMEM, "out of memory");
	}
	parse_uuid((const char *)sqlite3_column_text(t->stmt, 1 + 1), &d.uuid_hi, &d.uuid_lo);
	GET_U(t, 2, UINT32_MAX, d.num_sms);
	im->st->devices++;
	return add(im, GPT_KIND_DEVICE, &d);
}

static int write_devices(struct imp *im)
{
	static const char *const gcols[G__N] = {
		"*id", "cuDevice", "name", "busLocation", "l2CacheSize", "totalMemory",
		"memoryBandwidth", "clockRate", "smCount", "uuid", "constantMemory", "maxIPC",
		"maxRegistersPerBlock", "maxShmemPerBlock", "maxShmemPerBlockOptin", "maxShmemPerSm",
		"maxRegistersPerSm", "threadsPerWarp", "asyncEngines", "maxWarpsPerSm",
		"maxBlocksPerSm", "maxThreadsPerBlock", "maxBlockDimX", "maxBlockDimY", "maxBlockDimZ",
		"maxGridDimX", "maxGridDimY", "maxGridDimZ", "computeMajor", "computeMinor",
		"numaNodeId",
	};
	static const char *const ccols[] = {"*cudaId", "uuid", "numMultiprocessors"};
	struct idset seen = {0};
	struct tab t;
	int ret = 0;

	if (has_table(im, "TARGET_INFO_GPU")) {
		ret = tab_open(im, &t, "TARGET_INFO_GPU", gcols, G__N, NULL);
		while (!ret && (ret = tab_step(&t)) == 1) {
			ret = gpu_row(im, &t);
		}
		tab_close(&t);
		if (ret < 0 || im->st->devices) {
			return ret < 0 ? ret : 0;
		}
	}
	if (has_table(im, "TARGET_INFO_CUDA_DEVICE")) {
		ret = tab_open(im, &t, "TARGET_INFO_CUDA_DEVICE", ccols, 3, NULL);
		while (!ret && (ret = tab_step(&t)) == 1) {
			ret = cuda_device_row(im, &t, &seen);
		}
		tab_close(&t);
	}
	gp_vec_free(&seen);
	return ret < 0 ? ret : 0;
}

/* ------------------------------------------------------------ activity */

/* start and end, both required and >= 0 (end only if iend >= 0). */
static int get_span(struct tab *t, int istart, int iend, uint64_t *start, uint64_t *end)
{
	int64_t s, e, lo = -t->im->shift, hi = INT64_MAX - t->im->shift;
	int ret = get_int(t, istart, lo, hi, 0, &s);

	if (ret) {
		return ret;
	}
	ret = get_int(t, iend, lo, hi, s, &e);
	if (ret) {
		return ret;
	}
	*start = (uint64_t)(s + t->im->shift);
	*end = (uint64_t)(e + t->im->shift);
	return 0;
}

enum {
	K_START, K_END, K_DEV, K_CTX, K_STREAM, K_CORR, K_DEMANGLED, K_SHORT, K_MANGLED, K_LAUNCH,
	K_CACHE, K_REGS, K_GX, K_GY, K_GZ, K_BX, K_BY, K_BZ, K_SSMEM, K_DSMEM, K_LMEM_THREAD,
	K_LMEM_TOTAL, K_GRID_ID, K_SMEM_EXEC, K_NODE, K_SMEM_LIMIT, K_GRAPH, K_CX, K_CY, K_CZ,
	K_CPOLICY, K_MAXPOT, K_MAXACT, K_SMEM_PCT, K__N
};

/*
 * Required ('*'): the times. Every other column may be missing (synthetic
 * exports lack contextId, registersPerThread ...) and reads as 0; the name
 * is demangledName, else shortName, else mangledName (kernel_row).
 */
static const char *const kernel_cols[K__N] = {
	"*start", "*end", "deviceId", "contextId", "streamId", "correlationId", "demangledName",
	"shortName", "mangledName", "launchType", "cacheConfig", "registersPerThread", "gridX",
	"gridY", "gridZ", "blockX", "blockY", "blockZ", "staticSharedMemory",
	"dynamicSharedMemory", "localMemoryPerThread", "localMemoryTotal", "gridId",
	"sharedMemoryExecuted", "graphNodeId", "sharedMemoryLimitConfig", "graphId", "clusterX",
	"clusterY", "clusterZ", "clusterSchedulingPolicy", "maxPotentialClusterSize",
	"maxActiveClusters", "sharedMemoryRequestedPercentage",
};

static int kernel_row(struct imp *im, struct tab *t)
{
	struct gpt_kernel k = {0};
	uint32_t demangled, mangled;
	int64_t v;
	int ret;

	ret = get_span(t, K_START, K_END, &k.start, &k.end);
	if (ret) {
		return ret;
	}
	GET_U(t, K_DEV, UINT32_MAX, k.device);
	GET_U(t, K_CTX, UINT32_MAX, k.context);
	GET_U(t, K_STREAM, UINT32_MAX, k.stream);
	GET_U(t, K_CORR, UINT32_MAX, k.correlation);
	ret = get_str(t, K_DEMANGLED, &demangled);
	if (!ret) {
		ret = get_str(t, K_MANGLED, &mangled);
	}
	if (!ret && !demangled && !mangled) {
		ret = get_str(t, K_SHORT, &demangled);
	}
	if (ret) {
		return ret;
	}
	if (!demangled && !mangled) {
		return fail(im, GP_ERR_FORMAT, "table %s: row %" PRId64 ": no kernel name "
			    "(demangledName, shortName and mangledName are NULL or missing)",
			    t->name, t->rowid);
	}
	if (mangled) {
		k.name = mangled;
		k.demangled = demangled != mangled ? demangled : 0;
	} else {
		k.name = demangled;
	}
	GET_U(t, K_LAUNCH, UINT8_MAX, k.launch_type);
	GET_U(t, K_CACHE, UINT8_MAX, k.cache_config_executed);
	GET_U(t, K_REGS, UINT16_MAX, k.registers);
	GET_I32(t, K_GX, k.grid_x);
	GET_I32(t, K_GY, k.grid_y);
	GET_I32(t, K_GZ, k.grid_z);
	GET_I32(t, K_BX, k.block_x);
	GET_I32(t, K_BY, k.block_y);
	GET_I32(t, K_BZ, k.block_z);
	GET_I32(t, K_SSMEM, k.static_smem);
	GET_I32(t, K_DSMEM, k.dynamic_smem);
	GET_U(t, K_LMEM_THREAD, UINT32_MAX, k.local_mem_per_thread);
	GET_U(t, K_LMEM_TOTAL, INT64_MAX, k.local_mem_total);
	ret = get_int(t, K_GRID_ID, INT64_MIN, INT64_MAX, 0, &v);
	if (ret) {
		return ret;
	}
	k.grid_id = v;
	GET_U(t, K_SMEM_EXEC, UINT32_MAX, k.smem_executed);
	GET_BITS(t, K_NODE, k.graph_node_id);
	GET_U(t, K_SMEM_LIMIT, UINT8_MAX, k.shmem_limit_config);
	GET_U(t, K_GRAPH, UINT32_MAX, k.graph_id);
	GET_U(t, K_CX, UINT32_MAX, k.cluster_x);
	GET_U(t, K_CY, UINT32_MAX, k.cluster_y);
	GET_U(t, K_CZ, UINT32_MAX, k.cluster_z);
	GET_U(t, K_CPOLICY, UINT8_MAX, k.cluster_sched_policy);
	GET_U(t, K_MAXPOT, UINT32_MAX, k.max_potential_cluster_size);
	GET_U(t, K_MAXACT, UINT32_MAX, k.max_active_clusters);
	if (!is_null(t, K_SMEM_PCT)) {
		GET_U(t, K_SMEM_PCT, UINT8_MAX, k.smem_carveout_requested);
		k.smem_carveout_is_requested = 1;
	}
	im->st->kernels++;
	return add(im, GPT_KIND_KERNEL, &k);
}

/*
 * nsys numbers memory kinds from 0 = pageable (ENUM_CUDA_MEM_KIND: 0 pageable,
 * 1 pinned, 2 device, 3 array, 4 managed, 5 device static, 6 managed static,
 * 7 unknown); the model uses CUPTI's CUpti_ActivityMemoryKind, where 0 is
 * unknown and pageable is 1.
 */
static uint8_t mem_kind_from_nsys(uint8_t k)
{
	return k < 7 ? (uint8_t)(k + 1) : 0;
}

enum {
	M_START, M_END, M_DEV, M_CTX, M_STREAM, M_CORR, M_BYTES, M_COPYKIND, M_SRCKIND, M_DSTKIND,
	M_SRCDEV, M_SRCCTX, M_DSTDEV, M_DSTCTX, M_NODE, M_COUNT, M__N
};

/* Required: the times and bytes; a missing copyKind is 0, unknown. */
static const char *const memcpy_cols[M__N] = {
	"*start", "*end", "deviceId", "contextId", "streamId", "correlationId", "*bytes",
	"copyKind", "srcKind", "dstKind", "srcDeviceId", "srcContextId", "dstDeviceId",
	"dstContextId", "graphNodeId", "copyCount",
};

static int memcpy_row(struct imp *im, struct tab *t)
{
	struct gpt_memcpy m = {0};
	int ret = get_span(t, M_START, M_END, &m.start, &m.end);

	if (ret) {
		return ret;
	}
	GET_U(t, M_DEV, UINT32_MAX, m.device);
	GET_U(t, M_CTX, UINT32_MAX, m.context);
	GET_U(t, M_STREAM, UINT32_MAX, m.stream);
	GET_U(t, M_CORR, UINT32_MAX, m.correlation);
	GET_U(t, M_BYTES, INT64_MAX, m.bytes);
	GET_U(t, M_COPYKIND, UINT8_MAX, m.copy_kind);
	GET_U(t, M_SRCKIND, UINT8_MAX, m.src_kind);
	GET_U(t, M_DSTKIND, UINT8_MAX, m.dst_kind);
	m.src_kind = mem_kind_from_nsys(m.src_kind);
	m.dst_kind = mem_kind_from_nsys(m.dst_kind);
	GET_U(t, M_SRCDEV, UINT32_MAX, m.src_device);
	GET_U(t, M_SRCCTX, UINT32_MAX, m.src_context);
	GET_U(t, M_DSTDEV, UINT32_MAX, m.dst_device);
	GET_U(t, M_DSTCTX, UINT32_MAX, m.dst_context);
	GET_BITS(t, M_NODE, m.graph_node_id);
	GET_U(t, M_COUNT, UINT32_MAX, m.copy_count);
	m.is_p2p = m.copy_kind == GPT_COPY_KIND_PTOP;
	im->st->memcpys++;
	return add(im, GPT_KIND_MEMCPY, &m);
}

enum { S_START, S_END, S_DEV, S_CTX, S_STREAM, S_CORR, S_VALUE, S_BYTES, S_NODE, S_KIND, S__N };

static const char *const memset_cols[S__N] = {
	"*start", "*end", "deviceId", "contextId", "streamId", "correlationId", "value",
	"*bytes", "graphNodeId", "memKind",
};

static int memset_row(struct imp *im, struct tab *t)
{
	struct gpt_memset m = {0};
	int ret = get_span(t, S_START, S_END, &m.start, &m.end);

	if (ret) {
		return ret;
	}
	GET_U(t, S_DEV, UINT32_MAX, m.device);
	GET_U(t, S_CTX, UINT32_MAX, m.context);
	GET_U(t, S_STREAM, UINT32_MAX, m.stream);
	GET_U(t, S_CORR, UINT32_MAX, m.correlation);
	GET_U32_ANY(t, S_VALUE, m.value);
	GET_U(t, S_BYTES, INT64_MAX, m.bytes);
	GET_BITS(t, S_NODE, m.graph_node_id);
	GET_U(t, S_KIND, UINT8_MAX, m.memory_kind);
	m.memory_kind = mem_kind_from_nsys(m.memory_kind);
	im->st->memsets++;
	return add(im, GPT_KIND_MEMSET, &m);
}

enum { U_START, U_DEV, U_CTX, U_ADDR, U_PC, U_BYTES, U_KIND, U_OP, U_CORR, U__N };

/* CUDA_GPU_MEMORY_USAGE_EVENTS (--cuda-memory-usage=true): allocations and releases. */
static const char *const memuse_cols[U__N] = {
	"*start", "deviceId", "contextId", "address", "pc", "*bytes", "memKind",
	"*memoryOperationType", "correlationId",
};

static int memuse_row(struct imp *im, struct tab *t)
{
	struct gpt_memory m = {0};
	uint64_t end;
	int64_t op;
	int ret = get_span(t, U_START, U_START, &m.ts, &end);

	if (ret) {
		return ret;
	}
	GET_U(t, U_DEV, UINT32_MAX, m.device);
	GET_U(t, U_CTX, UINT32_MAX, m.context);
	GET_BITS(t, U_ADDR, m.address);
	GET_BITS(t, U_PC, m.pc);
	GET_U(t, U_BYTES, INT64_MAX, m.bytes);
	GET_U(t, U_KIND, UINT8_MAX, m.memory_kind);
	m.memory_kind = mem_kind_from_nsys(m.memory_kind);
	GET_U(t, U_OP, 1, op);
	m.op = op ? GPT_MEMORY_FREE : GPT_MEMORY_ALLOC;
	GET_U(t, U_CORR, UINT32_MAX, m.correlation);
	m.device_type = 1;
	return add(im, GPT_KIND_MEMORY, &m);
}

enum { A_START, A_END, A_CLASS, A_TID, A_CORR, A_NAME, A_RET, A_CBID, A__N };

static const char *const api_cols[A__N] = {
	"*start", "*end", "eventClass", "globalTid", "correlationId", "*nameId", "returnValue",
	"cbid",
};

/* driver: the table is CUPTI_ACTIVITY_KIND_DRIVER (eventClass, when there, still decides). */
static int api_row(struct imp *im, struct tab *t, bool driver)
{
	struct gpt_api a = {0};
	uint64_t gtid;
	int64_t cls;
	int ret;

	ret = get_int(t, A_CLASS, INT64_MIN, INT64_MAX, driver ? 1 : 0, &cls);
	if (ret) {
		return ret;
	}
	if (cls != 0 && cls != 1) {
		im->st->skipped_api++; /* e.g. 67 CUDABACKTRACE: a copy of a call already there */
		return 0;
	}
	a.domain = cls == 1 ? GPT_API_DRIVER : GPT_API_RUNTIME;
	ret = get_span(t, A_START, A_END, &a.start, &a.end);
	if (ret) {
		return ret;
	}
	GET_BITS(t, A_TID, gtid);
	a.tid = tid_of(gtid);
	GET_U(t, A_CORR, UINT32_MAX, a.correlation);
	ret = get_str(t, A_NAME, &a.name);
	if (ret) {
		return ret;
	}
	GET_U32_ANY(t, A_RET, a.return_value);
	GET_U(t, A_CBID, UINT32_MAX, a.cbid);
	im->st->api++;
	return add(im, GPT_KIND_API, &a);
}

enum { Y_START, Y_END, Y_CTX, Y_STREAM, Y_CORR, Y_TYPE, Y_EVENT, Y_EVSYNC, Y_DEV, Y__N };

static const char *const sync_cols[Y__N] = {
	"*start", "*end", "contextId", "streamId", "correlationId", "syncType", "eventId",
	"eventSyncId", "deviceId",
};

static int sync_row(struct imp *im, struct tab *t)
{
	struct gpt_sync s = {0};
	int64_t dev;
	int ret = get_span(t, Y_START, Y_END, &s.start, &s.end);

	if (ret) {
		return ret;
	}
	GET_U(t, Y_CTX, UINT32_MAX, s.context);
	GET_U(t, Y_STREAM, UINT32_MAX, s.stream);
	GET_U(t, Y_CORR, UINT32_MAX, s.correlation);
	GET_U(t, Y_TYPE, UINT8_MAX, s.type);
	GET_U32_ANY(t, Y_EVENT, s.event_id);
	GET_BITS(t, Y_EVSYNC, s.event_sync_id);
	/* kept as written: nsys may name another device than the process's kernels ran on */
	ret = get_int(t, Y_DEV, -1, UINT32_MAX - 1, -1, &dev);
	if (ret) {
		return ret;
	}
	s.device_plus1 = (uint32_t)(dev + 1);
	im->st->syncs++;
	return add(im, GPT_KIND_SYNC, &s);
}

enum { V_TS, V_CTX, V_STREAM, V_CORR, V_EVENT, V_EVSYNC, V_DEV, V__N };

static const char *const cuda_event_cols[V__N] = {
	"timestamp", "contextId", "streamId", "correlationId", "eventId", "eventSyncId", "deviceId",
};

/*
 * A cudaEventRecord call's record: a sync record of type 5 (FORMAT.md),
 * timed by its device timestamp. Rows without one (not collected) are left
 * out: the waits for them then name no recording.
 */
static int cuda_event_row(struct imp *im, struct tab *t)
{
	struct gpt_sync s = {.type = 5};
	int64_t ts, dev;
	int ret = get_int(t, V_TS, -im->shift, INT64_MAX - im->shift, 0, &ts);

	if (!ret) {
		ret = get_int(t, V_DEV, -1, UINT32_MAX - 1, -1, &dev);
	}
	if (ret || !ts) {
		return ret;
	}
	s.start = s.end = (uint64_t)(ts + im->shift);
	GET_U(t, V_CTX, UINT32_MAX, s.context);
	GET_U(t, V_STREAM, UINT32_MAX, s.stream);
	GET_U(t, V_CORR, UINT32_MAX, s.correlation);
	GET_U32_ANY(t, V_EVENT, s.event_id);
	GET_BITS(t, V_EVSYNC, s.event_sync_id);
	s.device_plus1 = (uint32_t)(dev + 1);
	return add(im, GPT_KIND_SYNC, &s);
}

enum {
	N_START, N_END, N_TYPE, N_RANGE, N_CAT, N_COLOR, N_TEXT, N_TID, N_ENDTID, N_TEXTID, N_DOMAIN,
	N_U64, N_I64, N_DOUBLE, N_U32, N_I32, N_FLOAT, N__N
};

static const char *const nvtx_cols[N__N] = {
	"*start", "end", "*eventType", "rangeId", "category", "color", "text", "globalTid",
	"endGlobalTid", "textId", "domainId", "uint64Value", "int64Value", "doubleValue",
	"uint32Value", "int32Value", "floatValue",
};

/* The range's or domain's text: text, else StringIds[textId]. */
static int nvtx_text(struct tab *t, uint32_t *out)
{
	if (!is_null(t, N_TEXT)) {
		return get_text(t, N_TEXT, out);
	}
	return get_str(t, N_TEXTID, out);
}

static int domain_name(struct imp *im, struct tab *t, int64_t id, uint32_t *out)
{
	char buf[32];
	int ret;

	*out = 0;
	if (id == 0) {
		return 0;
	}
	for (size_t i = 0; i < im->domains.n; i++) {
		if (im->domains.v[i].id == id) {
			*out = im->domains.v[i].name;
			return 0;
		}
	}
	/* A domain without its create event (trimmed export): named by its number. */
	snprintf(buf, sizeof(buf), "%" PRId64, id);
	ret = intern(im, buf, strlen(buf), out);
	if (!ret && gp_vec_push(&im->domains, ((struct domain){id, *out}))) {
		ret = fail(im, GP_ERR_NOMEM, "out of memory");
	}
	(void)t;
	return ret;
}

/* The payload columns in NVTX payload-type order: 1 u64, 2 i64, 3 double, 4 u32, 5 i32, 6 float. */
static void nvtx_payload(struct tab *t, struct gpt_nvtx *n)
{
	static const int cols[] = {N_U64, N_I64, N_DOUBLE, N_U32, N_I32, N_FLOAT};

	for (int i = 0; i < 6; i++) {
		int c = cols[i] + 1;
		int type = sqlite3_column_type(t->stmt, c);

		if (type == SQLITE_NULL) {
			continue;
		}
		n->payload_type = (uint8_t)(i + 1);
		if (i == 2) {
			double d = sqlite3_column_double(t->stmt, c);

			memcpy(&n->payload, &d, sizeof(d));
		} else if (i == 5) {
			float f = (float)sqlite3_column_double(t->stmt, c);
			uint32_t b;

			memcpy(&b, &f, sizeof(b));
			n->payload = b;
		} else {
			n->payload = (uint64_t)sqlite3_column_int64(t->stmt, c);
		}
		return;
	}
}

/*
 * NCCL's own NVTX ranges (domain "NCCL", named after the API function:
 * ncclAllReduce, ncclSend, ...) become NCCL records (source 4), so
 * gpuprof comm counts and times them. A range in any non-default domain
 * named nccl<Collective> counts: exports may lack the domain's create
 * event. Message sizes live in NCCL's binary NVTX payload, which the
 * export does not decode: bytes stay 0, and communicator and sequence
 * number are unknown (no matching across ranks).
 */
static int nccl_from_nvtx(struct imp *im, struct tab *t, const struct gpt_nvtx *n)
{
	const unsigned char *s = NULL;
	char buf[64];
	size_t len = 0;

	if (!is_null(t, N_TEXT)) {
		s = sqlite3_column_text(t->stmt, N_TEXT + 1);
		len = s ? (size_t)sqlite3_column_bytes(t->stmt, N_TEXT + 1) : 0;
	} else if (!is_null(t, N_TEXTID)) {
		sqlite3_reset(im->str_stmt);
		sqlite3_bind_int64(im->str_stmt, 1, sqlite3_column_int64(t->stmt, N_TEXTID + 1));
		if (sqlite3_step(im->str_stmt) == SQLITE_ROW) {
			s = sqlite3_column_text(im->str_stmt, 0);
			len = s ? (size_t)sqlite3_column_bytes(im->str_stmt, 0) : 0;
		}
	}
	if (!s || len < 5 || len >= sizeof(buf) || memcmp(s, "nccl", 4) || s[4] < 'A' || s[4] > 'Z') {
		return 0;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	static const char *const ops[][2] = {
		{"AllReduce", "AllReduce"}, {"AllGather", "AllGather"}, {"ReduceScatter", "ReduceScatter"},
		{"Broadcast", "Broadcast"}, {"Bcast", "Broadcast"},	{"Reduce", "Reduce"},
		{"AlltoAll", "AlltoAll"},   {"AllToAll", "AlltoAll"},	{"Gather", "Gather"},
		{"Scatter", "Scatter"},	    {"Send", "Send"},		{"Recv", "Recv"},
	};
	const char *canon = NULL;
	for (size_t i = 0; i < GP_ARRAY_SIZE(ops) && !canon; i++) {
		if (!strcmp(buf + 4, ops[i][0])) {
			canon = ops[i][1];
		}
	}
	if (!canon) {
		return 0; /* ncclGroupStart, ncclCommCount, ... */
	}
	struct gpt_nccl r = {.start = n->start, .end = n->end, .rank = -1, .root = -1,
			     .peer = -1, .tid = n->start_tid, .source = GPT_NCCL_SRC_NSYS};
	if (!strcmp(canon, "Send") || !strcmp(canon, "Recv")) {
		r.flags = GPT_NCCL_P2P;
	}
	int ret = intern(im, canon, strlen(canon), &r.func);
	return ret ? ret : add(im, GPT_KIND_NCCL, &r);
}

static int nvtx_row(struct imp *im, struct tab *t)
{
	struct gpt_nvtx n = {0};
	uint64_t gtid, endtid;
	int64_t type, dom;
	int ret;

	ret = get_int(t, N_TYPE, INT64_MIN, INT64_MAX, 0, &type);
	if (ret) {
		return ret;
	}
	switch (type) {
	case 59:
		n.type = GPT_NVTX_PUSH_POP;
		break;
	case 60:
		n.type = GPT_NVTX_START_END;
		break;
	case 34:
		n.type = GPT_NVTX_MARK;
		break;
	default:
		im->st->skipped_nvtx++; /* categories, thread names, domain create/destroy */
		return 0;
	}
	ret = get_span(t, N_START, N_END, &n.start, &n.end);
	if (ret) {
		return ret;
	}
	GET_BITS(t, N_RANGE, n.range_id);
	if (n.type != GPT_NVTX_START_END) {
		n.range_id = 0;
	}
	GET_U(t, N_CAT, UINT32_MAX, n.category);
	if (!is_null(t, N_COLOR)) {
		GET_U32_ANY(t, N_COLOR, n.color);
		n.color_type = 1;
	}
	ret = nvtx_text(t, &n.message);
	if (ret) {
		return ret;
	}
	GET_BITS(t, N_TID, gtid);
	n.start_tid = tid_of(gtid);
	if (!is_null(t, N_ENDTID)) {
		GET_BITS(t, N_ENDTID, endtid);
		n.end_tid = tid_of(endtid);
	} else {
		n.end_tid = n.start_tid;
	}
	ret = get_int(t, N_DOMAIN, INT64_MIN, INT64_MAX, 0, &dom);
	if (!ret) {
		ret = domain_name(im, t, dom, &n.domain);
	}
	if (ret) {
		return ret;
	}
	nvtx_payload(t, &n);
	im->st->nvtx++;
	ret = add(im, GPT_KIND_NVTX, &n);
	if (!ret && dom != 0 && n.type != GPT_NVTX_MARK) {
		ret = nccl_from_nvtx(im, t, &n);
	}
	return ret;
}

/* Domain names (eventType 75) and category names (33) first: ranges refer to them. */
static int nvtx_names(struct imp *im)
{
	struct tab t;
	int ret = tab_open(im, &t, "NVTX_EVENTS", nvtx_cols, N__N, "eventType IN (33, 75)");

	while (!ret && (ret = tab_step(&t)) == 1) {
		int64_t type, id;
		uint32_t name;

		ret = get_int(&t, N_TYPE, INT64_MIN, INT64_MAX, 0, &type);
		if (!ret) {
			ret = nvtx_text(&t, &name);
		}
		if (!ret) {
			ret = get_int(&t, type == 75 ? N_DOMAIN : N_CAT, INT64_MIN, INT64_MAX, 0, &id);
		}
		if (ret) {
			break;
		}
		if (type == 75) {
			if (gp_vec_push(&im->domains, ((struct domain){id, name}))) {
				ret = fail(im, GP_ERR_NOMEM, "out of memory");
			}
		} else {
			struct gpt_name nm = {.type = GPT_NAME_CATEGORY, .id = (uint64_t)id,
					      .name = name};

			ret = get_int(&t, N_DOMAIN, INT64_MIN, INT64_MAX, 0, &id);
			if (!ret) {
				ret = domain_name(im, &t, id, &nm.domain);
			}
			if (!ret) {
				ret = add(im, GPT_KIND_NAME, &nm);
			}
		}
	}
	tab_close(&t);
	if (ret < 0) {
		return ret;
	}
	for (size_t i = 0; i < im->domains.n; i++) {
		struct gpt_name nm = {.type = GPT_NAME_DOMAIN, .id = (uint64_t)im->domains.v[i].id,
				      .name = im->domains.v[i].name};

		ret = add(im, GPT_KIND_NAME, &nm);
		if (ret) {
			return ret;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ overhead */

/*
 * CUPTI_ACTIVITY_KIND_OVERHEAD (CUPTI's own overhead records) and
 * PROFILER_OVERHEAD (nsys's) become OVERHEAD records, so profiler overhead
 * can explain GPU idle time on nsys input as on a recording. overheadType
 * names ENUM_CUPTI_OVERHEAD_TYPE; the record keeps CUPTI's
 * CUpti_ActivityOverheadKind.
 */
static uint32_t overhead_kind_by_name(const char *name)
{
	static const struct { const char *name; uint32_t kind; } kinds[] = {
		{"OVERHEAD_DRIVER_COMPILER", 1},
		{"OVERHEAD_CUPTI_BUFFER_FLUSH", 1u << 16},
		{"OVERHEAD_CUPTI_INSTRUMENTATION", 2u << 16},
		{"OVERHEAD_CUPTI_RESOURCE", 3u << 16},
		{"OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING", 4u << 16},
		{"OVERHEAD_LAZY_FUNCTION_LOADING", 5u << 16},
		{"OVERHEAD_COMMAND_BUFFER_FULL", 6u << 16},
		{"OVERHEAD_ACTIVITY_BUFFER_REQUEST", 7u << 16},
		{"OVERHEAD_UVM_ACTIVITY_INIT", 8u << 16},
		/* PROFILER_OVERHEAD names its rows in StringIds */
		{"CUPTI Buffer flush", 1u << 16},
		{"CUPTI Instrumentation", 2u << 16},
		{"CUPTI Resource", 3u << 16},
	};

	for (size_t i = 0; name && i < GP_ARRAY_SIZE(kinds); i++) {
		if (!strcasecmp(name, kinds[i].name)) {
			return kinds[i].kind;
		}
	}
	return 0; /* unknown: still profiler overhead */
}

/* ENUM_CUPTI_OVERHEAD_TYPE id -> kind; without the table, the ids every export so far used. */
static uint32_t overhead_kind(struct imp *im, int64_t type)
{
	static const char *const by_id[] = {
		"", "", "OVERHEAD_DRIVER_COMPILER", "OVERHEAD_CUPTI_BUFFER_FLUSH",
		"OVERHEAD_CUPTI_INSTRUMENTATION", "OVERHEAD_CUPTI_RESOURCE",
		"OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING", "OVERHEAD_LAZY_FUNCTION_LOADING",
		"OVERHEAD_COMMAND_BUFFER_FULL",
	};
	char num[32];
	char *name;
	uint32_t kind;

	if (has_table(im, "ENUM_CUPTI_OVERHEAD_TYPE")) {
		snprintf(num, sizeof(num), "%" PRId64, type);
		name = query_text(im, "SELECT name FROM ENUM_CUPTI_OVERHEAD_TYPE "
				      "WHERE id = CAST(?1 AS INTEGER)", num);
		if (name) {
			kind = overhead_kind_by_name(name);
			free(name);
			return kind;
		}
	}
	return type >= 0 && (size_t)type < GP_ARRAY_SIZE(by_id) ? overhead_kind_by_name(by_id[type])
								 : 0;
}

enum { O_START, O_END, O_TID, O_CORR, O_TYPE, O_NAME, O__N };

static const char *const overhead_cols[O__N] = {
	"*start", "*end", "globalTid", "correlationId", "overheadType", "nameId",
};

static int overhead_row(struct imp *im, struct tab *t, bool cupti)
{
	struct gpt_overhead o = {.object_kind = 2}; /* CUPTI_ACTIVITY_OBJECT_THREAD */
	uint64_t gtid;
	int64_t type;
	int ret = get_span(t, O_START, O_END, &o.start, &o.end);

	if (ret) {
		return ret;
	}
	GET_BITS(t, O_TID, gtid);
	o.object_id0 = pid_of(gtid);
	o.object_id1 = tid_of(gtid);
	GET_U(t, O_CORR, UINT32_MAX, o.correlation);
	if (cupti) {
		ret = get_int(t, O_TYPE, INT64_MIN, INT64_MAX, 0, &type);
		if (ret) {
			return ret;
		}
		o.overhead_kind = overhead_kind(im, type);
	} else if (!is_null(t, O_NAME)) {
		sqlite3_reset(im->str_stmt);
		sqlite3_bind_int64(im->str_stmt, 1, sqlite3_column_int64(t->stmt, O_NAME + 1));
		if (sqlite3_step(im->str_stmt) == SQLITE_ROW) {
			o.overhead_kind = overhead_kind_by_name(
				(const char *)sqlite3_column_text(im->str_stmt, 0));
		}
	}
	im->st->overheads++;
	return add(im, GPT_KIND_OVERHEAD, &o);
}

static int overhead_cupti_row(struct imp *im, struct tab *t)
{
	return overhead_row(im, t, true);
}

static int overhead_profiler_row(struct imp *im, struct tab *t)
{
	return overhead_row(im, t, false);
}

typedef int (*row_fn)(struct imp *im, struct tab *t);

static int api_runtime_row(struct imp *im, struct tab *t)
{
	return api_row(im, t, false);
}

static int api_driver_row(struct imp *im, struct tab *t)
{
	return api_row(im, t, true);
}

/* pcol: the table's process column (globalPid or globalTid) for one-process imports. */
static int import_table(struct imp *im, const char *table, const char *pcol,
			const char *const *cols, int ncols, row_fn fn)
{
	char where[160];
	struct tab t;
	int ret;

	uint64_t rows0 = im->st->rows;

	if (!has_table(im, table)) {
		gp_debug("%s: no table %s", im->path, table);
		return 0;
	}
	ret = tab_open(im, &t, table, cols, ncols,
		       process_where(im, table, pcol, where, sizeof(where)));
	while (!ret && (ret = tab_step(&t)) == 1) {
		ret = fn(im, &t);
		if ((++im->st->rows & 0x3fff) == 0 && im->progress) {
			struct gp_progress pg = {.what = "importing", .unit = "rows",
						 .done = im->st->rows};
			struct gpt_writer_stats ws;

			gpt_writer_get_stats(im->w, &ws);
			for (size_t k = 0; k < GPT_KIND__MAX; k++) {
				pg.records += ws.records[k]; /* the line's "N records" */
			}
			gp_progress_call(im->progress, &pg);
		}
	}
	tab_close(&t);
	gp_debug("%s: table %s: %" PRIu64 " rows", im->path, table, im->st->rows - rows0);
	return ret < 0 ? ret : 0;
}

/* ---------------------------------------------------------------- entry */

/*
 * Times before the session's 0 (a synthetic export has API calls at -3000)
 * do not fit our unsigned times: every time is then shifted by the earliest
 * one, the same for every table and process, and the shift is written into
 * the process settings ("time-shift=3000").
 */
static int find_shift(struct imp *im)
{
	static const char *const tables[] = {
		"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
		"CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME",
		"CUPTI_ACTIVITY_KIND_DRIVER", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
		"NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_OVERHEAD", "PROFILER_OVERHEAD",
	};
	char sql[200];

	for (size_t i = 0; i < GP_ARRAY_SIZE(tables); i++) {
		bool present = false;
		char *v;

		if (!has_table(im, tables[i])) {
			continue;
		}
		int ret = has_column(im, tables[i], "start", &present);
		if (ret) {
			return ret;
		}
		if (!present) {
			continue;
		}
		snprintf(sql, sizeof(sql), "SELECT min(start) FROM \"%s\" "
			 "WHERE typeof(start) = 'integer'", tables[i]);
		v = query_text(im, sql, NULL);
		if (v) {
			long long lo = strtoll(v, NULL, 10);

			if (lo < 0 && lo > INT64_MIN && -lo > im->shift) {
				im->shift = -lo;
			}
			free(v);
		}
	}
	im->st->time_shift = (uint64_t)im->shift;
	return 0;
}

/* Opens and checks the export; 0 or a negative gp_err with the message. */
static int open_export(struct imp *im)
{
	char alias[64]; /* a stream's copy (stream.c) */
	const char *dbpath = gpa_input_path(im->path, alias, sizeof(alias));
	int rc = sqlite3_open_v2(dbpath, &im->db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		return fail(im, rc == SQLITE_NOMEM || !im->db ? GP_ERR_NOMEM : GP_ERR_IO,
			    "cannot open: %s", im->db ? sqlite3_errmsg(im->db) : "out of memory");
	}
	/*
	 * The string id cache is an array by id: a row of StringIds takes a few
	 * bytes of the file at least, so ids up to a quarter of its size cover a
	 * real export, and a crafted id cannot make the array outgrow the file.
	 */
	struct stat sb;
	im->smap_max = stat(dbpath, &sb) ? 0 : (uint64_t)sb.st_size / 4;
	im->smap_max = im->smap_max < SMAP_MIN_ID	? SMAP_MIN_ID
		       : im->smap_max > SMAP_MAX_ID ? SMAP_MAX_ID
						    : im->smap_max;
	/* Reading the schema is the first access: it fails on text files and cut databases. */
	if (sqlite3_exec(im->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		if (sqlite3_errcode(im->db) == SQLITE_NOMEM) {
			return fail(im, GP_ERR_NOMEM, "out of memory");
		}
		return fail(im, GP_ERR_FORMAT, "not a readable SQLite database (%s)",
			    sqlite3_errmsg(im->db));
	}
	if (!has_table(im, "StringIds") || !has_table(im, "CUPTI_ACTIVITY_KIND_KERNEL")) {
		if (im->schema_rc) {
			return schema_failed(im);
		}
		if (!has_table(im, "StringIds") ||
		    (!has_table(im, "CUPTI_ACTIVITY_KIND_RUNTIME") &&
		     !has_table(im, "NVTX_EVENTS"))) {
			return fail(im, GP_ERR_FORMAT, "not an Nsight Systems export (no "
				    "CUPTI_ACTIVITY_KIND_KERNEL or StringIds table)");
		}
	}
	if (sqlite3_prepare_v2(im->db, "SELECT value FROM StringIds WHERE id = ?", -1,
			       &im->str_stmt, NULL) != SQLITE_OK) {
		return db_fail(im, "table StringIds");
	}
	return 0;
}

static void close_export(struct imp *im)
{
	sqlite3_finalize(im->str_stmt);
	sqlite3_close(im->db);
	free(im->smap);
	gp_vec_free(&im->pids);
	gp_vec_free(&im->domains);
}

static int import_activity(struct imp *im)
{
	static const struct {
		const char *table, *pcol;
		const char *const *cols;
		int ncols;
		row_fn fn;
	} tables[] = {
		{"CUPTI_ACTIVITY_KIND_KERNEL", "globalPid", kernel_cols, K__N, kernel_row},
		{"CUPTI_ACTIVITY_KIND_MEMCPY", "globalPid", memcpy_cols, M__N, memcpy_row},
		{"CUPTI_ACTIVITY_KIND_MEMSET", "globalPid", memset_cols, S__N, memset_row},
		{"CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid", api_cols, A__N, api_runtime_row},
		{"CUPTI_ACTIVITY_KIND_DRIVER", "globalTid", api_cols, A__N, api_driver_row},
		{"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "globalPid", sync_cols, Y__N, sync_row},
		{"CUPTI_ACTIVITY_KIND_CUDA_EVENT", "globalPid", cuda_event_cols, V__N, cuda_event_row},
		{"NVTX_EVENTS", "globalTid", nvtx_cols, N__N, nvtx_row},
		{"CUPTI_ACTIVITY_KIND_OVERHEAD", "globalTid", overhead_cols, O__N,
		 overhead_cupti_row},
		{"PROFILER_OVERHEAD", "globalTid", overhead_cols, O__N, overhead_profiler_row},
		{"CUDA_GPU_MEMORY_USAGE_EVENTS", "globalPid", memuse_cols, U__N, memuse_row},
	};
	int ret = 0;

	for (size_t i = 0; i < GP_ARRAY_SIZE(tables) && !ret; i++) {
		ret = import_table(im, tables[i].table, tables[i].pcol, tables[i].cols,
				   tables[i].ncols, tables[i].fn);
	}
	return ret;
}

int gpa_import_nsys_opts(const char *path, struct gpt_writer *w,
			 const struct gpa_nsys_import_opts *opts,
			 struct gpa_nsys_import_stats *stats, char *errbuf, size_t errlen)
{
	struct gpa_nsys_import_stats dummy;
	struct imp im = {.w = w, .path = path ? path : "(null)", .errbuf = errbuf,
			 .errlen = errlen, .st = stats ? stats : &dummy};
	int ret = 0;

	memset(im.st, 0, sizeof(*im.st));
	if (errbuf && errlen) {
		errbuf[0] = '\0';
	}
	if (!path || !w) {
		return fail(&im, GP_ERR_API, "no input file or no writer");
	}
	im.progress = opts ? opts->progress : NULL;
	if (opts && opts->one_process) {
		im.one_process = true;
		im.key = opts->process;
	}
	ret = open_export(&im);
	if (!ret) {
		ret = find_shift(&im);
	}
	if (!ret) {
		ret = write_process(&im);
	}
	if (!ret) {
		ret = write_devices(&im);
	}
	if (!ret) {
		ret = write_threads(&im);
	}
	if (!ret && has_table(&im, "NVTX_EVENTS")) {
		ret = nvtx_names(&im);
	}
	if (!ret) {
		ret = import_activity(&im);
	}
	if (!ret && im.schema_rc) {
		ret = schema_failed(&im);
	}
	im.st->main_pid = im.main_pid;
	gp_debug("%s: %" PRIu64 " processes (pid %u written), %" PRIu64 " devices, %" PRIu64
		 " threads; skipped %" PRIu64 " API rows, %" PRIu64 " NVTX rows, %" PRIu64
		 " threads", path, im.st->processes, im.main_pid, im.st->devices, im.st->threads,
		 im.st->skipped_api, im.st->skipped_nvtx, im.st->skipped_threads);
	close_export(&im);
	return ret;
}

int gpa_import_nsys_ex(const char *path, struct gpt_writer *w, struct gpa_nsys_import_stats *stats,
		       char *errbuf, size_t errlen)
{
	return gpa_import_nsys_opts(path, w, NULL, stats, errbuf, errlen);
}

int gpa_import_nsys(const char *path, struct gpt_writer *w, char *errbuf, size_t errlen)
{
	return gpa_import_nsys_ex(path, w, NULL, errbuf, errlen);
}

int gpa_nsys_processes(const char *path, struct gpa_nsys_process **out, size_t *n, size_t *main,
		       char *errbuf, size_t errlen)
{
	struct gpa_nsys_import_stats st;
	struct imp im = {.path = path ? path : "(null)", .errbuf = errbuf, .errlen = errlen,
			 .st = &st};
	int ret;

	*out = NULL;
	*n = 0;
	*main = 0;
	if (errbuf && errlen) {
		errbuf[0] = '\0';
	}
	ret = open_export(&im);
	if (!ret) {
		ret = scan_processes(&im);
	}
	if (!ret && im.pids.n) {
		*out = calloc(im.pids.n, sizeof(**out));
		if (!*out) {
			ret = fail(&im, GP_ERR_NOMEM, "out of memory");
		}
	}
	for (size_t i = 0; !ret && i < im.pids.n; i++) {
		/* insertion by key: processes in pid order */
		size_t j = i;
		struct gpa_nsys_process p = {.key = im.pids.v[i].key,
					     .pid = (uint32_t)(im.pids.v[i].key & 0xffffff),
					     .rows = im.pids.v[i].n};
		p.rows = p.rows >= 1000000000 ? p.rows / 1000000000 : p.rows;
		for (; j > 0 && (*out)[j - 1].key > p.key; j--) {
			(*out)[j] = (*out)[j - 1];
		}
		(*out)[j] = p;
	}
	if (!ret) {
		*n = im.pids.n;
		for (size_t i = 0; i < *n; i++) {
			if ((*out)[i].key == im.main_key) {
				*main = i;
			}
		}
	} else {
		free(*out);
		*out = NULL;
	}
	close_export(&im);
	return ret;
}
