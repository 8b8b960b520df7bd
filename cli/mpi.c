/* SPDX-License-Identifier: MIT */
/*
 * mpi.c - the few MPI calls the job report makes (cli/job.c,
 * docs/cluster.md). Nothing here runs unless a command is given --mpi: a
 * plain run never initialises MPI.
 */
#define GP_LOG_TAG "cli/mpi"
#include "base/compat.h"
#include "cli/cli.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>

static bool started;

int cli_mpi_init(int *rank, int *size)
{
	int argc = 0;
	char **argv = NULL;

	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		cli_error("MPI_Init failed");
		return CMD_ERROR;
	}
	started = true;
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, size);
	gp_debug("process %d of %d", *rank, *size);
	return CMD_OK;
}

int cli_mpi_gather(const void *buf, size_t len, int rank, int size, char **all, size_t **lens)
{
	int n = len > INT_MAX ? -1 : (int)len, *counts = NULL, *displs = NULL, bad = 0;
	long long total = 0;

	*all = NULL;
	*lens = NULL;
	if (rank == 0) {
		counts = calloc((size_t)size, sizeof(*counts));
		displs = calloc((size_t)size, sizeof(*displs));
		*lens = calloc((size_t)size, sizeof(**lens));
		if (!counts || !displs || !*lens) {
			bad = 1;
		}
	}
	MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	for (int i = 0; rank == 0 && !bad && i < size; i++) {
		if (counts[i] < 0 || total + counts[i] > INT_MAX) {
			bad = 2;
			break;
		}
		displs[i] = (int)total;
		(*lens)[i] = (size_t)counts[i];
		total += counts[i];
	}
	if (rank == 0 && !bad) {
		*all = malloc(total ? (size_t)total : 1);
		bad = !*all;
	}
	/* every process learns whether rank 0 can take the summaries */
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
		if (rank == 0) {
			cli_error(bad == 2 ? "the rank summaries exceed 2 GiB on rank 0"
					   : "out of memory gathering the rank summaries");
		}
		return CMD_ERROR;
	}
	gp_debug("process %d sent %zu bytes of summaries", rank, len);
	return CMD_OK;
}

int cli_mpi_status(int status)
{
	MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return status;
}

void cli_mpi_finalize(void)
{
	if (started) {
		MPI_Finalize();
		started = false;
	}
}
