/* SPDX-License-Identifier: MIT */
/*
 * mpi-load.c - --mpi: loads the MPI plugin (gpuprof-mpi.so, linked with
 * OpenMPI) and makes its calls. Only --mpi loads it: a plain run never
 * maps OpenMPI, and gpuprof runs where OpenMPI is not installed. The plugin
 * is looked up in GPUPROF_MPI_PLUGIN, then beside the executable, then in
 * ../lib/gpuprof/ from it (where make install puts it).
 */
#define GP_LOG_TAG "cli/mpi"
#include "base/compat.h"
#include "cli/cli.h"
#include "cli/mpi/mpi-ops.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct gp_mpi_ops *ops;

/* dlopen of path; NULL with the loader's reason in why. */
static void *try_open(const char *path, char *why, size_t whylen)
{
	/* GLOBAL: OpenMPI's own components resolve against libmpi's symbols */
	void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);

	if (!h) {
		const char *e = dlerror();
		snprintf(why, whylen, "%s", e ? e : "dlopen failed");
	}
	return h;
}

static void *open_plugin(char *why, size_t whylen)
{
	const char *env = getenv("GPUPROF_MPI_PLUGIN");
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n;

	if (env && *env) {
		return try_open(env, why, whylen);
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(why, whylen, "cannot find the gpuprof executable");
		return NULL;
	}
	exe[n] = 0;
	*strrchr(exe, '/') = 0; /* the kernel's link is an absolute path */
	snprintf(path, sizeof(path), "%s/gpuprof-mpi.so", exe);
	if (access(path, F_OK) == 0) {
		return try_open(path, why, whylen);
	}
	snprintf(path, sizeof(path), "%s/../lib/gpuprof/gpuprof-mpi.so", exe);
	return try_open(path, why, whylen);
}

int cli_mpi_open(void)
{
	char why[512];
	void *h;

	if (ops) {
		return CMD_OK;
	}
	h = open_plugin(why, sizeof(why));
	if (!h) {
		cli_error("--mpi needs the MPI plugin gpuprof-mpi.so and OpenMPI: %s", why);
		return CMD_ERROR;
	}
	ops = dlsym(h, GP_MPI_OPS_SYMBOL);
	if (!ops || ops->version != GP_MPI_OPS_VERSION) {
		cli_error("--mpi: the MPI plugin is not of this gpuprof (%s)",
			  ops ? "another version" : "no " GP_MPI_OPS_SYMBOL);
		ops = NULL;
		return CMD_ERROR;
	}
	return CMD_OK;
}

int cli_mpi_init(int *rank, int *size)
{
	char why[512];

	if (cli_mpi_open()) {
		return CMD_ERROR;
	}
	if (ops->init(rank, size, why, sizeof(why))) {
		cli_error("%s", why);
		ops = NULL;
		return CMD_ERROR;
	}
	gp_debug("process %d of %d", *rank, *size);
	return CMD_OK;
}

/* A whole non-negative decimal number from the environment, below limit. */
static bool env_number(const char *name, long limit, int *out)
{
	const char *v = getenv(name);
	char *end;
	long x;

	if (!v || *v < '0' || *v > '9') {
		return false;
	}
	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || *end || x >= limit) {
		return false;
	}
	*out = (int)x;
	return true;
}

bool cli_mpi_launcher_rank(int *rank, int *size)
{
	/* OpenMPI's mpirun, then MPICH's Hydra (PMI), then Slurm's srun */
	static const char *const pairs[][2] = {
		{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
		{"PMI_RANK", "PMI_SIZE"},
		{"SLURM_PROCID", "SLURM_NTASKS"},
	};

	for (size_t i = 0; i < GP_ARRAY_SIZE(pairs); i++) {
		if (env_number(pairs[i][1], INT_MAX, size) && *size > 0 &&
		    env_number(pairs[i][0], *size, rank)) {
			return true;
		}
	}
	return false;
}

int cli_mpi_gather(const void *buf, size_t len, int rank, int size, char **all, size_t **lens)
{
	char why[256];

	if (ops->gather(buf, len, rank, size, all, lens, why, sizeof(why))) {
		if (rank == 0) {
			cli_error("%s", why);
		}
		return CMD_ERROR;
	}
	gp_debug("process %d sent %zu bytes of summaries", rank, len);
	return CMD_OK;
}

int cli_mpi_allgather(const void *buf, size_t len, int size, char **all, size_t **lens)
{
	char why[256];

	if (ops->allgather(buf, len, size, all, lens, why, sizeof(why))) {
		cli_error("%s", why);
		return CMD_ERROR;
	}
	gp_debug("sent %zu bytes to every process", len);
	return CMD_OK;
}

int cli_mpi_status(int status)
{
	return ops ? ops->bcast_int(status) : status;
}

void cli_mpi_finalize(void)
{
	if (ops) {
		ops->finalize();
		ops = NULL;
	}
}
