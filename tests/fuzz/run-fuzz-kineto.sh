#!/bin/sh
# run-fuzz-kineto.sh - run the libFuzzer Kineto JSON importer target for a bounded time.
#
# usage: tests/fuzz/run-fuzz-kineto.sh FUZZ_BIN SECONDS
#
# Seeds a corpus from small hand-written Kineto JSON snippets (every event
# category, metadata, devices, distributedInfo, relative and epoch times,
# baseTimeNanoseconds before and after traceEvents, wrong types, truncated
# and malformed documents) plus the small Kineto anchors when
# $TOP/../shared/anchors is there, then fuzzes for
# SECONDS. The working corpus, seeds, dictionary, log and any crashing input
# live in tests/fuzz/corpus-run/kineto/ (git-ignored); the corpus is kept
# between runs. The last line is
#   fuzz-kineto: N executions, C crashes in S s
# and the exit status is non-zero when the target crashed (or leaked, ran
# out of memory or timed out); the input that did it is kept in
# tests/fuzz/corpus-run/kineto/crashes/.
set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 FUZZ_BIN SECONDS" >&2
	exit 2
fi
bin=$1
secs=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$top/tests/fuzz/corpus-run/kineto
seeds=$work/seeds
corpus=$work/corpus
crashes=$work/crashes
dict=$work/kineto.dict
log=$work/fuzz.log

case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac

rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$crashes" || exit 1

# seed NAME JSON-PIECE... (the pieces are joined)
seed() {
	name=$1
	shift
	printf '%s' "$@" > "$seeds/$name.json"
	echo >> "$seeds/$name.json"
}

ev_k='{"ph":"X","cat":"kernel","name":"k0","pid":0,"tid":7,"ts":1000.5,"dur":3.25,'
ev_k=$ev_k'"args":{"device":0,"stream":7,"correlation":12,"context":1,'
ev_k=$ev_k'"registers per thread":32,"shared memory":0,"grid":[4,1,1],"block":[128,1,1],'
ev_k=$ev_k'"External id":5}}'
ev_rt='{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":11,"tid":12,'
ev_rt=$ev_rt'"ts":999.25,"dur":2,"args":{"correlation":12,"cbid":211,"External id":5}}'
ev_cp='{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,'
ev_cp=$ev_cp'"tid":7,"ts":1010,"dur":1.5,"args":{"device":0,"stream":7,"correlation":13,'
ev_cp=$ev_cp'"bytes":4096,"context":1}}'
ev_ms='{"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":1020,'
ev_ms=$ev_ms'"dur":0.5,"args":{"device":0,"stream":7,"correlation":14,"bytes":64}}'
ev_op='{"ph":"X","cat":"cpu_op","name":"aten::add","pid":11,"tid":12,"ts":998,"dur":5,'
ev_op=$ev_op'"args":{"External id":5}}'
ev_ua='{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":11,"tid":12,'
ev_ua=$ev_ua'"ts":990,"dur":40}'
ev_gua='{"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#1","pid":0,"tid":7,'
ev_gua=$ev_gua'"ts":995,"dur":30}'
ev_py='{"ph":"X","cat":"python_function","name":"train.py(10): step","pid":11,'
ev_py=$ev_py'"tid":12,"ts":991,"dur":35}'
ev_sync='{"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":7,"ts":1030,'
ev_sync=$ev_sync'"dur":1,"args":{"device":0,"stream":7,"correlation":15}}'
ev_drv='{"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":11,"tid":12,'
ev_drv=$ev_drv'"ts":1000,"dur":1,"args":{"correlation":16,"cbid":307}}'
ev_meta='{"ph":"M","name":"thread_name","pid":11,"tid":12,"args":{"name":"python3"}},'
ev_meta=$ev_meta'{"ph":"M","name":"process_name","pid":11,"tid":0,"args":{"name":"python"}},'
ev_meta=$ev_meta'{"ph":"M","name":"process_name","pid":0,"tid":0,"args":{"name":"GPU 0"}}'
ev_flow='{"ph":"s","id":12,"pid":11,"tid":12,"ts":999.25,"cat":"ac2g","name":"ac2g"},'
ev_flow=$ev_flow'{"ph":"f","id":12,"pid":0,"tid":7,"ts":1000.5,"cat":"ac2g","name":"ac2g","bp":"e"}'
ev_inst='{"ph":"i","s":"t","name":"Iteration Start: PyTorch Profiler","pid":11,"tid":12,'
ev_inst=$ev_inst'"ts":990}'
dev='"deviceProperties":[{"id":0,"name":"NVIDIA A100","totalGlobalMem":42314694656,'
dev=$dev'"computeMajor":8,"computeMinor":0,"maxThreadsPerBlock":1024,'
dev=$dev'"maxThreadsPerMultiprocessor":2048,"regsPerBlock":65536,"regsPerMultiprocessor":65536,'
dev=$dev'"warpSize":32,"sharedMemPerBlock":49152,"sharedMemPerMultiprocessor":167936,'
dev=$dev'"sharedMemPerBlockOptin":166912,"numSms":108}]'
dist='"distributedInfo":{"backend":"nccl","rank":1,"world_size":2}'
vers='"schemaVersion":1,"cupti_version":18,"cuda_runtime_version":12010,'
vers=$vers'"cuda_driver_version":12020'
all="$ev_meta,$ev_ua,$ev_py,$ev_op,$ev_rt,$ev_drv,$ev_flow,$ev_inst"
all="$all,$ev_gua,$ev_k,$ev_cp,$ev_ms,$ev_sync"

