# tests/tests.mk - the test loop: every test a make target (docs/dev/testing.md).
#
#   make -j2 test            every unit binary and e2e script, two at a time
#   make test T='t1101 kineto'   only the tests whose name holds one of the words
#   make test-failed         again the tests that failed in the last run
#   make stress              the long forms of the stress tests (TESTS_STRESS)
#   make test SUITE=ci-san   the part CI runs under the sanitizers, SUITE=ci-plain the rest,
#                            the full anchor sweeps (TESTS_SWEEP) and the browser checks
#                            (TESTS_BROWSER)
#
# Each test's result lands in $(TEST_RESULTS)/NAME.res (tests/run-one.sh); tests/summary.sh
# adds them up, shows the failures' output and ends with "N passed, N failed, N skipped".
# Included last by the Makefile, once UNIT_BINS has every unit binary.

TEST_RESULTS ?= $(O)/test-results
T ?=
SUITE ?= all

TEST_UNIT_NAMES := $(notdir $(UNIT_BINS))
TEST_E2E_NAMES := $(patsubst tests/e2e/%.sh,%,$(wildcard tests/e2e/t[0-9][0-9][0-9][0-9]-*.sh))

# Started first, slowest first, so that two at a time ends on short tests rather than on
# one long one left alone (docs/dev/testing.md): the order of the last run's times in this
# build folder (TEST_RESULTS/times, "WALL CPU NAME", the longest wall time first), a test
# it did not time (new, or outside that run's T) after them: first those among the slowest
# of a timed run, below, the order a clean clone (CI) gets, then the rest.
TESTS_FIRST := t2510-export-pftrace t2520-launches-hta unit-trace t5009-mpi-anchors \
	t2302-report-classify-anchors unit-analyze t3001-html-report t1110-flight \
	t3005-implausible-every-command t0020-memory-bombs unit-import t3103-output-inputs \
	t3101-output-files t3004-text-every-anchor t0015-kineto-inputs-threads \
	t2705-flame-anchors t0021-alloc-faults t0012-threads t0019-exit-status-all
TEST_TIMES_LAST := $(wildcard $(TEST_RESULTS)/times)
TESTS_TIMED := $(if $(TEST_TIMES_LAST),$(shell sort -k1,1rn $(TEST_TIMES_LAST) | awk '{ print $$3 }'))
TESTS_FIRST := $(TESTS_TIMED) $(filter-out $(TESTS_TIMED),$(TESTS_FIRST))

# CI runs each test once: these on the plain build (SUITE=ci-plain), every other one under
# AddressSanitizer + UBSan (SUITE=ci-san). docs/dev/testing.md has the reasons:
# 1. forks, signals and clocks: a sanitizer's slower threads and its fork (GCC 12's ASan
#    does not hold its allocator across fork) change what they measure;
TESTS_CI_PLAIN := t0009-progress t0012-threads t0016-kineto-side-thread t1030-signal-term \
	t1031-sigkill t1032-exit-thread t1033-fork t1034-exec t1042-nvtx-burst t1051-capture \
	t1100-faults t1101-sigkill-random
# 2. their time goes to another program (the compiler, OpenMPI's launcher);
TESTS_CI_PLAIN += t0006-install t5003-job-mpi t5007-diff-mpi t5008-critical-path-mpi \
	t5009-mpi-anchors
# 3. the report of every anchor again, at other widths and in every format: the same C
#    paths t2302-report-classify-anchors and the analyses' anchor tests run sanitized.
TESTS_CI_PLAIN += t3003-text-width t3004-text-every-anchor
# 4. the flight recorder: signals, a crash, a socket, two processes, and step times it judges
#    against their median (a sanitizer's slower threads make normal steps look slow).
TESTS_CI_PLAIN += t1110-flight
# 5. the Python module: loaded into Debian's interpreter, which is not sanitized.
TESTS_CI_PLAIN += t0030-python
# 6. the README's commands: the demo records a forked program through the injection
#    library (fork, as in 1.) and the cluster example runs under OpenMPI's launcher (as in 2.).
TESTS_CI_PLAIN += t0041-readme-commands

# The tests that sweep every anchor with one command or analysis (they call lib.sh's
# anchor_swept), or one check over many items (sweep_widths, sweep_sampled): in CI they
# run in both halves, sanitized on the anchors under 1 MB, at one terminal width per
# anchor and on one item in three (GPUPROF_ANCHOR_SWEEP=small), plain on every anchor,
# width and item. The import and the report's analyses of every anchor run sanitized in
# t2302-report-classify-anchors.
TESTS_SWEEP := $(patsubst tests/e2e/%.sh,%,$(shell grep -l -e anchor_swe -e sweep_ \
	-e GPUPROF_ANCHOR_SWEEP tests/e2e/t[0-9][0-9][0-9][0-9]-*.sh))

