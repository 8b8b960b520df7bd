#!/bin/sh
# deps.sh - make sure the Debian packages gpuprof builds with are present.
#
# Each line below is "how to check" and "the package that provides it". What
# is missing is installed with apt-get when running as root; otherwise the
# exact command is printed and the script fails, which stops make.
#
# usage: scripts/deps.sh [fuzz]
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
if command -v pkg-config >/dev/null 2>&1; then
	need_pc zlib zlib1g-dev
	need_pc libdeflate libdeflate-dev
	need_pc sqlite3 libsqlite3-dev
	need_pc libxml-2.0 libxml2-dev
	need_pc libpcre2-8 libpcre2-dev
	need_pc yajl libyajl-dev
else
	missing="$missing zlib1g-dev libdeflate-dev libsqlite3-dev libxml2-dev libpcre2-dev libyajl-dev"
fi
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

# Test tools, optional: the flame-graph tests check SVGs with xmllint and run
# their script in headless Chromium; without them those checks are skipped.
optional=""
command -v xmllint >/dev/null 2>&1 || optional="$optional libxml2-utils"
command -v chromium >/dev/null 2>&1 || optional="$optional chromium"
if [ -n "$optional" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing test tools:$optional" >&2
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $optional \
		>/tmp/gpuprof-deps-optional.log 2>&1; then
		echo "deps: could not install$optional (tests that need them are skipped)" >&2
	fi
elif [ -n "$optional" ]; then
	echo "deps: optional test tools missing (their tests are skipped):" >&2
	echo "  sudo apt-get install$optional" >&2
fi

[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y --no-install-recommends $missing >/tmp/gpuprof-deps.log 2>&1; then
		apt-get update >/dev/null 2>&1
		if ! apt-get install -y --no-install-recommends $missing >/tmp/gpuprof-deps.log 2>&1; then
			echo "deps: apt-get install failed; see /tmp/gpuprof-deps.log" >&2
			exit 1
		fi
	fi
	exit 0
fi
echo "deps: missing packages; install them with:" >&2
echo "  sudo apt-get install$missing" >&2
exit 1
