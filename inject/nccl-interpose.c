/* SPDX-License-Identifier: MIT */
/*
 * nccl-interpose.c - the NCCL API through its pncclX profiling aliases: the
 * fallback when no profiler plugin instance is live (an NCCL older than
 * 2.27, or NCCL_PROFILER_PLUGIN pointing elsewhere).
 *
 * These definitions take effect only when the library is preloaded
 * (LD_PRELOAD, `gpuprof record --preload`): then the program's calls to
 * ncclAllReduce & co. reach us first. Each wrapper finds the real function
 * once (pncclX, else ncclX, after us in the lookup order, else in an
 * already-loaded libnccl.so.2 of any scope), and then:
 *   - while a plugin instance is live: calls it and nothing else;
 *   - else: stamps the call, pushes a CUPTI external correlation id
 *     (CUSTOM2) around it so the kernels it launches link to it, and queues
 *     one NCCL record (source 2).
 * Collectives inside ncclGroupStart/End launch at ncclGroupEnd, which pushes
 * the id of the group's last operation.
 *
 * Communicators are told apart across ranks by a hash of the ncclUniqueId
 * they were created from (every rank passes the same bytes), of the parent's
 * hash and colour for ncclCommSplit; sequence numbers count operations per
 * communicator and function, as NCCL's own do. The table of communicators is
 * fixed-size and lock-free (one compare-and-swap to insert).
 *
 * Hot path: no malloc, no lock, no stdio; errno is NCCL's. The first call
 * of each wrapper resolves its target with dlsym (once per function).
 */
#include "base/compat.h"
#include "inject/inject.h"

#include <dlfcn.h>
#include <nccl.h>
#include <unistd.h>

#define GPI_EXPORT __attribute__((visibility("default")))

/* ----------------------------------------------------------- communicators */

#define NCOMM 1024 /* power of two */
#define NFUNC 12

enum fidx {
	F_ALLREDUCE,
	F_ALLGATHER,
	F_REDUCESCATTER,
	F_BROADCAST,
	F_REDUCE,
	F_ALLTOALL,
	F_GATHER,
	F_SCATTER,
	F_SEND,
	F_RECV,
};

static const char *const fname[NFUNC] = {
	"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce",
	"AlltoAll",  "Gather",	  "Scatter",	   "Send",	"Recv",
};

/* the API's names, for the nccl-error trigger's words */
static const char *const api_name[NFUNC] = {
	"ncclAllReduce", "ncclAllGather", "ncclReduceScatter", "ncclBroadcast", "ncclReduce",
	"ncclAlltoAll",	 "ncclGather",	  "ncclScatter",       "ncclSend",	"ncclRecv",
};

/* An error NCCL returned is a flight trigger (nccl-error): the plugin API reports none. */
static inline void check_result(const char *fn, ncclResult_t r)
{
	if (GP_UNLIKELY(r != ncclSuccess && r != ncclInProgress)) {
		gpi_flight_nccl_error(fn, (int)r);
	}
}

struct comm {
	_Atomic uintptr_t key; /* the ncclComm_t; 0 free, 1 removed */
	uint64_t hash;
	int32_t rank, nranks;
	_Atomic uint64_t seq[NFUNC];
};

static struct comm comms[NCOMM];
static _Atomic uint64_t split_salt;
static __thread int tls_group __attribute__((tls_model("initial-exec")));
static __thread uint64_t tls_group_last __attribute__((tls_model("initial-exec")));

static struct comm *comm_find(ncclComm_t c)
{
	uintptr_t k = (uintptr_t)c;
	uint64_t h = gp_hash_u64(k);

	for (unsigned i = 0; i < NCOMM; i++) {
		struct comm *e = &comms[(h + i) & (NCOMM - 1)];
		uintptr_t v = atomic_load_explicit(&e->key, memory_order_acquire);
		if (v == k) {
			return e;
		}
		if (v == 0) {
			return NULL;
		}
	}
	return NULL;
}

