# gpuprof - GPU profiling and trace analysis.
#
#   make                build the gpuprof command and libraries into build/
#   make test           unit and end-to-end tests, -j2 two at a time; ends with "N passed, N failed,
#                       N skipped"; T=WORDS runs those whose name holds a word (tests/tests.mk)
#   make test-failed    the tests that failed in the last run, again
#   make stress         the long forms of the stress tests
#   make check          the same suite under AddressSanitizer + UBSan, plus a bounded fuzz run
#   make bench          benchmarks (figures in docs/performance.md)
#   make fuzz           run the libFuzzer reader target (FUZZ_SECONDS, default 60)
#   make demo           the main job on a generated trace
#   make install PREFIX=/usr/local
#   make clean
#
# Plain GNU make. Debian packages that are missing are installed by
# scripts/deps.sh when run as root; otherwise it prints the command.

CC ?= gcc
PREFIX ?= /usr/local
CUDA_HOME ?= /usr/local/cuda
FUZZ_SECONDS ?= 60
O ?= build
SAN ?=

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

# The sanitized build (SAN=1) compiles at -O1 with line tables only (-g1): its reports still
# name function, file and line, for less than half the compile time of -O2 -g
# (docs/dev/testing.md, figures).
SAN_OPT ?= -O1 -g1
OPT := $(if $(filter 1,$(SAN)),$(SAN_OPT),-O2 -g)
CFLAGS_BASE := -std=gnu11 $(OPT) -Wall -Wextra -Werror -I. -DGP_VERSION='"$(VERSION)"' \
	-DGPT_HAVE_LIBDEFLATE
ifeq ($(SAN),1)
CFLAGS_BASE += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
CFLAGS ?=
CFLAGS += $(CFLAGS_BASE)

# libdeflate inflates chunks faster than zlib (docs/performance.md); the format is the same.
PKGS := zlib libdeflate sqlite3 libxml-2.0 libpcre2-8 libisal libprotobuf-c
DEPS_STAMP := $(O)/.deps-ok
# pkg-config is asked only once the dependency step has run.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -liberty

