#!/bin/sh
# libgpuprof-inject.so exports only its entry points and needs no CUDA
# library, C++ runtime or CUPTI at load time (STYLE.md section 8.7).
. "$TOP/tests/fakecuda/e2e-lib.sh"
command -v nm >/dev/null || exit 77

syms=$(nm -D --defined-only "$LIB" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort | tr '\n' ' ')
[ "$syms" = "InitializeInjection InitializeInjectionNvtx2 " ] ||
	fail "exported symbols: $syms"
needed=$(readelf -d "$LIB" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')
case $needed in
*cupti* | *libcuda* | *stdc++* | *cudart*) fail "needs $needed" ;;
esac
# never unloaded: NVTX dlcloses an injection that declines
readelf -d "$LIB" | grep -q 'NODELETE' || fail "not linked with -z nodelete"
# the fake libcupti carries the real library's version node
nm -D "$FAKE/libcupti.so.13" | grep -q 'cuptiSubscribe@@libcupti.so.13' ||
	fail "fake libcupti lacks the libcupti.so.13 version node"
exit 0