static struct comm *comm_add(ncclComm_t c, uint64_t hash, int rank, int nranks)
{
	uintptr_t k = (uintptr_t)c;
	uint64_t h = gp_hash_u64(k);
	struct comm *e;

	if (!c) {
		return NULL;
	}
	if ((e = comm_find(c))) {
		goto fill;
	}
	for (unsigned i = 0; i < NCOMM; i++) {
		e = &comms[(h + i) & (NCOMM - 1)];
		uintptr_t v = atomic_load(&e->key);
		if ((v == 0 || v == 1) && atomic_compare_exchange_strong(&e->key, &v, k)) {
			goto fill;
		}
	}
	return NULL;
fill:
	e->hash = hash;
	e->rank = rank;
	e->nranks = nranks;
	for (unsigned f = 0; f < NFUNC; f++) {
		atomic_store(&e->seq[f], 0);
	}
	return e;
}

/* ------------------------------------------------------- finding targets */

static void *lookup(const char *pname)
{
	void *f = gpi_dlsym(RTLD_NEXT, pname);

	if (!f) {
		f = gpi_dlsym(RTLD_NEXT, pname + 1); /* ncclX */
	}
	if (!f) {
		/* libnccl loaded in a local scope (a dlopened framework): find it by name */
		void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
		if (h) {
			f = gpi_dlsym(h, pname);
			if (!f) {
				f = gpi_dlsym(h, pname + 1);
			}
			dlclose(h);
		}
	}
	return f;
}

/* real_X: the target, typed from nccl.h's declaration of pncclX. */
#define REAL(name)                                                                                 \
	static __typeof__(&p##name) real_##name;                                                  \
	if (GP_UNLIKELY(!real_##name)) {                                                           \
		*(void **)&real_##name = lookup("p" #name);                                         \
		if (!real_##name) {                                                                \
			return ncclSystemError;                                                    \
		}                                                                                  \
	}

static ncclResult_t (*q_count)(const ncclComm_t, int *);
static ncclResult_t (*q_rank)(const ncclComm_t, int *);

/* A communicator seen for the first time at an operation: ids from NCCL, hash of the pointer. */
static struct comm *comm_lookup(ncclComm_t c)
{
	struct comm *e = comm_find(c);
	int rank = -1, nranks = 0;

	if (e || !c) {
		return e;
	}
	if (!q_count) {
		*(void **)&q_count = lookup("pncclCommCount");
		*(void **)&q_rank = lookup("pncclCommUserRank");
	}
	if (q_count) {
		q_count(c, &nranks);
	}
	if (q_rank) {
		q_rank(c, &rank);
	}
	return comm_add(c, gp_hash_u64((uintptr_t)c ^ 0x6770636f6d6dULL), rank, nranks);
}

/* ------------------------------------------------------------ recording */

struct call {
	uint64_t start, id;
	bool pushed, on;
};

static inline bool tracing(void)
{
	return !atomic_load_explicit(&gpi_nccl_plugin_active, memory_order_relaxed) &&
	       atomic_load_explicit(&gpi_s.state, memory_order_relaxed) == GPI_RUNNING;
}

static inline void call_begin(struct call *k)
{
	k->on = tracing();
	if (!k->on) {
		return;
	}
	k->id = gpi_nccl_next_id();
	k->start = gpi_now();
	k->pushed = tls_group ? false : gpi_nccl_extcorr_push(k->id);
	if (tls_group) {
		tls_group_last = k->id;
	}
}

static void call_end(struct call *k, enum fidx f, size_t count, ncclDataType_t dt, int root,
		     int peer, ncclRedOp_t op, ncclComm_t c, cudaStream_t stream, ncclResult_t res)
{
	int saved = errno;

	check_result(api_name[f], res);
	if (!k->on) {
		errno = saved;
		return;
	}
	gpi_nccl_extcorr_pop(k->pushed);
	if (res != ncclSuccess && res != ncclInProgress) {
		errno = saved;
		return; /* not issued */
	}
	struct comm *e = comm_lookup(c);
	struct gpi_nccl_ev ev = {
		.kind = GPI_NCCL_OP,
		.source = GPT_NCCL_SRC_INTERPOSE,
		.datatype = (unsigned)dt < 32 ? (uint8_t)dt : GPI_NCCL_DT_UNKNOWN,
		.reduce_op = (unsigned)op < 256 ? (uint8_t)op : 0,
		.root = root,
		.peer = peer,
		.rank = e ? e->rank : -1,
		.nranks = e ? e->nranks : 0,
		.tid = gpi_nccl_tid(),
		.start = k->start,
		.end = gpi_now(),
		.count = count,
		.bytes = (uint64_t)count * gpi_nccl_type_size((unsigned)dt),
		.comm_hash = e ? e->hash : 0,
		.seq = e ? atomic_fetch_add_explicit(&e->seq[f], 1, memory_order_relaxed) + 1 : 0,
		.op_id = k->id,
		.ext_id = k->id,
		.stream_handle = (uint64_t)(uintptr_t)stream,
	};
	if (f == F_SEND || f == F_RECV) {
		ev.flags |= GPT_NCCL_P2P;
	}
	if (tls_group) {
		ev.flags |= GPT_NCCL_IN_GROUP;
	}
	memcpy(ev.func, fname[f], strlen(fname[f]) + 1);
	gpi_nccl_push(&ev);
	errno = saved;
}

/* ------------------------------------------------------------ collectives */

GPI_EXPORT ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
				      ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
				      cudaStream_t stream)
{
	REAL(ncclAllReduce);
	struct call k;
	call_begin(&k);
	ncclResult_t r = real_ncclAllReduce(sendbuff, recvbuff, count, datatype, op, comm, stream);
	call_end(&k, F_ALLREDUCE, count, datatype, -1, -1, op, comm, stream, r);
	return r;
}

GPI_EXPORT ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
					  ncclDataType_t datatype, ncclRedOp_t op,
					  ncclComm_t comm, cudaStream_t stream)
{
	REAL(ncclReduceScatter);
	struct call k;
	call_begin(&k);
	ncclResult_t r =
		real_ncclReduceScatter(sendbuff, recvbuff, recvcount, datatype, op, comm, stream);
	call_end(&k, F_REDUCESCATTER, recvcount, datatype, -1, -1, op, comm, stream, r);
	return r;
}

