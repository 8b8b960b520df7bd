#!/bin/sh
# deps.sh - make sure the Debian packages gpuprof builds with are present.
#
# Each line below is "how to check" and "the package that provides it". What
# is missing is installed with apt-get when running as root; otherwise the
# exact command is printed and the script fails, which stops make.
#
# usage: scripts/deps.sh [fuzz|test]
#   fuzz: also clang and its libFuzzer runtime
#   test: also what some tests use: Chromium (headless browser checks of the
#         HTML outputs), xmllint, python3 and sqlite3. Optional: without root
#         they are only suggested, and the tests that need them skip.
set -u

missing=""
need_pc() { # pkg-config module, Debian package
	pkg-config --exists "$1" 2>/dev/null || missing="$missing $2"
}
need_cmd() { # command, Debian package
	command -v "$1" >/dev/null 2>&1 || missing="$missing $2"
}

need_cmd pkg-config pkg-config
need_cmd cc gcc
need_cmd make make
# xmllint validates gpuprof diff's JUnit output against tests/junit.xsd
need_cmd xmllint libxml2-utils
# protoc-c generates the C of the Perfetto protobuf subset at build time
need_cmd protoc-c protobuf-c-compiler
if command -v pkg-config >/dev/null 2>&1; then
	need_pc zlib zlib1g-dev
	need_pc libdeflate libdeflate-dev
	need_pc sqlite3 libsqlite3-dev
	need_pc libxml-2.0 libxml2-dev
	need_pc libpcre2-8 libpcre2-dev
	need_pc libisal libisal-dev
	# protobuf-c packs the Perfetto protobuf export (report/proto/perfetto-trace.proto)
	need_pc libprotobuf-c libprotobuf-c-dev
	# OpenMPI: --mpi shares the analysis of many ranks' traces (docs/cluster.md)
	need_pc ompi-c libopenmpi-dev
else
	missing="$missing zlib1g-dev libdeflate-dev libsqlite3-dev libxml2-dev libpcre2-dev libisal-dev"
	missing="$missing libprotobuf-c-dev libopenmpi-dev"
fi
# mpirun: the launcher the --mpi tests run under
need_cmd mpirun openmpi-bin
# libiberty's C++ demangler names the frames of captured call stacks (no .pc file)
[ -f /usr/include/libiberty/demangle.h ] || missing="$missing libiberty-dev"
if [ "${1:-}" = fuzz ]; then
	need_cmd clang clang
	# libFuzzer and the sanitizer runtimes for clang
	clang_ver=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
	if [ -n "$clang_ver" ]; then
		dpkg -s "libclang-rt-$clang_ver-dev" >/dev/null 2>&1 || missing="$missing libclang-rt-$clang_ver-dev"
	else
		missing="$missing libclang-rt-dev"
	fi
fi

optional=0
if [ "${1:-}" = test ]; then
	missing=""
	optional=1
	need_cmd chromium chromium
	need_cmd xmllint libxml2-utils
	# many e2e tests check outputs with Python; one reads an nsys export with sqlite3
	need_cmd python3 python3
	# the Python module (make python, docs/python.md) and its tests (tests/python, pytest)
	# are built for and run by Debian's interpreter
	need_py() { # module, Debian package
		/usr/bin/python3 -c "import $1" 2>/dev/null || missing="$missing $2"
	}
	py_inc=$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
	[ -n "$py_inc" ] && [ -f "$py_inc/Python.h" ] || missing="$missing python3-dev"
	need_py pytest python3-pytest
	need_py numpy python3-numpy
	need_py pandas python3-pandas
	# t0060 validates every command's JSON against docs/schema/ (draft 2020-12)
	need_py jsonschema python3-jsonschema
	need_cmd sqlite3 sqlite3
fi

[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	log="${TMPDIR:-/tmp}/gpuprof-deps.log"
	if ! apt-get install -y --no-install-recommends $missing >"$log" 2>&1; then
		apt-get update >/dev/null 2>&1
		if ! apt-get install -y --no-install-recommends $missing >"$log" 2>&1; then
			echo "deps: apt-get install failed; see $log" >&2
			[ "$optional" = 1 ] && exit 0
			exit 1
		fi
	fi
	exit 0
fi
if [ "$optional" = 1 ]; then
	echo "deps: tests that need$missing will skip; to run them: sudo apt-get install$missing" >&2
	exit 0
fi
echo "deps: missing packages; install them with:" >&2
echo "  sudo apt-get install$missing" >&2
exit 1
