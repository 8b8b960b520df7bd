# Small inputs for t0021-alloc-faults.sh: a Kineto trace (steps, CPU ops,
# launches with flows, GEMM and NCCL kernels, copies, device properties) and an
# nsys export (kernels, launches, copies, NVTX steps), in the current folder.
import json
import sqlite3

ev = []
for s in range(4):
    t0 = s * 10000.0
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": 7,
               "tid": 7, "ts": t0, "dur": 9000.0})
    for i in range(6):
        c = s * 100 + i
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7,
                   "ts": t0 + 100 + i * 1000, "dur": 300.0, "args": {"External id": c}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7,
                   "tid": 7, "ts": t0 + 150 + i * 1000, "dur": 20.0,
                   "args": {"correlation": c, "External id": c}})
        name = "ampere_sgemm_128x64_nn" if i % 2 else "ncclKernel_AllReduce_RING_LL_Sum_float"
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7,
                   "ts": t0 + 200 + i * 1000, "dur": 500.5,
                   "args": {"device": 0, "stream": 7 + i % 2, "correlation": c,
                            "External id": c, "grid": [80, 1, 1], "block": [256, 1, 1],
                            "registers per thread": 64, "shared memory": 0}})
        ev.append({"ph": "s", "id": c, "pid": 7, "tid": 7, "ts": t0 + 150 + i * 1000,
                   "cat": "ac2g", "name": "ac2g"})
        ev.append({"ph": "f", "id": c, "pid": 0, "tid": 7, "ts": t0 + 200 + i * 1000,
                   "cat": "ac2g", "name": "ac2g", "bp": "e"})
    ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)",
               "pid": 0, "tid": 7, "ts": t0 + 8000, "dur": 40.0,
               "args": {"device": 0, "stream": 7, "correlation": s * 100 + 99, "bytes": 4096}})
doc = {"schemaVersion": 1,
       "deviceProperties": [{"id": 0, "name": "NVIDIA A100", "computeMajor": 8,
                             "computeMinor": 0, "totalGlobalMem": 42505273344, "numSms": 108,
                             "maxThreadsPerBlock": 1024, "regsPerBlock": 65536,
                             "regsPerMultiprocessor": 65536, "sharedMemPerBlock": 49152,
                             "sharedMemPerMultiprocessor": 167936,
                             "maxThreadsPerMultiProcessor": 2048, "warpSize": 32}],
       "traceEvents": ev}
with open("k.json", "w") as f:
    json.dump(doc, f)

db = sqlite3.connect("n.sqlite")
db.executescript("""
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, "end" INTEGER, deviceId INTEGER,
  streamId INTEGER, correlationId INTEGER, shortName INTEGER, gridX INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, "end" INTEGER, correlationId INTEGER,
  globalTid INTEGER, nameId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, "end" INTEGER, deviceId INTEGER,
  bytes INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'cudaLaunchKernel'),
  (3, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
""")
for s in range(4):
    db.execute("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, NULL, NULL, NULL, ?, 1, NULL, NULL,"
               " NULL)", (s * 100000, s * 100000 + 90000, "step %d" % s))
    for i in range(5):
        t = s * 100000 + i * 10000
        c = s * 10 + i
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, 1, 2)",
                   (t, t + 500, c))
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 7, ?, ?, 128)",
                   (t + 1000, t + 6000, c, 1 + 2 * (i % 2)))
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 65536)",
               (s * 100000 + 80000, s * 100000 + 81000))
db.commit()
db.close()
