/* SPDX-License-Identifier: MIT */
/*
 * mpi-ops.h - what the MPI plugin (gpuprof-mpi.so, cli/mpi/plugin.c) gives
 * the command. The command loads it only for --mpi (cli/mpi-load.c), so a
 * plain run neither loads OpenMPI nor needs it installed.
 */
#ifndef GP_CLI_MPI_OPS_H
#define GP_CLI_MPI_OPS_H

#include <stddef.h>

/* Raised when the table changes; the command refuses a plugin of another version. */
#define GP_MPI_OPS_VERSION 2

struct gp_mpi_ops {
	int version;
	/* MPI_Init and this process's rank and size; 0, or -1 with the reason in errbuf. */
	int (*init)(int *rank, int *size, char *errbuf, size_t errlen);
	/*
	 * Rank 0 receives every process's bytes one after another in *all and
	 * their lengths in *lens (caller frees both; NULL elsewhere). Collective:
	 * every process calls it. 0, or -1 with the reason in errbuf on rank 0.
	 */
	int (*gather)(const void *buf, size_t len, int rank, int size, char **all, size_t **lens,
		      char *errbuf, size_t errlen);
	/*
	 * As gather, but every process receives every process's bytes (caller
	 * frees *all and *lens). 0, or -1 with the reason in errbuf.
	 */
	int (*allgather)(const void *buf, size_t len, int size, char **all, size_t **lens,
			 char *errbuf, size_t errlen);
	/* Rank 0's value of v, on every process. */
	int (*bcast_int)(int v);
	void (*finalize)(void);
};

/* The symbol the plugin exports. */
#define GP_MPI_OPS_SYMBOL "gpuprof_mpi_ops"

#endif /* GP_CLI_MPI_OPS_H */
