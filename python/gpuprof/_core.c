/* SPDX-License-Identifier: MIT */
/*
 * _core.c - the C half of the gpuprof Python module: libgpuprof's handles
 * (api/gpuprof.h) as Trace objects, their columns as objects exporting the
 * buffer protocol over the library's arrays (no copy), the analyses' JSON.
 * The Python half (gpuprof/__init__.py) makes tables, NumPy arrays and
 * DataFrames of them. Built on the stable ABI (Py_LIMITED_API 3.11).
 *
 * A column's buffer points into its trace's memory: a Column holds a
 * reference to its Trace, and Trace.close() while buffers are exported
 * closes the handle when the last one is released.
 */
#define PY_SSIZE_T_CLEAN
#define Py_LIMITED_API 0x030B0000
#include <Python.h>
#include <string.h>

#include "api/gpuprof.h"

typedef struct {
	PyObject_HEAD
	struct gpuprof_trace *h; /* NULL once closed */
	Py_ssize_t exports;      /* buffers of its columns handed out */
	int closing;             /* close() asked while exports > 0 */
} TraceObject;

typedef struct {
	PyObject_HEAD
	TraceObject *trace; /* strong reference */
	const void *data;
	Py_ssize_t shape[1], strides[1];
	int type;
} ColumnObject;

static PyObject *Error;
static PyObject *TraceType, *ColumnType;

/* Raises gpuprof.Error(msg) with its status code in .status. */
static PyObject *raise(int status, const char *msg)
{
	PyObject *e = PyObject_CallFunction(Error, "s", msg && *msg ? msg
								    : gpuprof_strerror(status));

	if (e) {
		PyObject *code = PyLong_FromLong(status < 0 ? -status : status);
		if (code) {
			PyObject_SetAttrString(e, "status", code);
			Py_DECREF(code);
		}
		PyErr_SetObject(Error, e);
		Py_DECREF(e);
	}
	return NULL;
}

