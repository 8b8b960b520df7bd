/* SPDX-License-Identifier: MIT */
/*
 * nccl-abi.h - the NCCL profiler plugin interface, versions 4, 5 and 6.
 *
 * NCCL finds a profiler plugin by the exported data symbol
 * ncclProfiler_vN (a table of five functions and a name), trying the newest
 * version it knows first: v4 in NCCL 2.27, v5 in 2.28 (the CUDA 13 toolkit's
 * NCCL), v6 in 2.29 and 2.30. NCCL does not install these declarations;
 * plugins carry their own copy by design, so this is ours, written to the
 * layouts NCCL passes. Field order and types are ABI: never reorder.
 *
 * Differences that matter here:
 *   v4  descriptor type is uint8_t; init(ctx, &mask, name, hash, nodes, nranks, rank, log);
 *       no API or kernel-launch events; coll/p2p have no parentGroup.
 *   v5  descriptor type is uint64_t; init(ctx, commId, &mask, name, nodes, nranks, rank,
 *       log); adds GroupApi, CollApi, P2pApi and KernelLaunch events.
 *   v6  v5 plus copy-engine collective events (ceColl, ceCollSync, ceCollBatch).
 */
#ifndef GPI_NCCL_ABI_H
#define GPI_NCCL_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef int gpi_nccl_result; /* ncclResult_t: 0 is ncclSuccess */
typedef void (*gpi_nccl_logger)(int level, unsigned long flags, const char *file, int line,
				const char *fmt, ...);

/* Event type bits (descriptor .type, and the activation mask). */
enum {
	GPI_NCCL_EV_GROUP = 1 << 0,
	GPI_NCCL_EV_COLL = 1 << 1,
	GPI_NCCL_EV_P2P = 1 << 2,
	GPI_NCCL_EV_PROXY_OP = 1 << 3,
	GPI_NCCL_EV_PROXY_STEP = 1 << 4,
	GPI_NCCL_EV_PROXY_CTRL = 1 << 5,
	GPI_NCCL_EV_KERNEL_CH = 1 << 6,
	GPI_NCCL_EV_NET_PLUGIN = 1 << 7,
	GPI_NCCL_EV_GROUP_API = 1 << 8,	   /* v5 */
	GPI_NCCL_EV_COLL_API = 1 << 9,	   /* v5 */
	GPI_NCCL_EV_P2P_API = 1 << 10,	   /* v5 */
	GPI_NCCL_EV_KERNEL_LAUNCH = 1 << 11, /* v5 */
	GPI_NCCL_EV_CE_COLL = 1 << 12,	   /* v6 */
	GPI_NCCL_EV_CE_SYNC = 1 << 13,	   /* v6 */
	GPI_NCCL_EV_CE_BATCH = 1 << 14,	   /* v6 */
};

/* The states recordEventState reports that we use (ncclProfilerEventState_t values). */
enum {
	GPI_NCCL_ST_KERNEL_CH_STOP = 22,
	GPI_NCCL_ST_GROUP_START_API_STOP = 23,
	GPI_NCCL_ST_GROUP_END_API_START = 24,
};
typedef int gpi_nccl_state; /* the enum NCCL passes, int-sized */

/* Parts shared by several versions. */
struct gpi_nccl_proxy_op {
	pid_t pid; /* the process that created the parent event (PXN: maybe not us) */
	uint8_t channel_id;
	int peer;
	int nsteps;
	int chunk_size;
	int is_send;
};

struct gpi_nccl_kernel_ch {
	uint8_t channel_id;
	uint64_t ptimer; /* GPU globaltimer at channel start */
};

struct gpi_nccl_net_plugin {
	int64_t id;
	void *data;
};

/* ---- version 4 */

struct gpi_nccl_descr_v4 {
	uint8_t type;
	void *parent;
	int rank;
	union {
		struct {
			uint64_t seq;
			const char *func;
			const void *sendbuf;
			void *recvbuf;
			size_t count;
			int root;
			const char *datatype;
			uint8_t nchannels;
			uint8_t nwarps;
			const char *algo;
			const char *proto;
		} coll;
		struct {
			const char *func;
			void *buf;
			const char *datatype;
			size_t count;
			int peer;
			uint8_t nchannels;
		} p2p;
		struct gpi_nccl_proxy_op proxy_op;
		struct {
			int step;
		} proxy_step;
		struct gpi_nccl_kernel_ch kernel_ch;
		struct gpi_nccl_net_plugin net_plugin;
	};
};

