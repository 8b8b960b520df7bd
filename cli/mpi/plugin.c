/* SPDX-License-Identifier: MIT */
/*
 * plugin.c - gpuprof-mpi.so: the few MPI calls the job report makes
 * (cli/job.c, docs/cluster.md), linked with OpenMPI and loaded by the
 * command only for --mpi (cli/mpi-load.c). It links nothing of gpuprof:
 * reasons go back in errbuf.
 */
#include "base/compat.h"
#include "cli/mpi/mpi-ops.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int init(int *rank, int *size, char *errbuf, size_t errlen)
{
	int argc = 0, provided;
	char **argv = NULL;

	/* FUNNELED: another thread of the command may be analysing while MPI starts; only this one calls MPI */
	if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		snprintf(errbuf, errlen, "MPI_Init_thread failed");
		return -1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, size);
	return 0;
}

/*
 * Waits until every process has come here, sleeping between looks. A
 * blocking collective would spin: the processes that finish their share
 * first would burn a core each while the last one works, and on a machine
 * with fewer free cores than processes they take it from that one
 * (docs/cluster.md has the measurements). 200 us between looks costs at
 * most that much once per exchange.
 */
static void wait_all(void)
{
	const struct timespec nap = {0, 200000};
	MPI_Request rq;
	int done = 0;

	if (MPI_Ibarrier(MPI_COMM_WORLD, &rq) != MPI_SUCCESS) {
		return; /* the collective after it waits anyway */
	}
	while (MPI_Test(&rq, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
		nanosleep(&nap, NULL);
	}
}

/* Rank 0: the displacements of the counts; 0, 1 out of memory, 2 over MPI's int counts. */
static int place(const int *counts, int size, int *displs, size_t *lens, long long *total)
{
	*total = 0;
	for (int i = 0; i < size; i++) {
		if (counts[i] < 0 || *total + counts[i] > INT_MAX) {
			return 2;
		}
		displs[i] = (int)*total;
		lens[i] = (size_t)counts[i];
		*total += counts[i];
	}
	return 0;
}

static int gather(const void *buf, size_t len, int rank, int size, char **all, size_t **lens,
		  char *errbuf, size_t errlen)
{
	int n = len > INT_MAX ? -1 : (int)len, *counts = NULL, *displs = NULL, bad = 0;
	long long total = 0;

	*all = NULL;
	*lens = NULL;
	wait_all();
	if (rank == 0) {
		counts = calloc((size_t)size, sizeof(*counts));
		displs = calloc((size_t)size, sizeof(*displs));
		*lens = calloc((size_t)size, sizeof(**lens));
		bad = !counts || !displs || !*lens;
	}
	MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0 && !bad) {
		bad = place(counts, size, displs, *lens, &total);
	}
	if (rank == 0 && !bad) {
		*all = malloc(total ? (size_t)total : 1);
		bad = !*all;
	}
	/* every process learns whether rank 0 can take the bytes */
	MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!bad) {
		MPI_Gatherv(buf, n < 0 ? 0 : n, MPI_BYTE, *all, counts, displs, MPI_BYTE, 0,
			    MPI_COMM_WORLD);
	}
	free(counts);
	free(displs);
	if (bad) {
		free(*all);
		free(*lens);
		*all = NULL;
		*lens = NULL;
		snprintf(errbuf, errlen, "%s", bad == 2 ? "the rank summaries exceed 2 GiB on rank 0"
							: "out of memory gathering the rank summaries");
		return -1;
	}
	return 0;
}

static int allgather(const void *buf, size_t len, int size, char **all, size_t **lens,
		     char *errbuf, size_t errlen)
{
	int n = len > INT_MAX ? -1 : (int)len, *counts = calloc((size_t)size, sizeof(int));
	int *displs = calloc((size_t)size, sizeof(int)), bad;
	long long total = 0;

	*all = NULL;
	*lens = calloc((size_t)size, sizeof(**lens));
	bad = !counts || !displs || !*lens;
	/* every process learns every count, then whether all can take the bytes */
	wait_all();
	if (!counts) {
		fprintf(stderr, "gpuprof: error: out of memory exchanging summaries\n");
		MPI_Abort(MPI_COMM_WORLD, 1); /* without a place for the counts, no process can go on */
	}
	MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
	if (!bad) {
		bad = place(counts, size, displs, *lens, &total);
	}
	if (!bad) {
		*all = malloc(total ? (size_t)total : 1);
		bad = !*all;
	}
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (!bad) {
		MPI_Allgatherv(buf, n, MPI_BYTE, *all, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
	}
	free(counts);
	free(displs);
	if (bad) {
		free(*all);
		free(*lens);
		*all = NULL;
		*lens = NULL;
		snprintf(errbuf, errlen, "%s", bad == 2 ? "the exchanged summaries exceed 2 GiB"
							: "out of memory exchanging summaries");
		return -1;
	}
	return 0;
}

static int bcast_int(int v)
{
	wait_all(); /* rank 0 may be writing the output */
	MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return v;
}

static void finalize(void)
{
	MPI_Finalize();
}

__attribute__((visibility("default"))) const struct gp_mpi_ops gpuprof_mpi_ops = {
	.version = GP_MPI_OPS_VERSION,
	.init = init,
	.gather = gather,
	.allgather = allgather,
	.bcast_int = bcast_int,
	.finalize = finalize,
};
