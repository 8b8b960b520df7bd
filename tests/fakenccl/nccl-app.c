/* SPDX-License-Identifier: MIT */
/*
 * nccl-app - a program linked against libnccl.so.2 (the fake one in tests),
 * for the interposition tests: one rank of a communicator made from
 * FAKENCCL_ID, then N rounds of AllReduce (count 1024 << (round % 4),
 * float), a grouped Send/Recv pair to the next rank, an AllGather and a
 * Broadcast from rank 0; a split communicator does one AllReduce; then
 * destroy. -d US: sleep that long before each AllReduce (a planted
 * straggler). After each round it asks for the communicator's asynchronous
 * error, as a watchdog does, and aborts on one. Prints "calls N" (the
 * operations issued).
 *
 * usage: nccl-app RANK NRANKS ROUNDS [-d US]
 */
#include "base/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nccl.h>
#include <unistd.h>

#define OK(x)                                                                                      \
	do {                                                                                       \
		ncclResult_t r_ = (x);                                                             \
		if (r_ != ncclSuccess) {                                                           \
			fprintf(stderr, "nccl-app: %s: %d\n", #x, (int)r_);                        \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: nccl-app RANK NRANKS ROUNDS [-d US]\n");
		return 2;
	}
	int rank = atoi(argv[1]), nranks = atoi(argv[2]), rounds = atoi(argv[3]);
	unsigned delay = argc > 5 && !strcmp(argv[4], "-d") ? (unsigned)atoi(argv[5]) : 0;
	ncclUniqueId id;
	ncclComm_t comm, sub;
	int n = 0, v = 0;
	cudaStream_t st = (cudaStream_t)(uintptr_t)0x5000;

	OK(ncclGetUniqueId(&id));
	OK(ncclCommInitRank(&comm, nranks, id, rank));
	OK(ncclCommCount(comm, &v));
	if (v != nranks) {
		fprintf(stderr, "nccl-app: count %d\n", v);
		return 1;
	}
	for (int i = 0; i < rounds; i++) {
		if (delay) {
			usleep(delay);
		}
		OK(ncclAllReduce(NULL, NULL, 1024u << (i % 4), ncclFloat32, ncclSum, comm, st));
		OK(ncclGroupStart());
		OK(ncclSend(NULL, 4096, ncclBfloat16, (rank + 1) % nranks, comm, st));
		OK(ncclRecv(NULL, 4096, ncclBfloat16, (rank + nranks - 1) % nranks, comm, st));
		OK(ncclGroupEnd());
		OK(ncclAllGather(NULL, NULL, 512, ncclInt8, comm, st));
		OK(ncclBroadcast(NULL, NULL, 100, ncclFloat64, 0, comm, st));
		n += 5;
		ncclResult_t async = ncclSuccess; /* as a watchdog polls it */
		OK(ncclCommGetAsyncError(comm, &async));
		if (async != ncclSuccess) {
			fprintf(stderr, "nccl-app: asynchronous error %d\n", (int)async);
			OK(ncclCommAbort(comm));
			return 1;
		}
	}
	OK(ncclCommSplit(comm, 7, rank, &sub, NULL));
	OK(ncclAllReduce(NULL, NULL, 64, ncclFloat16, ncclMax, sub, st));
	n++;
	OK(ncclCommDestroy(sub));
	OK(ncclCommDestroy(comm));
	printf("calls %d\n", n);
	return 0;
}