GPI_EXPORT ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
				      ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
	REAL(ncclAllGather);
	struct call k;
	call_begin(&k);
	ncclResult_t r = real_ncclAllGather(sendbuff, recvbuff, sendcount, datatype, comm, stream);
	call_end(&k, F_ALLGATHER, sendcount, datatype, -1, -1, 0, comm, stream, r);
	return r;
}

GPI_EXPORT ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff, size_t count,
				     ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
	REAL(ncclAlltoAll);
	struct call k;
	call_begin(&k);
	ncclResult_t r = real_ncclAlltoAll(sendbuff, recvbuff, count, datatype, comm, stream);
	call_end(&k, F_ALLTOALL, count, datatype, -1, -1, 0, comm, stream, r);
	return r;
}

GPI_EXPORT ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
				      ncclDataType_t datatype, int root, ncclComm_t comm,
				      cudaStream_t stream)
{
	REAL(ncclBroadcast);
	struct call k;
	call_begin(&k);
	ncclResult_t r = real_ncclBroadcast(sendbuff, recvbuff, count, datatype, root, comm, stream);
	call_end(&k, F_BROADCAST, count, datatype, root, -1, 0, comm, stream, r);
	return r;
}

GPI_EXPORT ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root,
				  ncclComm_t comm, cudaStream_t stream)
{
	REAL(ncclBcast);
	struct call k;
	call_begin(&k);
	ncclResult_t r = real_ncclBcast(buff, count, datatype, root, comm, stream);
	call_end(&k, F_BROADCAST, count, datatype, root, -1, 0, comm, stream, r);
	return r;
}