seed full "{$vers,$dev,$dist,\"traceEvents\":[$all],\"traceName\":\"t.json\"," \
	"\"baseTimeNanoseconds\":1700000000000000000}"
seed base-first "{\"baseTimeNanoseconds\":1700000000000000000,\"traceEvents\":[$ev_k,$ev_rt]}"
seed no-base "{\"traceEvents\":[$ev_rt,$ev_k,$ev_cp]}"
seed epoch "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\"," \
	"\"pid\":0,\"tid\":7,\"ts\":1700000000000000.125,\"dur\":1e3,\"args\":{\"device\":0," \
	"\"stream\":7}}]}"
seed base-nested "{\"traceEvents\":[$ev_k,{\"ph\":\"X\",\"name\":\"x\",\"pid\":1," \
	"\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{\"baseTimeNanoseconds\":5}}]," \
	"\"baseTimeNanoseconds\":7}"
seed kernel "{\"traceEvents\":[$ev_k]}"
seed memcpy "{\"traceEvents\":[$ev_cp,$ev_ms]}"
seed meta "{\"traceEvents\":[$ev_meta,$ev_ua,$ev_gua]}"
seed devices "{$dev,\"traceEvents\":[]}"
seed dist "{$dist,$vers,\"traceEvents\":[$ev_op]}"
seed string-tid "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\"," \
	"\"pid\":\"Spans\",\"tid\":\"PyTorch Profiler\",\"ts\":5,\"dur\":1}]}"
seed wrong-types "{\"traceEvents\":[{\"ph\":1,\"cat\":[],\"name\":null,\"pid\":true," \
	"\"tid\":{},\"ts\":\"1\",\"dur\":-1,\"args\":[]}]}"
seed negative "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\"," \
	"\"pid\":0,\"tid\":7,\"ts\":-5.5,\"dur\":-1,\"args\":{\"device\":-1," \
	"\"stream\":-2,\"grid\":[-1,0,99999999999],\"block\":[1,1,1,1]}}]}"
seed huge "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\"," \
	"\"pid\":0,\"tid\":7,\"ts\":99999999999999999999999.9,\"dur\":1e308," \
	"\"args\":{\"device\":4294967296,\"bytes\":18446744073709551616}}]}"