# The tests that load our output into a browser (they call lib.sh's browser_checks): in CI
# they run in both halves, without the browser under the sanitizers (GPUPROF_BROWSER=0),
# whole in the plain half. Chromium's time is its own; what we wrote runs sanitized.
TESTS_BROWSER := $(patsubst tests/e2e/%.sh,%,$(shell grep -l -e browser_checks \
	tests/e2e/t[0-9][0-9][0-9][0-9]-*.sh))

# Their long forms, under GPUPROF_STRESS=1 (make stress); make test runs a short one.
TESTS_STRESS := t1101-sigkill-random unit-trace

TEST_SUITE_all := $(TEST_UNIT_NAMES) $(TEST_E2E_NAMES)
TEST_STALE := $(filter-out $(TEST_SUITE_all),$(TESTS_CI_PLAIN) $(TESTS_STRESS))
$(if $(TEST_STALE),$(warning tests/tests.mk names tests that do not exist: $(TEST_STALE)))
TEST_SUITE_ci-plain := $(filter $(TESTS_CI_PLAIN) $(TESTS_SWEEP) $(TESTS_BROWSER),$(TEST_SUITE_all))
TEST_SUITE_ci-san := $(filter-out $(TESTS_CI_PLAIN),$(TEST_SUITE_all))
TEST_SUITE := $(TEST_SUITE_$(SUITE))
# test_match NAME: NAME when T is empty or one of T's words is part of it
test_match = $(if $(T),$(if $(strip $(foreach p,$(T),$(findstring $(p),$(1)))),$(1)),$(1))
TEST_PICKED := $(foreach n,$(TEST_SUITE),$(call test_match,$(n)))
TEST_SEL := $(foreach n,$(TESTS_FIRST),$(filter $(n),$(TEST_PICKED))) \
	$(filter-out $(TESTS_FIRST),$(TEST_PICKED))
TEST_SEL := $(strip $(TEST_SEL))

test_res = $(addprefix $(TEST_RESULTS)/,$(addsuffix .res,$(1)))
TEST_UNIT_RES := $(call test_res,$(filter $(TEST_UNIT_NAMES),$(TEST_SEL)))
TEST_E2E_RES := $(call test_res,$(filter $(TEST_E2E_NAMES),$(TEST_SEL)))

.PHONY: test test-build test-failed test-force stress

# Everything a test runs, built before the first test starts. $(O)/tests/bin/python3: the
# interpreter python3 names, found once, first in the tests' PATH (tests/run-one.sh): a
# version manager's python3 (pyenv's shim) is a shell script that costs 0.4 CPU seconds a
# call, against 0.1 for the interpreter, and the tests call python3 hundreds of times.
test-build: all $(UNIT_BINS) $(E2E_PROGS)
	@sh scripts/deps.sh test
	@mkdir -p $(O)/tests/bin && rm -f $(O)/tests/bin/python3 && \
		p=$$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && \
		[ -x "$$p" ] && ln -s "$$p" $(O)/tests/bin/python3 || true

test: $(call test_res,$(TEST_SEL))
	$(if $(TEST_SEL),,$(error no test in SUITE=$(SUITE) matches T=$(T)))
	@sh tests/summary.sh $(TEST_RESULTS) $(TEST_SEL)

$(TEST_UNIT_RES): $(TEST_RESULTS)/%.res: $(O)/tests/% test-force | test-build
	@O=$(O) sh tests/run-one.sh unit $< $@
# sweep_env NAME: the sweep of the anchors NAME makes (tests/e2e/lib.sh's anchor_swept, its
# share of many items: sweep_widths, sweep_sampled) and whether it runs its browser checks
# (browser_checks): the short forms in CI's sanitized half
san_half = $(and $(filter ci-san,$(SUITE)),$(filter $(1),$(2)))
sweep_env = GPUPROF_ANCHOR_SWEEP=$(if $(call san_half,$(1),$(TESTS_SWEEP)),small,all) \
	GPUPROF_BROWSER=$(if $(call san_half,$(1),$(TESTS_BROWSER)),0,1)

$(TEST_E2E_RES): $(TEST_RESULTS)/%.res: tests/e2e/%.sh test-force | test-build
	@O=$(O) TEST_LDFLAGS='$(LDFLAGS)' $(call sweep_env,$*) sh tests/run-one.sh e2e $< $@

test-failed:
	@if [ -s $(TEST_RESULTS)/failed ]; then \
		$(MAKE) --no-print-directory test SUITE=all T="$$(cat $(TEST_RESULTS)/failed)"; \
	else \
		echo "test-failed: nothing failed in the last run ($(TEST_RESULTS)/failed)"; \
	fi

stress:
	@GPUPROF_STRESS=1 $(MAKE) --no-print-directory test SUITE=all T="$(TESTS_STRESS)" \
		TEST_RESULTS=$(O)/stress-results