static int check_open(TraceObject *t)
{
	if (!t->h || t->closing) {
		raise(-GPUPROF_ERR_API, "the trace is closed");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------- columns */

static Py_ssize_t width_of(int type)
{
	switch (type) {
	case GPUPROF_U8:
		return 1;
	case GPUPROF_U16:
		return 2;
	case GPUPROF_U64:
	case GPUPROF_I64:
		return 8;
	default:
		return 4;
	}
}

static const char *format_of(int type)
{
	switch (type) {
	case GPUPROF_U8:
		return "B";
	case GPUPROF_U16:
		return "H";
	case GPUPROF_U64:
		return "Q";
	case GPUPROF_I32:
		return "i";
	case GPUPROF_I64:
		return "q";
	default:
		return "I";
	}
}

static int column_getbuffer(PyObject *self, Py_buffer *v, int flags)
{
	ColumnObject *c = (ColumnObject *)self;
	static const char empty[8];

	if (check_open(c->trace)) {
		return -1;
	}
	if (flags & PyBUF_WRITABLE) {
		PyErr_SetString(PyExc_BufferError, "gpuprof columns are read-only");
		return -1;
	}
	v->buf = (void *)(c->data ? c->data : empty);
	v->obj = Py_NewRef(self);
	v->itemsize = width_of(c->type);
	v->len = c->shape[0] * v->itemsize;
	v->readonly = 1;
	v->ndim = 1;
	v->format = (flags & PyBUF_FORMAT) ? (char *)format_of(c->type) : NULL;
	v->shape = (flags & PyBUF_ND) ? c->shape : NULL;
	v->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? c->strides : NULL;
	v->suboffsets = NULL;
	v->internal = NULL;
	c->trace->exports++;
	return 0;
}

static void column_releasebuffer(PyObject *self, Py_buffer *v)
{
	ColumnObject *c = (ColumnObject *)self;
	TraceObject *t = c->trace;

	(void)v;
	if (--t->exports == 0 && t->closing && t->h) {
		gpuprof_close(t->h);
		t->h = NULL;
	}
}

static void column_dealloc(PyObject *self)
{
	ColumnObject *c = (ColumnObject *)self;
	PyTypeObject *tp = Py_TYPE(self);
	freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);

	Py_XDECREF((PyObject *)c->trace);
	f(self);
	Py_DECREF(tp);
}

static PyObject *column_len(PyObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(((ColumnObject *)self)->shape[0]);
}

static PyObject *column_typecode(PyObject *self, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(format_of(((ColumnObject *)self)->type));
}

static PyGetSetDef column_getset[] = {
	{"rows", column_len, NULL, "number of values", NULL},
	{"typecode", column_typecode, NULL, "struct/array type code of the values", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot column_slots[] = {
	{Py_tp_doc, "A column of a gpuprof table: read it through memoryview() or numpy."},
	{Py_tp_dealloc, column_dealloc},
	{Py_tp_getset, column_getset},
	{Py_bf_getbuffer, column_getbuffer},
	{Py_bf_releasebuffer, column_releasebuffer},
	{0, NULL},
};

static PyType_Spec column_spec = {"gpuprof._core.Column", sizeof(ColumnObject), 0,
				  Py_TPFLAGS_DEFAULT, column_slots};

static PyObject *column_new(TraceObject *t, const struct gpuprof_column *col, size_t rows)
{
	ColumnObject *c = PyObject_New(ColumnObject, (PyTypeObject *)ColumnType);

	if (!c) {
		return NULL;
	}
	c->trace = (TraceObject *)Py_NewRef((PyObject *)t);
	c->data = col->data;
	c->type = col->type;
	c->shape[0] = (Py_ssize_t)rows;
	c->strides[0] = width_of(col->type);
	return (PyObject *)c;
}

/* --------------------------------------------------------------- traces */

static void trace_dealloc(PyObject *self)
{
	TraceObject *t = (TraceObject *)self;
	PyTypeObject *tp = Py_TYPE(self);
	freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);

	gpuprof_close(t->h); /* no column is left: each holds a reference */
	t->h = NULL;
	f(self);
	Py_DECREF(tp);
}

/* A CSTR column as a list of str. */
static PyObject *cstr_list(const struct gpuprof_column *col, size_t rows)
{
	PyObject *l = PyList_New((Py_ssize_t)rows);
	const char *const *v = col->data;

	for (size_t i = 0; l && i < rows; i++) {
		PyObject *s = PyUnicode_DecodeFSDefault(v[i]);
		if (!s) {
			Py_CLEAR(l);
			break;
		}
		PyList_SetItem(l, (Py_ssize_t)i, s);
	}
	return l;
}

static PyObject *trace_table(PyObject *self, PyObject *arg)
{
	TraceObject *t = (TraceObject *)self;
	const struct gpuprof_table *tab = NULL;
	const char *name = PyUnicode_AsUTF8AndSize(arg, NULL);
	PyObject *cols;
	int ret;

	if (!name || check_open(t)) {
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	ret = gpuprof_table(t->h, name, &tab);
	Py_END_ALLOW_THREADS
	if (ret) {
		return raise(ret, gpuprof_trace_error(t->h));
	}
	cols = PyList_New(0);
	for (size_t i = 0; cols && i < tab->ncols; i++) {
		const struct gpuprof_column *c = &tab->cols[i];
		PyObject *v = c->type == GPUPROF_CSTR ? cstr_list(c, tab->rows)
						      : column_new(t, c, tab->rows);
		PyObject *item = v ? Py_BuildValue("(sNi)", c->name, v, c->type == GPUPROF_STR)
				   : NULL;
		if (!item || PyList_Append(cols, item)) {
			Py_XDECREF(item);
			Py_CLEAR(cols);
			break;
		}
		Py_DECREF(item);
	}
	return cols ? Py_BuildValue("(nN)", (Py_ssize_t)tab->rows, cols) : NULL;
}

static PyObject *trace_strings(PyObject *self, PyObject *unused)
{
	TraceObject *t = (TraceObject *)self;
	size_t n;
	PyObject *l;

	(void)unused;
	if (check_open(t)) {
		return NULL;
	}
	n = gpuprof_string_count(t->h);
	l = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; l && i < n; i++) {
		const char *s = gpuprof_string(t->h, (uint32_t)i);
		PyObject *u = PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
		if (!u) {
			Py_CLEAR(l);
			break;
		}
		PyList_SetItem(l, (Py_ssize_t)i, u);
	}
	return l;
}

static PyObject *trace_analyze(PyObject *self, PyObject *args)
{
	TraceObject *t = (TraceObject *)self;
	long kind;
	long long top = 0, min_gap = 0;
	struct gpuprof_analysis_opts o = {sizeof(o), 0, 0};
	char *json = NULL;
	size_t len = 0;
	PyObject *s;
	int ret;

	if (!PyArg_ParseTuple(args, "l|LL", &kind, &top, &min_gap) || check_open(t)) {
		return NULL;
	}
	o.top = top;
	o.min_gap_ns = min_gap;
	Py_BEGIN_ALLOW_THREADS
	ret = gpuprof_analyze_opts(t->h, (enum gpuprof_analysis)kind, &o, &json, &len);
	Py_END_ALLOW_THREADS
	if (ret) {
		return raise(ret, gpuprof_trace_error(t->h));
	}
	s = PyUnicode_DecodeUTF8(json, (Py_ssize_t)len, "replace");
	gpuprof_free(json);
	return s;
}

static PyObject *trace_close(PyObject *self, PyObject *unused)
{
	TraceObject *t = (TraceObject *)self;

	(void)unused;
	if (t->exports) {
		t->closing = 1; /* the last buffer released closes it */
	} else {
		gpuprof_close(t->h);
		t->h = NULL;
	}
	Py_RETURN_NONE;
}

static PyObject *trace_closed(PyObject *self, void *closure)
{
	TraceObject *t = (TraceObject *)self;

	(void)closure;
	return PyBool_FromLong(!t->h || t->closing);
}

static PyMethodDef trace_methods[] = {
	{"table", trace_table, METH_O,
	 "table(name) -> (rows, [(column, Column or list of str, is_string_id)])"},
	{"strings", trace_strings, METH_NOARGS, "strings() -> list of the trace's strings by id"},
	{"analyze", trace_analyze, METH_VARARGS,
	 "analyze(kind, top=0, min_gap_ns=0) -> the analysis's JSON document"},
	{"close", trace_close, METH_NOARGS, "close() -> None: frees the trace"},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef trace_getset[] = {
	{"closed", trace_closed, NULL, "whether close() was called", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot trace_slots[] = {
	{Py_tp_doc, "An open trace (libgpuprof handle); use gpuprof.open()."},
	{Py_tp_dealloc, trace_dealloc},
	{Py_tp_methods, trace_methods},
	{Py_tp_getset, trace_getset},
	{0, NULL},
};

static PyType_Spec trace_spec = {"gpuprof._core.Trace", sizeof(TraceObject), 0,
				 Py_TPFLAGS_DEFAULT, trace_slots};

/* ---------------------------------------------------------------- module */

/* A list of str as C strings borrowed from it (*v: caller frees with PyMem_Free). */
static int strings_of(PyObject *list, const char ***v, Py_ssize_t *n)
{
	*n = PyList_Size(list);
	*v = NULL;
	if (*n < 0) {
		return -1;
	}
	*v = PyMem_Calloc((size_t)*n + 1, sizeof(**v));
	if (!*v) {
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < *n; i++) {
		(*v)[i] = PyUnicode_AsUTF8AndSize(PyList_GetItem(list, i), NULL);
		if (!(*v)[i]) {
			return -1;
		}
	}
	return 0;
}

static PyObject *core_open(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"paths", "threads", "step", "data_loader", "comm_kernel",
				 "allow_unrelated", NULL};
	PyObject *paths, *comm = NULL, *res = NULL;
	struct gpuprof_open_opts o;
	const char **pv = NULL, **cv = NULL;
	Py_ssize_t np = 0, nc = 0;
	struct gpuprof_trace *h = NULL;
	int unrelated = 0, ret;

	(void)mod;
	gpuprof_open_opts_init(&o);
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|IzzO!p", kwlist, &PyList_Type, &paths,
					 &o.threads, &o.step_regex, &o.data_loader_regex,
					 &PyList_Type, &comm, &unrelated)) {
		return NULL;
	}
	if (strings_of(paths, &pv, &np) || (comm && strings_of(comm, &cv, &nc))) {
		goto out;
	}
	o.comm_kernel_regex = cv;
	o.ncomm_kernel_regex = (size_t)nc;
	o.allow_unrelated = unrelated;
	Py_BEGIN_ALLOW_THREADS
	ret = gpuprof_open(pv, (size_t)np, &o, &h);
	Py_END_ALLOW_THREADS
	if (ret) {
		raise(ret, gpuprof_last_error());
		goto out;
	}
	TraceObject *t = PyObject_New(TraceObject, (PyTypeObject *)TraceType);
	if (!t) {
		gpuprof_close(h);
		goto out;
	}
	t->h = h;
	t->exports = 0;
	t->closing = 0;
	res = (PyObject *)t;
out:
	PyMem_Free(pv);
	PyMem_Free(cv);
	return res;
}

static PyObject *core_diff(PyObject *mod, PyObject *args)
{
	PyObject *a, *b, *s;
	TraceObject *ta, *tb;
	char *json = NULL;
	size_t len = 0;
	int ret;

	(void)mod;
	if (!PyArg_ParseTuple(args, "O!O!", (PyTypeObject *)TraceType, &a,
			      (PyTypeObject *)TraceType, &b)) {
		return NULL;
	}
	ta = (TraceObject *)a;
	tb = (TraceObject *)b;
	if (check_open(ta) || check_open(tb)) {
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	ret = gpuprof_diff(ta->h, tb->h, &json, &len);
	Py_END_ALLOW_THREADS
	if (ret) {
		return raise(ret, gpuprof_trace_error(tb->h));
	}
	s = PyUnicode_DecodeUTF8(json, (Py_ssize_t)len, "replace");
	gpuprof_free(json);
	return s;
}

static PyObject *core_table_names(PyObject *mod, PyObject *unused)
{
	const char *const *n = gpuprof_table_names();
	PyObject *l = PyList_New(0);

	(void)mod;
	(void)unused;
	for (; l && *n; n++) {
		PyObject *s = PyUnicode_FromString(*n);
		if (!s || PyList_Append(l, s)) {
			Py_XDECREF(s);
			Py_CLEAR(l);
			break;
		}
		Py_DECREF(s);
	}
	return l;
}

static PyMethodDef core_methods[] = {
	{"open", (PyCFunction)(void (*)(void))core_open, METH_VARARGS | METH_KEYWORDS,
	 "open(paths, threads=0, step=None, data_loader=None, comm_kernel=[], "
	 "allow_unrelated=False) -> Trace"},
	{"diff", core_diff, METH_VARARGS,
	 "diff(baseline, candidate) -> the JSON of gpuprof diff --json, each trace one run"},
	{"table_names", core_table_names, METH_NOARGS, "the tables a trace holds"},
	{NULL, NULL, 0, NULL},
};

static int core_exec(PyObject *m)
{
	PyObject *bases = PyTuple_Pack(2, PyExc_OSError, PyExc_ValueError);

	if (!bases) {
		return -1;
	}
	Error = PyErr_NewExceptionWithDoc(
		"gpuprof.Error",
		"An error of gpuprof: the message is the one the gpuprof command prints\n"
		"after 'gpuprof: error: '; .status holds the library's error code.",
		bases, NULL);
	Py_DECREF(bases);
	TraceType = PyType_FromSpec(&trace_spec);
	ColumnType = PyType_FromSpec(&column_spec);
	if (!Error || !TraceType || !ColumnType ||
	    PyModule_AddObjectRef(m, "Error", Error) ||
	    PyModule_AddObjectRef(m, "Trace", TraceType) ||
	    PyModule_AddObjectRef(m, "Column", ColumnType) ||
	    PyModule_AddStringConstant(m, "version", gpuprof_version()) ||
	    PyModule_AddIntConstant(m, "api_version", gpuprof_api_version()) ||
	    PyModule_AddIntConstant(m, "REPORT", GPUPROF_REPORT) ||
	    PyModule_AddIntConstant(m, "GAPS", GPUPROF_GAPS) ||
	    PyModule_AddIntConstant(m, "CRITICAL_PATH", GPUPROF_CRITICAL_PATH) ||
	    PyModule_AddIntConstant(m, "OPS", GPUPROF_OPS) ||
	    PyModule_AddIntConstant(m, "MEMORY", GPUPROF_MEMORY) ||
	    PyModule_AddIntConstant(m, "BREAKDOWN", GPUPROF_BREAKDOWN) ||
	    PyModule_AddIntConstant(m, "BREAKDOWN_HTA", GPUPROF_BREAKDOWN_HTA) ||
	    PyModule_AddIntConstant(m, "BREAKDOWN_HTA_NOROUND", GPUPROF_BREAKDOWN_HTA_NOROUND)) {
		return -1;
	}
	return 0;
}

static PyModuleDef_Slot core_slots[] = {
	{Py_mod_exec, core_exec},
	{0, NULL},
};

static struct PyModuleDef core_module = {
	PyModuleDef_HEAD_INIT, "gpuprof._core",
	"The C half of gpuprof: libgpuprof's traces, columns and analyses.", 0, core_methods,
	core_slots, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
	return PyModuleDef_Init(&core_module);
}