GPI_EXPORT ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
				   ncclDataType_t datatype, ncclRedOp_t op, int root,
				   ncclComm_t comm, cudaStream_t stream)
{
	REAL(ncclReduce);
	struct call k;
	call_begin(&k);
	ncclResult_t r =
		real_ncclReduce(sendbuff, recvbuff, count, datatype, op, root, comm, stream);
	call_end(&k, F_REDUCE, count, datatype, root, -1, op, comm, stream, r);
	return r;
}

GPI_EXPORT ncclResult_t ncclGather(const void *sendbuff, void *recvbuff, size_t count,
				   ncclDataType_t datatype, int root, ncclComm_t comm,
				   cudaStream_t stream)
{
	REAL(ncclGather);
	struct call k;
	call_begin(&k);
	ncclResult_t r = real_ncclGather(sendbuff, recvbuff, count, datatype, root, comm, stream);
	call_end(&k, F_GATHER, count, datatype, root, -1, 0, comm, stream, r);
	return r;
}

GPI_EXPORT ncclResult_t ncclScatter(const void *sendbuff, void *recvbuff, size_t count,
				    ncclDataType_t datatype, int root, ncclComm_t comm,
				    cudaStream_t stream)
{
	REAL(ncclScatter);
	struct call k;
	call_begin(&k);
	ncclResult_t r = real_ncclScatter(sendbuff, recvbuff, count, datatype, root, comm, stream);
	call_end(&k, F_SCATTER, count, datatype, root, -1, 0, comm, stream, r);
	return r;
}

GPI_EXPORT ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype,
				 int peer, ncclComm_t comm, cudaStream_t stream)
{
	REAL(ncclSend);
	struct call k;
	call_begin(&k);
	ncclResult_t r = real_ncclSend(sendbuff, count, datatype, peer, comm, stream);
	call_end(&k, F_SEND, count, datatype, -1, peer, 0, comm, stream, r);
	return r;
}

GPI_EXPORT ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
				 ncclComm_t comm, cudaStream_t stream)
{
	REAL(ncclRecv);
	struct call k;
	call_begin(&k);
	ncclResult_t r = real_ncclRecv(recvbuff, count, datatype, peer, comm, stream);
	call_end(&k, F_RECV, count, datatype, -1, peer, 0, comm, stream, r);
	return r;
}

/* ------------------------------------------------------------------ groups */

GPI_EXPORT ncclResult_t ncclGroupStart(void)
{
	REAL(ncclGroupStart);
	ncclResult_t r = real_ncclGroupStart();
	if (r == ncclSuccess) {
		if (tls_group++ == 0) {
			tls_group_last = 0;
		}
	}
	return r;
}

GPI_EXPORT ncclResult_t ncclGroupEnd(void)
{
	REAL(ncclGroupEnd);
	bool pushed = false;
	if (tls_group == 1 && tls_group_last && tracing()) {
		pushed = gpi_nccl_extcorr_push(tls_group_last); /* the launch happens here */
	}
	ncclResult_t r = real_ncclGroupEnd();
	gpi_nccl_extcorr_pop(pushed);
	if (tls_group > 0) {
		tls_group--;
	}
	check_result("ncclGroupEnd", r);
	return r;
}

/*
 * A communicator's asynchronous error (a peer that failed or timed out, as
 * PyTorch's watchdog polls it): an nccl-error trigger when it holds one.
 */
GPI_EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
	REAL(ncclCommGetAsyncError);
	ncclResult_t r = real_ncclCommGetAsyncError(comm, asyncError);
	if (r == ncclSuccess && asyncError) {
		check_result("ncclCommGetAsyncError", *asyncError);
	}
	return r;
}

/* ----------------------------------------------------------- communicators */

static uint64_t id_hash(const ncclUniqueId *id)
{
	return gp_hash_bytes(id->internal, sizeof(id->internal));
}

GPI_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId,
					 int rank)
{
	REAL(ncclCommInitRank);
	gpi_session_start(); /* cold: a program that has not touched CUDA yet */
	ncclResult_t r = real_ncclCommInitRank(comm, nranks, commId, rank);
	if ((r == ncclSuccess || r == ncclInProgress) && comm) {
		comm_add(*comm, id_hash(&commId), rank, nranks);
	}
	return r;
}