BASE_SRC := $(wildcard base/*.c)
TRACE_SRC := $(wildcard trace/*.c)
IMPORT_SRC := $(wildcard import/*.c)
ANALYZE_SRC := $(wildcard analyze/*.c)
REPORT_SRC := $(wildcard report/*.c)
API_SRC := $(wildcard api/*.c)
CLI_SRC := $(wildcard cli/*.c)
GEN_SRC := tests/tools/tracegen.c

obj = $(patsubst %.c,$(O)/%.o,$(1))

LIB_BASE := $(O)/libgpbase.a
LIB_TRACE := $(O)/libgptrace.a
LIB_IMPORT := $(O)/libgpimport.a
LIB_ANALYZE := $(O)/libgpanalyze.a
LIB_REPORT := $(O)/libgpreport.a
LIB_API := $(O)/libgpapi.a
GPUPROF := $(O)/gpuprof
TRACEGEN := $(O)/tracegen

UNIT_BASE := $(O)/tests/unit-base
UNIT_TRACE := $(O)/tests/unit-trace
UNIT_IMPORT := $(O)/tests/unit-import
UNIT_ANALYZE := $(O)/tests/unit-analyze
UNIT_REPORT := $(O)/tests/unit-report
UNIT_CLI := $(O)/tests/unit-cli
UNIT_BINS := $(UNIT_BASE) $(UNIT_TRACE) $(UNIT_IMPORT) $(UNIT_ANALYZE) $(UNIT_REPORT) $(UNIT_CLI)
BENCH_TRACE := $(O)/bench-trace


.PHONY: all deps check bench fuzz fuzz-kineto demo install clean check-layering check-headers \
	check-rules cuda-parts unit-bins
.DEFAULT_GOAL := all

all: $(GPUPROF) $(TRACEGEN) cuda-parts

$(DEPS_STAMP): scripts/deps.sh
	@mkdir -p $(O)
	@sh scripts/deps.sh
	@touch $@
deps: $(DEPS_STAMP)

# inject/build.mk builds the library when the CUDA headers are there and says so when not.
cuda-parts: inject

$(O)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

# The libraries' code is compiled once, position-independent with hidden symbols, for all
# that links it: the gpuprof command (a position-independent executable anyway, so its
# speed is the same: docs/dev/testing.md), libgpuprof.so and the Python module
# (api/build.mk), the injection library (inject/build.mk) and the tests.
LIB_SRC := $(BASE_SRC) $(TRACE_SRC) $(IMPORT_SRC) $(ANALYZE_SRC) $(REPORT_SRC) $(API_SRC)
PIC_CFLAGS := -fPIC -fvisibility=hidden
$(call obj,$(LIB_SRC)): CFLAGS += $(PIC_CFLAGS)
# A build folder whose objects predate this (compiled without PIC_CFLAGS) compiles them again.
$(call obj,$(LIB_SRC)): $(O)/.pic-objects
$(O)/.pic-objects:
	@mkdir -p $(O)
	@touch $@

$(LIB_BASE): $(call obj,$(BASE_SRC))
	@rm -f $@
	ar rcs $@ $^
$(LIB_TRACE): $(call obj,$(TRACE_SRC))
	@rm -f $@
	ar rcs $@ $^
$(LIB_IMPORT): $(call obj,$(IMPORT_SRC))
	@rm -f $@
	ar rcs $@ $^
$(LIB_ANALYZE): $(call obj,$(ANALYZE_SRC))
	@rm -f $@
	ar rcs $@ $^
# The HTML report's script and style sheet, compiled in (report/html.c).
HTML_ASSETS := report/html/report.js report/html/report.css
$(O)/gen/html-assets.c: $(HTML_ASSETS) scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh gpr_html_js report/html/report.js gpr_html_css report/html/report.css > $@.tmp
	@mv $@.tmp $@
$(O)/gen/html-assets.o: $(O)/gen/html-assets.c $(O)/.pic-objects
	$(CC) $(CFLAGS) $(PIC_CFLAGS) -c $< -o $@

# The Perfetto protobuf subset (report/proto/perfetto-trace.proto), compiled by protoc-c into
# $(O)/gen/report/proto/; sources include it as "report/proto/perfetto-trace.pb-c.h".
PROTO_GEN := $(O)/gen/report/proto/perfetto-trace.pb-c
$(PROTO_GEN).c $(PROTO_GEN).h: report/proto/perfetto-trace.proto | $(DEPS_STAMP)
	@mkdir -p $(O)/gen
	protoc-c --c_out=$(O)/gen report/proto/perfetto-trace.proto
$(PROTO_GEN).o: $(PROTO_GEN).c $(PROTO_GEN).h $(O)/.pic-objects
	$(CC) $(CFLAGS) $(PKG_CFLAGS) $(PIC_CFLAGS) -I$(O)/gen -c $< -o $@
$(O)/report/export-pftrace.o $(O)/tests/tools/pftrace-dump.o: $(PROTO_GEN).h
$(O)/report/export-pftrace.o $(O)/tests/tools/pftrace-dump.o: CFLAGS += -I$(O)/gen

$(LIB_REPORT): $(call obj,$(REPORT_SRC)) $(O)/gen/html-assets.o $(PROTO_GEN).o
	@rm -f $@
	ar rcs $@ $^

# The C API (api/): the command builds its report through it (libgpuprof.so: api/build.mk).
$(LIB_API): $(call obj,$(API_SRC))
	@rm -f $@
	ar rcs $@ $^

# analyze/ and report/ join the link once they have sources.
ALL_LIBS = $(LIB_API) $(if $(REPORT_SRC),$(LIB_REPORT)) $(if $(ANALYZE_SRC),$(LIB_ANALYZE)) $(LIB_IMPORT) \
	$(LIB_TRACE) $(LIB_BASE)

$(GPUPROF): $(call obj,$(CLI_SRC)) $(ALL_LIBS)
	$(CC) $(LDFLAGS) -o $@ $(call obj,$(CLI_SRC)) $(ALL_LIBS) $(PKG_LIBS) -ldl -lm

# --mpi: the MPI plugin, linked with OpenMPI and loaded by gpuprof only for --mpi
# (cli/mpi-load.c), so a plain run never maps OpenMPI nor needs it (docs/cluster.md).
MPI_PLUGIN := $(O)/gpuprof-mpi.so
$(MPI_PLUGIN): cli/mpi/plugin.c cli/mpi/mpi-ops.h | $(DEPS_STAMP)
	$(CC) $(CFLAGS) -fPIC -shared -fvisibility=hidden $$(pkg-config --cflags ompi-c) \
		$(LDFLAGS) -o $@ cli/mpi/plugin.c $$(pkg-config --libs ompi-c)
all: $(MPI_PLUGIN)

$(TRACEGEN): $(call obj,$(GEN_SRC) tests/tools/gen.c tests/tools/gen-nccl.c) $(LIB_TRACE) $(LIB_BASE)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# ---- tests

UNIT_MAIN := $(call obj,tests/unit/test-main.c)
$(UNIT_BASE): $(call obj,$(wildcard tests/unit/base/*.c)) $(UNIT_MAIN) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm
$(UNIT_TRACE): $(call obj,$(wildcard tests/unit/trace/*.c) tests/tools/gen.c) $(UNIT_MAIN) \
		$(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# The importers' tests link no analysis: import/ uses only trace/ and base/.
$(UNIT_IMPORT): $(call obj,$(wildcard tests/unit/import/*.c)) $(UNIT_MAIN) \
		$(LIB_IMPORT) $(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(UNIT_ANALYZE): $(call obj,$(wildcard tests/unit/analyze/*.c) tests/tools/gen.c) $(UNIT_MAIN) \
		$(LIB_ANALYZE) $(LIB_IMPORT) $(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm
$(UNIT_REPORT): $(call obj,$(wildcard tests/unit/report/*.c)) $(UNIT_MAIN) \
		$(LIB_REPORT) $(LIB_ANALYZE) $(LIB_IMPORT) $(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# The option parser of cli/, with base/ and PCRE2 alone.
$(UNIT_CLI): $(call obj,$(wildcard tests/unit/cli/*.c) cli/parse-options.c cli/message.c \
		cli/progress.c cli/threads.c cli/suggest.c) \
		$(UNIT_MAIN) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

unit-bins: $(UNIT_BINS)

# Small programs the e2e tests run from $(BUILD)/tests/ (tests/tools/*-drive.c): they call
# the libraries directly, where no command does the same.
E2E_PROGS := $(O)/tests/kineto-drive $(O)/tests/nsys-drive $(O)/tests/perfetto-drive \
	$(O)/tests/pftrace-dump $(O)/tests/demangle $(O)/tests/libfailmalloc.so
# The allocation-failure shim (tests/tools/failmalloc.c) is built without sanitizers: under
# AddressSanitizer it is preloaded before the runtime and forwards to its allocator.
$(O)/tests/libfailmalloc.so: tests/tools/failmalloc.c base/compat.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -I. -fPIC -shared -o $@ $< -ldl
$(O)/tests/demangle: $(call obj,tests/tools/demangle.c) $(LIB_ANALYZE) $(LIB_IMPORT) $(LIB_TRACE) \
		$(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm
$(O)/tests/pftrace-dump: $(O)/tests/tools/pftrace-dump.o $(PROTO_GEN).o $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm
$(O)/tests/kineto-drive $(O)/tests/nsys-drive: $(O)/tests/%: $(O)/tests/tools/%.o $(LIB_IMPORT) \
		$(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm
$(O)/tests/perfetto-drive: $(call obj,tests/tools/perfetto-drive.c) $(LIB_REPORT) $(LIB_ANALYZE) \
		$(LIB_IMPORT) $(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# tests/e2e/t0006-install.sh: a program built as a user would, against the headers and
# libraries installed under PREFIX alone. TEST_LDFLAGS: the sanitizer runtime under make check.
.PHONY: install-prog
install-prog:
	@mkdir -p $(O)/tests
	$(CC) -std=gnu11 -I$(PREFIX)/include/gpuprof tests/tools/install-prog.c \
		$(PREFIX)/lib/libgptrace.a $(PREFIX)/lib/libgpbase.a $(TEST_LDFLAGS) \
		$$(pkg-config --libs zlib libdeflate) -o $(O)/tests/install-prog

# Every allocation of reading, importing, modelling and reporting failed in turn (about
# 30,000 runs, tens of minutes; make test runs a strided sample): docs/reliability.md.
.PHONY: test-alloc-faults
test-alloc-faults: all $(E2E_PROGS)
	@cd "$$(mktemp -d "$${TMPDIR:-/tmp}/gpuprof-e2e-XXXXXX")" && GPUPROF_FAILMALLOC_FULL=1 \
		GPUPROF=$(abspath $(O))/gpuprof TRACEGEN=$(abspath $(O))/tracegen TOP=$(CURDIR) \
		BUILD=$(abspath $(O)) O=$(O) sh $(CURDIR)/tests/e2e/t0021-alloc-faults.sh

check: check-layering check-headers check-rules
	$(MAKE) O=build-san SAN=1 test
	$(MAKE) fuzz FUZZ_SECONDS=$(or $(CHECK_FUZZ_SECONDS),30)
	$(MAKE) fuzz-kineto FUZZ_SECONDS=$(or $(CHECK_FUZZ_SECONDS),30)

# Includes may only point down the table in STYLE.md section 1.
check-layering:
	@sh scripts/check-layering.sh

# The contributor rules a script can check (docs/dev/rules.md): function and header length,
# errbuf/errlen, log tags and levels, GP_BUG's place, TMPDIR through gp_tmpdir().
check-rules:
	@sh scripts/check-rules.sh

# The sample outputs of README.md and docs/*.md (between <!-- sample ... --> and
# <!-- end sample -->), rewritten from what their commands print today; t0017 fails
# when they differ. Review the diff before committing it.
DOCS_SHARED ?= ../shared
docs-samples: $(GPUPROF) $(TRACEGEN) $(MPI_PLUGIN)
	python3 scripts/docs-samples.py --build $(O) --shared $(DOCS_SHARED) README.md docs/*.md
.PHONY: docs-samples

# Every header of every module compiles on its own, and twice (its include guard): found by
# name, so a new header is checked without being listed here.
HEADER_DIRS := base trace import inject analyze report api cli
check-headers: | $(DEPS_STAMP)
	@bad=0; n=0; \
	for h in $$(find $(wildcard $(HEADER_DIRS)) -name '*.h' | LC_ALL=C sort); do \
		n=$$((n + 1)); \
		printf '#include "%s"\n#include "%s"\n' $$h $$h | \
			$(CC) $(CFLAGS) $(PKG_CFLAGS) -isystem $(CUDA_HOME)/include -fmax-errors=3 \
				-x c -fsyntax-only - || \
			{ echo "check-headers: $$h does not compile on its own"; bad=1; }; \
	done; \
	[ $$bad = 0 ] && echo "check-headers: ok ($$n headers)"

# ---- fuzzing (clang + libFuzzer)

FUZZ_BIN := $(O)/fuzz/fuzz-reader
$(FUZZ_BIN): tests/fuzz/fuzz-reader.c $(BASE_SRC) $(TRACE_SRC) | $(DEPS_STAMP)
	@sh scripts/deps.sh fuzz
	@mkdir -p $(dir $@)
	clang -std=gnu11 -g -O1 -I. -DGPT_HAVE_LIBDEFLATE -fsanitize=fuzzer,address,undefined $^ \
		-o $@ $$(pkg-config --libs zlib libdeflate)

fuzz: $(FUZZ_BIN) $(TRACEGEN)
	@sh tests/fuzz/run-fuzz.sh $(FUZZ_BIN) $(TRACEGEN) $(FUZZ_SECONDS)

# The Kineto JSON importer, plain and gzipped inputs.
FUZZ_KINETO_BIN := $(O)/fuzz/fuzz-kineto
$(FUZZ_KINETO_BIN): tests/fuzz/fuzz-kineto.c $(IMPORT_SRC) $(BASE_SRC) $(TRACE_SRC) | $(DEPS_STAMP)
	@sh scripts/deps.sh fuzz
	@mkdir -p $(dir $@)
	clang -std=gnu11 -g -O1 -I. -DGPT_HAVE_LIBDEFLATE -fsanitize=fuzzer,address,undefined $^ \
		-o $@ $$(pkg-config --libs zlib libdeflate libisal sqlite3)

fuzz-kineto: $(FUZZ_KINETO_BIN)
	@sh tests/fuzz/run-fuzz-kineto.sh $(FUZZ_KINETO_BIN) $(FUZZ_SECONDS)

# ---- benchmarks

$(BENCH_TRACE): $(call obj,tests/bench/bench-trace.c tests/tools/gen.c) $(LIB_TRACE) $(LIB_BASE)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

BENCH_REPORT := $(O)/bench-report
$(BENCH_REPORT): $(call obj,tests/bench/bench-report.c tests/tools/gen.c) $(LIB_TRACE) $(LIB_BASE)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

BENCH_FLAME := $(O)/bench-flame
$(BENCH_FLAME): $(call obj,tests/bench/bench-flame.c tests/tools/gen.c) $(LIB_REPORT) $(LIB_ANALYZE) \
		$(LIB_IMPORT) $(LIB_TRACE) $(LIB_BASE)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

BENCH_LOAD := $(O)/bench-load
$(BENCH_LOAD): $(call obj,tests/bench/bench-load.c) $(LIB_ANALYZE) $(LIB_IMPORT) $(LIB_TRACE) \
		$(LIB_BASE)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

bench: $(BENCH_TRACE) $(BENCH_REPORT) $(BENCH_FLAME) $(GPUPROF) $(TRACEGEN) $(MPI_PLUGIN)
	$(BENCH_TRACE)
	$(BENCH_REPORT) $(GPUPROF) 10 3
	@sh tests/bench/bench-import.sh $(GPUPROF)
	@sh tests/bench/bench-html.sh $(abspath $(GPUPROF)) $(abspath $(TRACEGEN))
	@sh tests/bench/bench-diff.sh $(GPUPROF) $(TRACEGEN)
	@sh tests/bench/bench-comm.sh $(GPUPROF) $(TRACEGEN)
	@sh tests/bench/bench-mpi.sh $(GPUPROF) $(TRACEGEN)
	$(BENCH_FLAME) 10000000 3

# Reading on 1 and 2 threads: the floor, the model load, report (tests/bench/bench-threads.sh).
bench-threads: $(BENCH_LOAD) $(GPUPROF) $(TRACEGEN)
	@sh tests/bench/bench-threads.sh $(GPUPROF) $(TRACEGEN) $(BENCH_LOAD)
bench: bench-threads
.PHONY: bench-threads

# Perfetto export, JSON and .pftrace: sizes, times (tests/bench/bench-pftrace.sh).
bench-pftrace: $(GPUPROF) $(TRACEGEN)
	@sh tests/bench/bench-pftrace.sh $(GPUPROF) $(TRACEGEN)
bench: bench-pftrace
.PHONY: bench-pftrace

# Load, report and flame on 1 and 2 threads, the floor beside them (tests/bench/bench-scaling.sh);
# diff of 10 vs 10 runs on 1 and 2 threads.
bench-scaling: $(BENCH_LOAD) $(GPUPROF) $(TRACEGEN)
	@sh tests/bench/bench-scaling.sh $(GPUPROF) $(TRACEGEN) $(BENCH_LOAD)
	@BENCH_DIFF_THREADS="1 2" sh tests/bench/bench-diff.sh $(GPUPROF) $(TRACEGEN)
.PHONY: bench-scaling

# report and flame of another build (BEFORE=path to its gpuprof) against this one, interleaved,
# on ten million events (tests/bench/bench-vs.sh; docs/performance.md).
bench-vs: $(GPUPROF) $(TRACEGEN)
	@test -n "$(BEFORE)" || { echo "bench-vs: give BEFORE=path to the gpuprof to compare with"; exit 2; }
	@BEFORE_REV="$(BEFORE_REV)" sh tests/bench/bench-vs.sh $(BEFORE) $(GPUPROF) $(TRACEGEN)
.PHONY: bench-vs

# Kineto and nsys inputs (import, model, report) of another build against this one, interleaved
# (tests/bench/bench-inputs.sh; docs/dev/performance-history.md).
bench-inputs: $(GPUPROF)
	@test -n "$(BEFORE)" || { echo "bench-inputs: give BEFORE=path to the gpuprof to compare with"; exit 2; }
	@sh tests/bench/bench-inputs.sh $(BEFORE) $(GPUPROF)
.PHONY: bench-inputs

# Kineto JSON import alone (in-process), per anchor: tests/bench/bench-kineto.sh.
BENCH_KINETO := $(O)/bench-kineto
$(BENCH_KINETO): $(call obj,tests/bench/bench-kineto.c) $(LIB_IMPORT) $(LIB_TRACE) $(LIB_BASE)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm
bench-kineto: $(BENCH_KINETO) $(GPUPROF)
	@sh tests/bench/bench-kineto.sh $(BENCH_KINETO) $(GPUPROF)
	@sh tests/bench/bench-kineto-report.sh $(BENCH_KINETO) $(GPUPROF)
bench: bench-kineto
.PHONY: bench-kineto

# breakdown --compat hta and report of another build (BEFORE=path to its gpuprof, BEFORE_REV=its
# commit) against this one, interleaved, on an inference anchor replicated to 2.6 M events
# (tests/bench/bench-kineto-vs.sh; docs/performance.md).
bench-kineto-vs: $(GPUPROF)
	@test -n "$(BEFORE)" || { echo "bench-kineto-vs: give BEFORE=path to the gpuprof to compare with"; exit 2; }
	@BEFORE_REV="$(BEFORE_REV)" sh tests/bench/bench-kineto-vs.sh $(BEFORE) $(GPUPROF) $(or $(RUNS),5)
.PHONY: bench-kineto-vs

# gpuprof ops on about 1 M events with recorded shapes (tests/bench/bench-ops.sh).
bench-ops: $(GPUPROF)
	@sh tests/bench/bench-ops.sh $(GPUPROF)
bench: bench-ops
.PHONY: bench-ops

# gpuprof critical-path on the 1 M-event trace: per step, window, what-if.
bench-critpath: $(GPUPROF) $(TRACEGEN)
	@sh tests/bench/bench-critpath.sh $(GPUPROF) $(TRACEGEN)
bench: bench-critpath
.PHONY: bench-critpath

# gpuprof memory on 10 M allocator events; the recorder's cost per allocation.
bench-memory: $(GPUPROF) $(TRACEGEN)
	@sh tests/bench/bench-memory.sh $(O)
bench: bench-memory
.PHONY: bench-memory

# The job report of 64 ranks: one process, and mpirun -n 1, 2, 4 (docs/cluster.md).
bench-mpi: $(GPUPROF) $(TRACEGEN) $(MPI_PLUGIN)
	@sh tests/bench/bench-mpi.sh $(GPUPROF) $(TRACEGEN)
.PHONY: bench-mpi

# .gpz size against the gzipped Kineto JSON per anchor (fixed overhead vs payload).
bench-gpz-size: $(GPUPROF)
	@sh tests/bench/bench-gpz-size.sh $(GPUPROF)
bench: bench-gpz-size
.PHONY: bench-gpz-size

# ---- the main job

demo: all
	@sh scripts/demo.sh $(O)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/doc/gpuprof
	install -m 755 $(GPUPROF) $(DESTDIR)$(PREFIX)/bin/gpuprof
	install -d $(DESTDIR)$(PREFIX)/lib/gpuprof
	install -m 755 $(MPI_PLUGIN) $(DESTDIR)$(PREFIX)/lib/gpuprof/gpuprof-mpi.so
	install -m 644 $(LIB_TRACE) $(LIB_BASE) $(DESTDIR)$(PREFIX)/lib/
	install -d $(DESTDIR)$(PREFIX)/include/gpuprof/base $(DESTDIR)$(PREFIX)/include/gpuprof/trace
	install -m 644 base/base.h base/compat.h $(DESTDIR)$(PREFIX)/include/gpuprof/base/
	install -m 644 trace/trace.h trace/records.h $(DESTDIR)$(PREFIX)/include/gpuprof/trace/
	$(GPUPROF) help --man > $(DESTDIR)$(PREFIX)/share/man/man1/gpuprof.1
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions
	$(GPUPROF) completion bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/gpuprof
	$(GPUPROF) completion zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_gpuprof
	install -m 644 trace/FORMAT.md README.md $(DESTDIR)$(PREFIX)/share/doc/gpuprof/
	install -m 644 docs/*.md $(DESTDIR)$(PREFIX)/share/doc/gpuprof/

clean:
	rm -rf build build-san

-include $(shell find $(O) -name '*.d' 2>/dev/null)

# The recording side: libgpuprof-inject.so, the fake CUDA stack, samples (needs CUDA_HOME).
-include inject/build.mk
# libgpuprof.so, its C API, and the Python module (make python): api/build.mk
include api/build.mk

# ---- occupancy: our calculator against the toolkit's cuda_occupancy.h, when it is installed
UNIT_OCC_ORACLE := $(O)/tests/unit-occ-oracle
ifneq ($(wildcard $(CUDA_HOME)/include/cuda_occupancy.h),)
UNIT_BINS += $(UNIT_OCC_ORACLE)
test-build unit-bins: $(UNIT_OCC_ORACLE)
endif
$(O)/tests/unit/occupancy/test-occ-oracle.o: CFLAGS += -isystem $(CUDA_HOME)/include
$(UNIT_OCC_ORACLE): $(call obj,tests/unit/occupancy/test-occ-oracle.c analyze/occupancy-calc.c) \
		$(UNIT_MAIN) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

# Occupancy of every launch of a 10-million-kernel trace (docs/performance.md).
BENCH_OCCUPANCY := $(O)/bench-occupancy
$(BENCH_OCCUPANCY): $(call obj,tests/bench/bench-occupancy.c tests/tools/gen.c) $(LIB_ANALYZE) \
		$(LIB_IMPORT) $(LIB_TRACE) $(LIB_BASE)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm
.PHONY: bench-occupancy
bench-occupancy: $(BENCH_OCCUPANCY)
	$(BENCH_OCCUPANCY) 10000000 3
bench: bench-occupancy

# ---- the test loop: every test a target (make test, test-failed, stress)
include tests/tests.mk
