# api/build.mk - libgpuprof.so (the C API, api/gpuprof.h, docs/api.md) and the Python
# module (python/, docs/python.md), included by the Makefile.
#
# The library is linked from the objects the command links (compiled once, position-independent
# with hidden symbols: the Makefile's PIC_CFLAGS); api/libgpuprof.map exports the API's functions
# alone. The archives let the link take only the objects the API reaches.

SO_MAJOR := 1
LIBGPUPROF := $(O)/libgpuprof.so.$(SO_MAJOR)
LIBGPUPROF_LINK := $(O)/libgpuprof.so
SO_API_OBJ := $(call obj,$(API_SRC))
SO_LIBS := $(LIB_REPORT) $(LIB_ANALYZE) $(LIB_IMPORT) $(LIB_TRACE) $(LIB_BASE)

# -z defs: every symbol resolved at link time, but in the sanitized build, whose runtime the
# program loads.
SO_LDFLAGS := $(if $(filter 1,$(SAN)),,-Wl,-z,defs)
$(LIBGPUPROF): $(SO_API_OBJ) $(SO_LIBS) api/libgpuprof.map
	$(CC) -shared $(LDFLAGS) $(SO_LDFLAGS) -Wl,--version-script=api/libgpuprof.map \
		-Wl,-soname,libgpuprof.so.$(SO_MAJOR) -o $@ \
		$(SO_API_OBJ) $(SO_LIBS) $(PKG_LIBS) -lpthread -ldl -lm
$(LIBGPUPROF_LINK): $(LIBGPUPROF)
	ln -sf libgpuprof.so.$(SO_MAJOR) $@

all: $(LIBGPUPROF_LINK)

# ---- tests of the C API: tests/unit/api/ against the shared library itself
# (the generator and the harness link trace/ and base/ statically: the library hides its copies)
UNIT_API := $(O)/tests/unit-api
UNIT_BINS += $(UNIT_API)
$(UNIT_API): $(call obj,$(wildcard tests/unit/api/*.c) tests/tools/gen.c) $(UNIT_MAIN) \
		$(LIBGPUPROF_LINK) $(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(call obj,$(wildcard tests/unit/api/*.c) tests/tools/gen.c) \
		$(UNIT_MAIN) -L$(O) -lgpuprof -Wl,-rpath,'$$ORIGIN/..' $(LIB_TRACE) $(LIB_BASE) \
		$(PKG_LIBS) -lpthread -lm

# ---- the Python module (python/, docs/python.md): make python builds $(O)/python/gpuprof, the
# package with its C half linked with the library's objects (it needs no libgpuprof.so), against
# the system interpreter's headers (PYTHON, /usr/bin/python3: Debian's python3-dev).
PYTHON ?= /usr/bin/python3
PY_INC := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
PY_PKG := $(O)/python/gpuprof
PY_CORE := $(PY_PKG)/_core.abi3.so
PY_FILES := $(PY_PKG)/__init__.py $(PY_PKG)/__init__.pyi $(PY_PKG)/py.typed

$(O)/python/_core.o: python/gpuprof/_core.c api/gpuprof.h
	@test -f "$(PY_INC)/Python.h" || { echo "python: no Python.h for $(PYTHON): install python3-dev"; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -I. -isystem $(PY_INC) -fPIC \
		-fvisibility=hidden -c $< -o $@
$(PY_CORE): $(O)/python/_core.o $(SO_API_OBJ) $(SO_LIBS) python/gpuprof/core.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -Wl,--version-script=python/gpuprof/core.map -o $@ \
		$(O)/python/_core.o $(SO_API_OBJ) $(SO_LIBS) $(PKG_LIBS) \
		-lpthread -ldl -lm
$(PY_PKG)/%: python/gpuprof/%
	@mkdir -p $(dir $@)
	cp $< $@

python: $(PY_CORE) $(PY_FILES)
.PHONY: python

# make test runs the module's tests (tests/e2e/t0030-python.sh) where the interpreter's headers are.
ifneq ($(wildcard $(PY_INC)/Python.h),)
test-build: python
endif

# gpuprof.open(...).kernels.to_pandas() on the 2.6 M-event Kineto trace (docs/performance.md).
bench-python: python
	@sh tests/bench/bench-python.sh $(O)
.PHONY: bench-python

# make install: the library, its soname link and its header (include/gpuprof/gpuprof.h).
install: install-api
install-api: $(LIBGPUPROF_LINK)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/gpuprof
	install -m 755 $(LIBGPUPROF) $(DESTDIR)$(PREFIX)/lib/libgpuprof.so.$(SO_MAJOR)
	ln -sf libgpuprof.so.$(SO_MAJOR) $(DESTDIR)$(PREFIX)/lib/libgpuprof.so
	install -m 644 api/gpuprof.h $(DESTDIR)$(PREFIX)/include/gpuprof/gpuprof.h
.PHONY: install-api