GPI_EXPORT ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId commId,
					       int rank, ncclConfig_t *config)
{
	REAL(ncclCommInitRankConfig);
	gpi_session_start(); /* cold: a program that has not touched CUDA yet */
	ncclResult_t r = real_ncclCommInitRankConfig(comm, nranks, commId, rank, config);
	if ((r == ncclSuccess || r == ncclInProgress) && comm) {
		comm_add(*comm, id_hash(&commId), rank, nranks);
	}
	return r;
}

GPI_EXPORT ncclResult_t ncclCommInitRankScalable(ncclComm_t *comm, int nranks, int rank, int nId,
						 ncclUniqueId *commIds, ncclConfig_t *config)
{
	REAL(ncclCommInitRankScalable);
	gpi_session_start(); /* cold: a program that has not touched CUDA yet */
	ncclResult_t r = real_ncclCommInitRankScalable(comm, nranks, rank, nId, commIds, config);
	if ((r == ncclSuccess || r == ncclInProgress) && comm && commIds && nId > 0) {
		comm_add(*comm, id_hash(&commIds[0]), rank, nranks);
	}
	return r;
}

GPI_EXPORT ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist)
{
	REAL(ncclCommInitAll);
	gpi_session_start(); /* cold: a program that has not touched CUDA yet */
	ncclResult_t r = real_ncclCommInitAll(comm, ndev, devlist);
	if (r == ncclSuccess && comm && ndev > 0) {
		/* one process owns every rank: any hash shared by them will do */
		uint64_t h = gp_hash_u64((uintptr_t)comm[0] ^ ((uint64_t)getpid() << 32));
		for (int i = 0; i < ndev; i++) {
			comm_add(comm[i], h, i, ndev);
		}
	}
	return r;
}

GPI_EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
				      ncclConfig_t *config)
{
	REAL(ncclCommSplit);
	ncclResult_t r = real_ncclCommSplit(comm, color, key, newcomm, config);
	if ((r == ncclSuccess || r == ncclInProgress) && newcomm && *newcomm) {
		struct comm *p = comm_lookup(comm);
		/* the same on every rank that splits the same parent with the same colour, in order */
		uint64_t n = p ? atomic_fetch_add(&p->seq[NFUNC - 1], 1) : atomic_fetch_add(&split_salt, 1);
		uint64_t h = gp_hash_u64((p ? p->hash : 0) ^ gp_hash_u64((uint64_t)(uint32_t)color) ^
					 (n << 40));
		int rank = -1, nranks = 0;
		if (!q_count) {
			*(void **)&q_count = lookup("pncclCommCount");
			*(void **)&q_rank = lookup("pncclCommUserRank");
		}
		if (q_count) {
			q_count(*newcomm, &nranks);
		}
		if (q_rank) {
			q_rank(*newcomm, &rank);
		}
		comm_add(*newcomm, h, rank, nranks);
	}
	return r;
}

static void comm_remove(ncclComm_t c)
{
	struct comm *e = comm_find(c);

	if (e) {
		atomic_store(&e->key, (uintptr_t)1);
	}
}

GPI_EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
	REAL(ncclCommDestroy);
	comm_remove(comm);
	return real_ncclCommDestroy(comm);
}

GPI_EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm)
{
	REAL(ncclCommAbort);
	comm_remove(comm);
	return real_ncclCommAbort(comm);
}

/* Queries pass through: our own use goes to the pncclX names directly. */
GPI_EXPORT ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
	REAL(ncclCommCount);
	return real_ncclCommCount(comm, count);
}

GPI_EXPORT ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
	REAL(ncclCommUserRank);
	return real_ncclCommUserRank(comm, rank);
}

GPI_EXPORT ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
	REAL(ncclCommCuDevice);
	return real_ncclCommCuDevice(comm, device);
}
