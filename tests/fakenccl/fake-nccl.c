/* SPDX-License-Identifier: MIT */
/*
 * fake-nccl.c - a stand-in libnccl.so.2 for interposition tests: every
 * entry point the interposers wrap, exported as pncclX with ncclX as an
 * alias (as the real library does), built against the toolkit's nccl.h.
 * Communicators are plain structs; collectives only count themselves
 * (fakenccl_calls) and return success, unless FAKENCCL_FAIL_AT or
 * FAKENCCL_ASYNC_AT plant an error (a peer gone, a peer timed out). No GPU,
 * no network.
 */
#include "base/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"

#include <nccl.h>

#define EXPORT __attribute__((visibility("default")))
#define ALIAS(name) __attribute__((alias("p" #name)))

struct ncclComm {
	int rank, nranks, dev;
};

EXPORT unsigned long fakenccl_calls;

#define FN(ret, name, params) EXPORT ret name params ALIAS(name); EXPORT ret p##name params

FN(ncclResult_t, ncclGetVersion, (int *v))
{
	*v = NCCL_VERSION_CODE;
	return ncclSuccess;
}

FN(ncclResult_t, ncclGetUniqueId, (ncclUniqueId * id))
{
	const char *s = getenv("FAKENCCL_ID");
	memset(id, 0, sizeof(*id));
	snprintf(id->internal, sizeof(id->internal), "%s", s ? s : "fake-nccl-id");
	return ncclSuccess;
}

static ncclResult_t mk(ncclComm_t *comm, int nranks, int rank)
{
	if (!comm || nranks < 1 || rank < 0 || rank >= nranks) {
		return ncclInvalidArgument;
	}
	*comm = calloc(1, sizeof(**comm));
	if (!*comm) {
		return ncclSystemError;
	}
	(*comm)->rank = rank;
	(*comm)->nranks = nranks;
	return ncclSuccess;
}

FN(ncclResult_t, ncclCommInitRank, (ncclComm_t * comm, int nranks, ncclUniqueId id, int rank))
{
	(void)id;
	return mk(comm, nranks, rank);
}

FN(ncclResult_t, ncclCommInitRankConfig,
   (ncclComm_t * comm, int nranks, ncclUniqueId id, int rank, ncclConfig_t *config))
{
	(void)id;
	(void)config;
	return mk(comm, nranks, rank);
}

FN(ncclResult_t, ncclCommInitAll, (ncclComm_t * comm, int ndev, const int *devlist))
{
	(void)devlist;
	for (int i = 0; i < ndev; i++) {
		ncclResult_t r = mk(&comm[i], ndev, i);
		if (r) {
			return r;
		}
	}
	return ncclSuccess;
}

FN(ncclResult_t, ncclCommSplit,
   (ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config))
{
	(void)color;
	(void)config;
	return mk(newcomm, comm->nranks, key < comm->nranks && key >= 0 ? key : 0);
}

FN(ncclResult_t, ncclCommDestroy, (ncclComm_t comm))
{
	free(comm);
	return ncclSuccess;
}

FN(ncclResult_t, ncclCommAbort, (ncclComm_t comm))
{
	free(comm);
	return ncclSuccess;
}

FN(ncclResult_t, ncclCommCount, (const ncclComm_t comm, int *count))
{
	*count = comm->nranks;
	return ncclSuccess;
}

FN(ncclResult_t, ncclCommUserRank, (const ncclComm_t comm, int *rank))
{
	*rank = comm->rank;
	return ncclSuccess;
}

FN(ncclResult_t, ncclCommCuDevice, (const ncclComm_t comm, int *dev))
{
	*dev = comm->dev;
	return ncclSuccess;
}

/* FAKENCCL_FAIL_AT=K, FAKENCCL_ASYNC_AT=K: the K-th collective (from 1) fails, or from it on */
static unsigned long env_at(const char *name)
{
	const char *s = getenv(name);
	return s ? strtoul(s, NULL, 10) : 0;
}

/* The K-th collective returns ncclRemoteError when FAKENCCL_FAIL_AT=K (a peer gone). */
static ncclResult_t coll(ncclComm_t comm)
{
	unsigned long at = env_at("FAKENCCL_FAIL_AT");

	fakenccl_calls++;
	if (!comm) {
		return ncclInvalidArgument;
	}
	return at && fakenccl_calls == at ? ncclRemoteError : ncclSuccess;
}

#define COLL(name, params)                                                                         \
	FN(ncclResult_t, name, params)                                                             \
	{                                                                                          \
		return coll(comm);                                                                 \
	}

/* ncclRemoteError once FAKENCCL_ASYNC_AT=K collectives were issued (a peer timed out). */
FN(ncclResult_t, ncclCommGetAsyncError, (ncclComm_t comm, ncclResult_t *err))
{
	unsigned long at = env_at("FAKENCCL_ASYNC_AT");

	if (!comm || !err) {
		return ncclInvalidArgument;
	}
	*err = at && fakenccl_calls >= at ? ncclRemoteError : ncclSuccess;
	return ncclSuccess;
}

COLL(ncclAllReduce, (const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t op,
		     ncclComm_t comm, cudaStream_t st))
COLL(ncclReduceScatter, (const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t op,
			 ncclComm_t comm, cudaStream_t st))
COLL(ncclAllGather,
     (const void *s, void *r, size_t n, ncclDataType_t t, ncclComm_t comm, cudaStream_t st))
COLL(ncclAlltoAll,
     (const void *s, void *r, size_t n, ncclDataType_t t, ncclComm_t comm, cudaStream_t st))
COLL(ncclBroadcast, (const void *s, void *r, size_t n, ncclDataType_t t, int root, ncclComm_t comm,
		     cudaStream_t st))
COLL(ncclBcast, (void *b, size_t n, ncclDataType_t t, int root, ncclComm_t comm, cudaStream_t st))
COLL(ncclReduce, (const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t op, int root,
		  ncclComm_t comm, cudaStream_t st))
COLL(ncclGather, (const void *s, void *r, size_t n, ncclDataType_t t, int root, ncclComm_t comm,
		  cudaStream_t st))
COLL(ncclScatter, (const void *s, void *r, size_t n, ncclDataType_t t, int root, ncclComm_t comm,
		   cudaStream_t st))
COLL(ncclSend, (const void *s, size_t n, ncclDataType_t t, int peer, ncclComm_t comm,
		cudaStream_t st))
COLL(ncclRecv, (void *r, size_t n, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t st))

FN(ncclResult_t, ncclGroupStart, (void))
{
	return ncclSuccess;
}

FN(ncclResult_t, ncclGroupEnd, (void))
{
	return ncclSuccess;
}