seed escapes "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\"," \
	"\"name\":\"a\\\"b\\\\c\\u0000d\\ud83d\\ude00\"," \
	"\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]}"
seed empty-obj '{}'
seed empty-events '{"traceEvents":[]}'
seed events-not-array '{"traceEvents":{}}'
seed two-events '{"traceEvents":[],"traceEvents":[]}'
seed top-array '[{"ph":"X"}]'
seed nested "{\"traceEvents\":[{\"args\":{\"x\":[[[[[[[[[[{\"a\":[1]}]]]]]]]]]]}}]}"
seed truncated "{\"traceEvents\":[$ev_k,$ev_rt"
seed trailing "{\"traceEvents\":[]} {}"
seed garbage 'not json'
seed nccl "{\"distributedInfo\":{\"rank\":1},\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\"," \
	"\"name\":\"record_param_comms\",\"pid\":1,\"tid\":2,\"ts\":5.5,\"dur\":1,\"args\":{" \
	"\"External id\":3,\"Collective name\":\"allreduce\",\"In msg nelems\":10," \
	"\"Out msg nelems\":10,\"Group size\":2,\"dtype\":\"Float\",\"Seq\":4," \
	"\"Process Group Name\":\"0\"}},{\"ph\":\"X\",\"cat\":\"kernel\"," \
	"\"name\":\"ncclKernel_AllReduce_RING_LL_Sum_float(x)\",\"pid\":0,\"tid\":7," \
	"\"ts\":6,\"dur\":2,\"args\":{\"stream\":7,\"Collective name\":\"reduce_scatter\"," \
	"\"Out msg nelems\":5,\"dtype\":\"BFloat16\"}}]}"
seed unicode "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":" \
	"\"\\ud83d\\ude00 \\ud800 café\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]}"

# Small Kineto anchors, as they are (gzip or plain).
anchors=
for d in "$top/../shared/anchors/kineto"; do
	if [ -d "$d" ]; then
		anchors=$d
		break
	fi
done
if [ -n "$anchors" ]; then
	i=0
	find "$anchors" -type f \( -name '*.json' -o -name '*.json.gz' \) -size -48k | sort |
	while read -r f; do
		i=$((i + 1))
		cp "$f" "$seeds/anchor$i-$(basename "$f")"
	done
fi

# Keys and values the importer looks for.
{
	for k in traceEvents deviceProperties distributedInfo baseTimeNanoseconds cupti_version \
		cuda_runtime_version cuda_driver_version ph cat name pid tid ts dur args correlation \
		device stream context 'registers per thread' 'shared memory' grid block bytes cbid \
		'External id' 'external id' id totalGlobalMem computeMajor computeMinor \
		maxThreadsPerBlock maxThreadsPerMultiprocessor regsPerBlock regsPerMultiprocessor \
		warpSize sharedMemPerBlock sharedMemPerMultiprocessor sharedMemPerBlockOptin numSms \
		rank world_size kernel gpu_memcpy gpu_memset cuda_runtime cuda_driver cpu_op \
		user_annotation python_function gpu_user_annotation cuda_sync Kernel Memcpy Memset \
		Runtime Operator thread_name process_name HtoD DtoH DtoD HtoA AtoH AtoA AtoD DtoA \
		HtoH PtoP X M i s f 'Collective name' 'In msg nelems' 'Out msg nelems' 'Group size' \
		dtype 'Process Group Name' Seq allreduce reduce_scatter wait Float BFloat16; do
		printf '"\\"%s\\""\n' "$k"
	done
	printf '"%s"\n' '\"ph\":\"X\"' '\"ph\":\"M\"' ':{' ':[' '},{' '1700000000000000000' \
		'1e14' '-0.5' '0.0001' 'null' 'true' '\"\\u0000\"' '\"\\ud800\"'
} > "$dict"

. "$top/tests/fuzz/lib.sh"
fuzz_run fuzz-kineto "$bin" "$secs" "$dict" "$crashes" "$log" "$corpus" "$seeds"