/* State arguments: the same union in v4, v5 and v6. */
union gpi_nccl_state_args {
	struct {
		size_t trans_size;
	} proxy_step;
	struct {
		int appended_proxy_ops;
	} proxy_ctrl;
	struct {
		void *data;
	} net_plugin;
	struct {
		uint64_t ptimer; /* GPU globaltimer at channel stop */
	} kernel_ch;
};

struct gpi_nccl_profiler_v4 {
	const char *name;
	gpi_nccl_result (*init)(void **ctx, int *mask, const char *comm_name, uint64_t comm_hash,
				int nnodes, int nranks, int rank, gpi_nccl_logger log);
	gpi_nccl_result (*start_event)(void *ctx, void **handle, struct gpi_nccl_descr_v4 *d);
	gpi_nccl_result (*stop_event)(void *handle);
	gpi_nccl_result (*record_event_state)(void *handle, gpi_nccl_state st,
					      union gpi_nccl_state_args *args);
	gpi_nccl_result (*finalize)(void *ctx);
};

/* ---- versions 5 and 6: one descriptor layout, v6 appends to the union */

struct gpi_nccl_descr_v5 {
	uint64_t type;
	void *parent;
	int rank;
	union {
		struct {
			int graph_captured; /* bool in v6: both read as their first byte */
			int group_depth;
		} group_api;
		struct {
			const char *func;
			size_t count;
			const char *datatype;
			int root;
			void *stream;
			bool graph_captured;
		} coll_api;
		struct {
			const char *func;
			size_t count;
			const char *datatype;
			void *stream;
			bool graph_captured;
		} p2p_api;
		struct {
			void *stream;
		} kernel_launch;
		struct {
			uint64_t seq;
			const char *func;
			const void *sendbuf;
			void *recvbuf;
			size_t count;
			int root;
			const char *datatype;
			uint8_t nchannels;
			uint8_t nwarps;
			const char *algo;
			const char *proto;
			void *parent_group;
		} coll;
		struct {
			const char *func;
			void *buf;
			const char *datatype;
			size_t count;
			int peer;
			uint8_t nchannels;
			void *parent_group;
		} p2p;
		struct gpi_nccl_proxy_op proxy_op;
		struct {
			int step;
		} proxy_step;
		struct gpi_nccl_kernel_ch kernel_ch;
		struct gpi_nccl_net_plugin net_plugin;
		/* v6 only */
		struct {
			uint64_t seq;
			const char *func;
			const void *sendbuf;
			void *recvbuf;
			size_t count;
			int root;
			const char *datatype;
			const char *sync_strategy;
			bool intra_batch_sync;
			uint32_t batch_size;
			uint32_t nbatches;
			uint32_t ce_seq;
			void *stream;
		} ce_coll;
		struct {
			bool is_complete;
			int nranks;
		} ce_sync;
		struct {
			int nops;
			size_t total_bytes;
			bool use_intra_sync;
		} ce_batch;
	};
};

struct gpi_nccl_profiler_v5 {
	const char *name;
	gpi_nccl_result (*init)(void **ctx, uint64_t comm_id, int *mask, const char *comm_name,
				int nnodes, int nranks, int rank, gpi_nccl_logger log);
	gpi_nccl_result (*start_event)(void *ctx, void **handle, struct gpi_nccl_descr_v5 *d);
	gpi_nccl_result (*stop_event)(void *handle);
	gpi_nccl_result (*record_event_state)(void *handle, gpi_nccl_state st,
					      union gpi_nccl_state_args *args);
	gpi_nccl_result (*finalize)(void *ctx);
};

/* v6 has v5's table shape. */
#define gpi_nccl_profiler_v6 gpi_nccl_profiler_v5

#endif /* GPI_NCCL_ABI_H */
