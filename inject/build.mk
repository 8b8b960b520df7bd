# inject/build.mk - libgpuprof-inject.so, the fake CUDA stack, their tests,
# benchmarks and the CUDA samples. Included by the top-level Makefile after
# its own variables (O, CC, CFLAGS, LDFLAGS, CUDA_HOME, SAN, obj, ...).
#
#   make inject          the library, the fake stack and the test programs
#   make samples         the CUDA samples (nvcc; they run only on a GPU)
#   make test-gpu        tests/gpu/run.sh (a machine with an NVIDIA GPU)
#   make bench-inject    the NVTX and writer-thread benchmarks
#
# The library is compiled position-independent with hidden visibility into
# $(O)/pic/, and linked with base/ and trace/'s objects, compiled the same way
# for every program that links them; inject/inject.map exports only the entry
# points. Without the CUDA headers these targets print one line and
# build nothing (the e2e tests then skip).

INJ_CUDA_INC := $(CUDA_HOME)/include
INJ_HAVE := $(shell test -f $(INJ_CUDA_INC)/cupti.h && test -f $(INJ_CUDA_INC)/nvtx3/nvToolsExt.h && echo 1)
NVCC ?= $(CUDA_HOME)/bin/nvcc

INJ_SRC := $(wildcard inject/*.c)
INJ_PIC_OBJ := $(patsubst %.c,$(O)/pic/%.o,$(INJ_SRC))
# base/ and trace/: the objects the command links, compiled position-independent with hidden
# symbols once (the Makefile's PIC_CFLAGS).
INJ_DEP_PIC_OBJ := $(call obj,$(BASE_SRC) $(filter-out trace/reader.c trace/prefetch.c,$(TRACE_SRC)))
INJ_LIB := $(O)/libgpuprof-inject.so
INJ_AR := $(O)/libgpinject-pic.a
INJ_LIBS := $(shell pkg-config --libs zlib 2>/dev/null || echo -lz) -lpthread -ldl -lm
INJ_CFLAGS := -fPIC -isystem $(INJ_CUDA_INC)

FAKE_DIR := $(O)/fakecuda
FAKE_CUPTI := $(FAKE_DIR)/libcupti.so.13
FAKE_CUDA := $(FAKE_DIR)/libcuda.so.1
FAKE_TOOLS := $(O)/tests/fakecuda-run $(O)/tests/check-trace $(O)/tests/nvtx-threads \
	$(O)/tests/life $(O)/tests/demo-train $(O)/tests/flight-train $(O)/tests/bt-prog-fp $(O)/tests/bt-prog-nofp \
	$(O)/tests/stack-frames $(O)/tests/libfailwrite.so
UNIT_INJECT := $(O)/tests/unit-inject
BENCH_INJECT := $(O)/bench-inject-nvtx $(O)/bench-inject-writer $(O)/bench-backtrace \
	$(O)/bench-nccl $(O)/bench-nvtx-rate $(O)/bench-inject-memory $(O)/bench-gemm

# nodelete: NVTX dlcloses an injection that declines, and CUDA may too; our
# exit handler and writer thread must never find their code unmapped.
ifeq ($(SAN),1)
INJ_SO_LDFLAGS := -Wl,-z,nodelete
else
INJ_SO_LDFLAGS := -Wl,-z,defs -Wl,-z,nodelete
endif

.PHONY: inject inject-test-bins bench-inject samples test-gpu install-inject

ifeq ($(INJ_HAVE),1)

inject: $(INJ_LIB) $(FAKE_CUPTI) $(FAKE_CUDA) $(FAKE_TOOLS)
inject-test-bins: inject $(UNIT_INJECT)

$(O)/pic/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) $(INJ_CFLAGS) -fvisibility=hidden -MMD -MP -c $< -o $@

# The API callback and the stack walk keep frame pointers, so a frame-pointer
# walk leaves this library along a valid chain (docs/backtrace.md).
$(O)/pic/inject/backtrace.o $(O)/pic/inject/cupti.o: CFLAGS += -fno-omit-frame-pointer

$(INJ_LIB): $(INJ_PIC_OBJ) $(INJ_DEP_PIC_OBJ) inject/inject.map
	$(CC) -shared $(LDFLAGS) $(INJ_SO_LDFLAGS) -Wl,--version-script=inject/inject.map \
		-Wl,-soname,libgpuprof-inject.so -o $@ $(INJ_PIC_OBJ) $(INJ_DEP_PIC_OBJ) $(INJ_LIBS)

# The same objects as an archive, for unit tests and benchmarks that call internals.
$(INJ_AR): $(INJ_PIC_OBJ) $(INJ_DEP_PIC_OBJ)
	@rm -f $@
	ar rcs $@ $^

# ---- the fake CUDA stack (tests/fakecuda/, reference/cupti.md section 8)

$(O)/tests/fakecuda/%.o: CFLAGS += $(INJ_CFLAGS)
# The fake driver, CUPTI and runtime keep frame pointers, so a frame-pointer
# walk from the API callback can reach the program (docs/backtrace.md).
$(call obj,tests/fakecuda/fake-cupti.c tests/fakecuda/fake-cuda.c tests/fakecuda/sim.c): \
	CFLAGS += -fno-omit-frame-pointer
$(O)/tests/unit/inject/%.o: CFLAGS += $(INJ_CFLAGS)
$(O)/tests/bench/bench-inject-%.o: CFLAGS += $(INJ_CFLAGS)

$(FAKE_CUPTI): $(call obj,tests/fakecuda/fake-cupti.c) tests/fakecuda/libcupti.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -Wl,--version-script=tests/fakecuda/libcupti.map \
		-Wl,-soname,libcupti.so.13 -o $@ $(call obj,tests/fakecuda/fake-cupti.c) -lpthread
	@ln -sf libcupti.so.13 $(FAKE_DIR)/libcupti.so

$(FAKE_CUDA): $(call obj,tests/fakecuda/fake-cuda.c)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libcuda.so.1 -o $@ $^ -ldl -lpthread

FAKE_SIM_OBJ := $(call obj,tests/fakecuda/sim.c tests/fakecuda/rectext.c)

# Writes that fail on a full disk or a bad device, for the fault-injection tests.
$(O)/tests/libfailwrite.so: $(call obj,tests/fakecuda/failwrite.c)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -o $@ $^ -ldl

$(O)/tests/fakecuda-run: $(call obj,tests/fakecuda/fakecuda-run.c) $(FAKE_SIM_OBJ) $(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -ldl -lpthread -lm
$(O)/tests/check-trace: $(call obj,tests/fakecuda/check-trace.c tests/fakecuda/rectext.c) \
		$(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm
$(O)/tests/nvtx-threads: $(call obj,tests/fakecuda/nvtx-threads.c) $(FAKE_SIM_OBJ) $(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -ldl -lpthread -lm
$(O)/tests/life: $(call obj,tests/fakecuda/life.c) $(FAKE_SIM_OBJ) $(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -ldl -lpthread -lm
$(O)/tests/demo-train: $(call obj,tests/fakecuda/demo-train.c) $(FAKE_SIM_OBJ) $(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -ldl -lpthread -lm
$(O)/tests/flight-train: $(call obj,tests/fakecuda/flight-train.c) $(FAKE_SIM_OBJ) $(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -ldl -lpthread -lm

# Launches from known functions, with and without frame pointers (call-stack tests).
BT_PROG_OBJ := $(O)/tests/fakecuda/bt-prog-fp.o $(O)/tests/fakecuda/bt-prog-nofp.o
$(BT_PROG_OBJ): $(O)/tests/fakecuda/bt-prog-%.o: tests/fakecuda/bt-prog.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) $(INJ_CFLAGS) $(if $(filter fp,$*),-fno-omit-frame-pointer,-fomit-frame-pointer) \
		-MMD -MP -c $< -o $@
$(O)/tests/bt-prog-fp $(O)/tests/bt-prog-nofp: $(O)/tests/bt-prog-%: $(O)/tests/fakecuda/bt-prog-%.o \
		$(FAKE_SIM_OBJ) $(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -ldl -lpthread -lm

$(O)/tests/stack-frames: $(call obj,tests/fakecuda/stack-frames.c) $(LIB_ANALYZE) $(LIB_IMPORT) \
		$(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# ---- the fake NCCL (tests/fakenccl/): a plugin driver and a libnccl.so.2 for interposition

FAKE_NCCL := $(FAKE_DIR)/nccl/libnccl.so.2
NCCL_TOOLS := $(O)/tests/nccl-plugin-drive $(O)/tests/nccl-app
$(O)/tests/fakenccl/%.o: CFLAGS += $(INJ_CFLAGS)

$(FAKE_NCCL): $(call obj,tests/fakenccl/fake-nccl.c)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libnccl.so.2 -o $@ $^
	@ln -sf libnccl.so.2 $(FAKE_DIR)/nccl/libnccl.so

$(O)/tests/nccl-plugin-drive: $(call obj,tests/fakenccl/nccl-plugin-drive.c)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -ldl -lpthread

$(O)/tests/nccl-app: $(call obj,tests/fakenccl/nccl-app.c) $(FAKE_NCCL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(call obj,tests/fakenccl/nccl-app.c) -L$(FAKE_DIR)/nccl -lnccl

inject: $(FAKE_NCCL) $(NCCL_TOOLS)

# ---- the fake cuBLAS (tests/fakecublas/): libcublas.so.13 and libcublasLt.so.13 for interposition

FAKE_CUBLAS_DIR := $(FAKE_DIR)/cublas
FAKE_CUBLASLT := $(FAKE_CUBLAS_DIR)/libcublasLt.so.13
FAKE_CUBLAS := $(FAKE_CUBLAS_DIR)/libcublas.so.13
$(O)/tests/fakecublas/%.o: CFLAGS += $(INJ_CFLAGS)

$(FAKE_CUBLASLT): $(call obj,tests/fakecublas/fake-cublaslt.c)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libcublasLt.so.13 -o $@ $^ -ldl
	@ln -sf libcublasLt.so.13 $(FAKE_CUBLAS_DIR)/libcublasLt.so

$(FAKE_CUBLAS): $(call obj,tests/fakecublas/fake-cublas.c) $(FAKE_CUBLASLT)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libcublas.so.13 -o $@ $(call obj,tests/fakecublas/fake-cublas.c) \
		-L$(FAKE_CUBLAS_DIR) -lcublasLt
	@ln -sf libcublas.so.13 $(FAKE_CUBLAS_DIR)/libcublas.so

# -rdynamic: the fake cuBLAS launches its kernels through the program's fakecublas_launch.
$(O)/tests/gemm-app: $(call obj,tests/fakecublas/gemm-app.c) $(FAKE_SIM_OBJ) $(LIB_TRACE) $(LIB_BASE) \
		$(FAKE_CUBLAS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -rdynamic -o $@ $(call obj,tests/fakecublas/gemm-app.c) $(FAKE_SIM_OBJ) \
		$(LIB_TRACE) $(LIB_BASE) -L$(FAKE_CUBLAS_DIR) -lcublas -lcublasLt $(PKG_LIBS) -ldl -lpthread -lm

inject: $(FAKE_CUBLAS) $(O)/tests/gemm-app

$(O)/tests/bench/bench-gemm.o: CFLAGS += $(INJ_CFLAGS)
$(O)/bench-gemm: $(call obj,tests/bench/bench-gemm.c) $(FAKE_SIM_OBJ) $(LIB_TRACE) $(LIB_BASE) $(FAKE_CUBLAS)
	$(CC) $(LDFLAGS) -o $@ $(call obj,tests/bench/bench-gemm.c) $(FAKE_SIM_OBJ) $(LIB_TRACE) \
		$(LIB_BASE) -L$(FAKE_CUBLAS_DIR) -lcublas -lcublasLt $(PKG_LIBS) -ldl -lpthread -lm

# interposition cost per GEMM call (docs/performance.md)
.PHONY: bench-gemm
bench-gemm: $(O)/bench-gemm $(INJ_LIB)
	sh tests/bench/bench-gemm.sh $(O)

$(UNIT_INJECT): $(call obj,$(wildcard tests/unit/inject/*.c)) $(UNIT_MAIN) $(INJ_AR) $(LIB_TRACE) $(LIB_BASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(call obj,$(wildcard tests/unit/inject/*.c)) $(UNIT_MAIN) \
		$(INJ_AR) $(LIB_TRACE) $(LIB_BASE) $(PKG_LIBS) $(INJ_LIBS)

# ---- benchmarks (figures in docs/recording.md)

$(O)/bench-inject-nvtx: $(call obj,tests/bench/bench-inject-nvtx.c) $(LIB_BASE)
	$(CC) $(LDFLAGS) -o $@ $^ -ldl -lpthread -lm
$(O)/tests/bench/bench-nvtx-rate.o: CFLAGS += $(INJ_CFLAGS)
$(O)/bench-nvtx-rate: $(call obj,tests/bench/bench-nvtx-rate.c) $(LIB_TRACE) $(LIB_BASE)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -ldl -lpthread -lm
$(O)/bench-inject-writer: $(call obj,tests/bench/bench-inject-writer.c) $(INJ_AR)
	$(CC) $(LDFLAGS) -o $@ $^ $(INJ_LIBS)

$(O)/bench-inject-memory: $(call obj,tests/bench/bench-inject-memory.c) $(INJ_AR)
	$(CC) $(LDFLAGS) -o $@ $^ $(INJ_LIBS)
# gpuprof memory's bench (Makefile) measures the recorder's cost per allocation with it
bench-memory: $(O)/bench-inject-memory $(INJ_LIB) $(FAKE_TOOLS) $(FAKE_CUPTI) $(FAKE_CUDA)

$(O)/bench-backtrace: $(call obj,tests/bench/bench-backtrace.c) $(INJ_AR)
	$(CC) $(LDFLAGS) -o $@ $^ $(INJ_LIBS)
$(O)/tests/bench/bench-backtrace.o: CFLAGS += -fno-omit-frame-pointer

$(O)/tests/bench/bench-nccl.o: CFLAGS += $(INJ_CFLAGS)
$(O)/bench-nccl: $(call obj,tests/bench/bench-nccl.c) $(LIB_BASE) $(FAKE_NCCL)
	$(CC) $(LDFLAGS) -o $@ $(call obj,tests/bench/bench-nccl.c) $(LIB_BASE) -L$(FAKE_DIR)/nccl -lnccl -ldl -lm

bench-inject: $(BENCH_INJECT) $(INJ_LIB)
	$(O)/bench-inject-nvtx $(INJ_LIB)
	$(O)/bench-inject-writer
	$(O)/bench-nvtx-rate $(INJ_LIB)
	$(O)/bench-backtrace
	$(O)/bench-backtrace fp
	sh tests/bench/bench-backtrace.sh $(O)
	sh tests/bench/bench-nccl.sh $(O)
	sh tests/bench/bench-gemm.sh $(O)

# gpuprof record finds the library in ../lib/gpuprof/ next to bin/gpuprof.
install-inject: $(INJ_LIB)
	install -d $(DESTDIR)$(PREFIX)/lib/gpuprof
	install -m 755 $(INJ_LIB) $(DESTDIR)$(PREFIX)/lib/gpuprof/libgpuprof-inject.so

else

inject inject-test-bins bench-inject install-inject:
	@echo "CUDA headers not found under $(CUDA_HOME) (set CUDA_HOME): skipping inject/"

endif

# ---- CUDA samples (nvcc) and the GPU check

SAMPLES_CU := $(wildcard samples/*.cu)
# the NCCL sample needs the toolkit's NCCL (nccl.h, libnccl)
NCCL_LIBDIR := $(firstword $(dir $(wildcard $(CUDA_HOME)/lib/libnccl.so $(CUDA_HOME)/lib64/libnccl.so \
	/usr/lib/x86_64-linux-gnu/libnccl.so /usr/lib/aarch64-linux-gnu/libnccl.so)))
ifeq ($(and $(wildcard $(INJ_CUDA_INC)/nccl.h),$(NCCL_LIBDIR)),)
SAMPLES_CU := $(filter-out samples/nccl-allreduce.cu,$(SAMPLES_CU))
endif
SAMPLES_BIN := $(patsubst samples/%.cu,$(O)/samples/%,$(SAMPLES_CU))
SAMPLES_ARCH ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_90,code=compute_90
SAMPLES_NVCCFLAGS := -O2 -std=c++17 -lineinfo -I$(INJ_CUDA_INC) $(SAMPLES_ARCH)

ifneq ($(wildcard $(NVCC)),)
samples: $(SAMPLES_BIN)
$(O)/samples/%: samples/%.cu samples/common.h
	@mkdir -p $(dir $@)
	$(NVCC) $(SAMPLES_NVCCFLAGS) -o $@ $< $(if $(filter train-step,$*),-lcublas) \
		$(if $(filter occupancy,$*),-maxrregcount=64) \
		$(if $(filter nccl-allreduce,$*),-L$(NCCL_LIBDIR) -lnccl -Xlinker -rpath -Xlinker $(NCCL_LIBDIR))
else
samples:
	@echo "nvcc not found at $(NVCC) (set CUDA_HOME): skipping samples/"
endif

test-gpu: all
	@O=$(O) sh tests/gpu/run.sh

# ---- hooks into the top-level targets

all: inject
install: install-inject
test-build: inject-test-bins
UNIT_BINS += $(if $(filter 1,$(INJ_HAVE)),$(UNIT_INJECT))
bench: bench-inject
