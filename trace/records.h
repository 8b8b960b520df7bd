/* SPDX-License-Identifier: MIT */
/*
 * records.h - every record kind of the .gpz format, defined once.
 *
 * Each kind is an X-macro list of fields: X(id, type, name, encoding, ref).
 *   id        stable field number inside the kind (never reused, only appended)
 *   type      u8 u16 u32 u64 i32 i64, or str (a uint32_t string id; 0 = none)
 *   encoding  the writer's preferred column encoding (see FORMAT.md):
 *             VARINT, ZIGZAG, DELTA (zigzag of the difference from the previous
 *             record), REL (zigzag of the difference from field 'ref' of the same
 *             record); a column whose values are all equal is written CONST
 *             whatever this says, and an all-zero column is not written at all
 *   ref       for REL, the id of the field it is relative to (it must come first)
 *
 * From these lists records.h generates the C structs (struct gpt_kernel, ...)
 * and trace/schema.c the field tables the codec, the reader and `gpuprof dump`
 * use. Times are nanoseconds on the trace's clock (CUPTI's timestamp, see the
 * CLOCK record); nothing is ever rounded. Included through trace/trace.h.
 */
#ifndef GPT_RECORDS_H
#define GPT_RECORDS_H

#include <stdint.h>

/* The process that wrote the trace; one at start, optionally one more at close. */
#define GPT_PROCESS_FIELDS(X)                                                                      \
	X(1, u64, ts, DELTA, 0)                                                                    \
	X(2, u32, pid, VARINT, 0)                                                                  \
	X(3, u32, ppid, VARINT, 0)                                                                 \
	X(4, str, host, VARINT, 0)                                                                 \
	X(5, str, exe, VARINT, 0)                                                                  \
	X(6, str, cmdline, VARINT, 0)     /* arguments joined by NUL-free spaces, quoted */        \
	X(7, i32, rank, ZIGZAG, 0)        /* -1 when not launched as a rank */                     \
	X(8, i32, local_rank, ZIGZAG, 0)                                                           \
	X(9, i32, world_size, ZIGZAG, 0)                                                           \
	X(10, i32, local_world_size, ZIGZAG, 0)                                                    \
	X(11, str, launcher, VARINT, 0)   /* torchrun, openmpi, slurm, mpich, none */              \
	X(12, u64, start_realtime, VARINT, 0)                                                      \
	X(13, u32, cuda_driver_version, VARINT, 0)                                                 \
	X(14, u32, cuda_runtime_version, VARINT, 0)                                                \
	X(15, u32, cupti_version, VARINT, 0)                                                       \
	X(16, u32, nccl_version, VARINT, 0)                                                        \
	X(17, str, gpuprof_version, VARINT, 0)                                                     \
	X(18, str, settings, VARINT, 0)   /* GPUPROF_* settings in effect, "k=v k=v" */            \
	X(19, str, status, VARINT, 0)     /* why tracing is partial or off; 0 when fine */         \
	X(20, i32, exit_status, ZIGZAG, 0) /* at close: exit code, 128+signal, -1 unknown */       \
	X(21, u8, phase, VARINT, 0)       /* 1 start, 2 close */

/* One device as seen by the process (CUPTI DEVICE record plus driver attributes). */
#define GPT_DEVICE_FIELDS(X)                                                                       \
	X(1, u32, id, VARINT, 0)                                                                   \
	X(2, str, name, VARINT, 0)                                                                 \
	X(3, u64, uuid_hi, VARINT, 0)                                                              \
	X(4, u64, uuid_lo, VARINT, 0)                                                              \
	X(5, u8, cc_major, VARINT, 0)                                                              \
	X(6, u8, cc_minor, VARINT, 0)                                                              \
	X(7, u32, num_sms, VARINT, 0)                                                              \
	X(8, u32, warp_size, VARINT, 0)                                                            \
	X(9, u32, max_warps_per_sm, VARINT, 0)                                                     \
	X(10, u32, max_blocks_per_sm, VARINT, 0)                                                   \
	X(11, u32, max_threads_per_block, VARINT, 0)                                               \
	X(12, u32, max_regs_per_sm, VARINT, 0)                                                     \
	X(13, u32, max_regs_per_block, VARINT, 0)                                                  \
	X(14, u32, max_regs_per_thread, VARINT, 0)                                                 \
	X(15, u64, max_smem_per_sm, VARINT, 0)                                                     \
	X(16, u64, max_smem_per_block, VARINT, 0)                                                  \
	X(17, u64, max_smem_per_block_optin, VARINT, 0)                                            \
	X(18, u32, reserved_smem_per_block, VARINT, 0)                                             \
	X(19, u64, global_mem_bytes, VARINT, 0)                                                    \
	X(20, u64, global_mem_bw_kbps, VARINT, 0) /* kilobytes per second, as CUPTI */             \
	X(21, u32, l2_bytes, VARINT, 0)                                                            \
	X(22, u32, constant_mem_bytes, VARINT, 0)                                                  \
	X(23, u32, core_clock_khz, VARINT, 0)                                                      \
	X(24, u32, mem_clock_khz, VARINT, 0)                                                       \
	X(25, u32, mem_bus_width_bits, VARINT, 0)                                                  \
	X(26, u32, num_memcpy_engines, VARINT, 0)                                                  \
	X(27, u32, max_ipc, VARINT, 0)                                                             \
	X(28, u32, max_block_dim_x, VARINT, 0)                                                     \
	X(29, u32, max_block_dim_y, VARINT, 0)                                                     \
	X(30, u32, max_block_dim_z, VARINT, 0)                                                     \
	X(31, u32, max_grid_dim_x, VARINT, 0)                                                      \
	X(32, u32, max_grid_dim_y, VARINT, 0)                                                      \
	X(33, u32, max_grid_dim_z, VARINT, 0)                                                      \
	X(34, u8, ecc_enabled, VARINT, 0)                                                          \
	X(35, u8, concurrent_kernels, VARINT, 0)                                                   \
	X(36, u8, is_mig, VARINT, 0)                                                               \
	X(37, u32, gpu_instance_id, VARINT, 0)                                                     \
	X(38, u32, compute_instance_id, VARINT, 0)                                                 \
	X(39, u64, mig_uuid_hi, VARINT, 0)                                                         \
	X(40, u64, mig_uuid_lo, VARINT, 0)                                                         \
	X(41, i32, numa_id, ZIGZAG, 0)                                                             \
	X(42, u32, pci_domain, VARINT, 0)                                                          \
	X(43, u32, pci_bus, VARINT, 0)                                                             \
	X(44, u32, pci_device, VARINT, 0)                                                          \
	X(45, u32, max_barriers_per_block, VARINT, 0)                                              \
	X(46, u32, max_threads_per_sm, VARINT, 0)

#define GPT_CONTEXT_FIELDS(X)                                                                      \
	X(1, u32, id, VARINT, 0)                                                                   \
	X(2, u32, device, VARINT, 0)                                                               \
	X(3, u32, null_stream, VARINT, 0)                                                          \
	X(4, u8, compute_api_kind, VARINT, 0)                                                      \
	X(5, u32, parent, VARINT, 0)                                                               \
	X(6, u8, is_green, VARINT, 0)                                                              \
	X(7, u32, num_sms, VARINT, 0)                                                              \
	X(8, u8, cig_mode, VARINT, 0)

#define GPT_STREAM_FIELDS(X)                                                                       \
	X(1, u32, id, VARINT, 0)                                                                   \
	X(2, u32, context, VARINT, 0)                                                              \
	X(3, i32, priority, ZIGZAG, 0)                                                             \
	X(4, u8, flags, VARINT, 0) /* 0 default, 1 non-blocking, 2 null stream */                  \
	X(5, u32, correlation, VARINT, 0)                                                          \
	X(6, str, name, VARINT, 0) /* from nvtxNameCudaStream */

#define GPT_THREAD_FIELDS(X)                                                                       \
	X(1, u64, ts, DELTA, 0)                                                                    \
	X(2, u32, tid, VARINT, 0)   /* gettid() */                                                 \
	X(3, str, name, VARINT, 0)  /* nvtxNameOsThread, else the OS name */                       \
	X(4, u64, pthread, VARINT, 0)

/* Clock anchors: one trace-clock timestamp paired with host clocks read next to it. */
#define GPT_CLOCK_FIELDS(X)                                                                        \
	X(1, u64, ts, DELTA, 0)            /* trace clock */                                       \
	X(2, u64, realtime, DELTA, 0)      /* CLOCK_REALTIME */                                    \
	X(3, u64, monotonic, DELTA, 0)     /* CLOCK_MONOTONIC */                                   \
	X(4, u64, monotonic_raw, DELTA, 0) /* CLOCK_MONOTONIC_RAW */                               \
	X(5, u8, phase, VARINT, 0)         /* 1 start, 2 end, 3 periodic */                        \
	X(6, u32, uncertainty, VARINT, 0)  /* ns between the host reads around ts */

/* Loss is never silent: one record per cause and interval, counts are additive. */
#define GPT_LOSS_FIELDS(X)                                                                         \
	X(1, u64, ts, DELTA, 0)                                                                    \
	X(2, u8, cause, VARINT, 0)  /* enum gpt_loss_cause */                                      \
	X(3, u64, count, VARINT, 0) /* records lost */                                             \
	X(4, u32, device, VARINT, 0)                                                               \
	X(5, u32, context, VARINT, 0)                                                              \
	X(6, u64, bytes, VARINT, 0) /* bytes lost where known */

#define GPT_KERNEL_FIELDS(X)                                                                       \
	X(1, u64, start, KEYED, 8)                                                                 \
	X(2, u64, end, REL, 1)                                                                     \
	X(3, u64, completed, REL, 1) /* includes child kernels; 0 when unknown */                  \
	X(4, u64, queued, REL, 1)    /* latency timestamps; 0 when not collected */                \
	X(5, u64, submitted, REL, 1)                                                               \
	X(6, u32, device, VARINT, 0)                                                               \
	X(7, u32, context, VARINT, 0)                                                              \
	X(8, u32, stream, VARINT, 0)                                                               \
	X(9, u32, correlation, DELTA, 0)                                                           \
	X(10, str, name, VARINT, 0)      /* mangled, as CUPTI reports it */                        \
	X(11, str, demangled, KEYED, 10) /* 0 when the name is not mangled */                      \
	X(12, i32, grid_x, KEYED, 10)                                                              \
	X(13, i32, grid_y, KEYED, 10)                                                              \
	X(14, i32, grid_z, KEYED, 10)                                                              \
	X(15, i32, block_x, KEYED, 10)                                                             \
	X(16, i32, block_y, KEYED, 10)                                                             \
	X(17, i32, block_z, KEYED, 10)                                                             \
	X(18, u32, cluster_x, KEYED, 10)                                                           \
	X(19, u32, cluster_y, KEYED, 10)                                                           \
	X(20, u32, cluster_z, KEYED, 10)                                                           \
	X(21, u8, cluster_sched_policy, VARINT, 0)                                                 \
	X(22, u16, registers, KEYED, 10)                                                           \
	X(23, i32, static_smem, KEYED, 10)                                                         \
	X(24, i32, dynamic_smem, KEYED, 10)                                                        \
	X(25, u32, local_mem_per_thread, KEYED, 10)                                                \
	X(26, u64, local_mem_total, KEYED, 10)                                                     \
	X(27, u32, smem_executed, KEYED, 10) /* carveout in effect, bytes */                       \
	X(28, u8, smem_carveout_requested, VARINT, 0) /* percent */                                \
	X(29, u8, smem_carveout_is_requested, VARINT, 0)                                           \
	X(30, u8, cache_config_requested, VARINT, 0)                                               \
	X(31, u8, cache_config_executed, VARINT, 0)                                                \
	X(32, u8, smem_config, VARINT, 0)                                                          \
	X(33, u8, partitioned_gc_requested, VARINT, 0)                                             \
	X(34, u8, partitioned_gc_executed, VARINT, 0)                                              \
	X(35, u8, shmem_limit_config, VARINT, 0)                                                   \
	X(36, u8, launch_type, VARINT, 0)                                                          \
	X(37, u32, graph_id, VARINT, 0)                                                            \
	X(38, u64, graph_node_id, VARINT, 0)                                                       \
	X(39, i64, grid_id, DELTA, 0)                                                              \
	X(40, u32, channel_id, VARINT, 0)                                                          \
	X(41, u8, channel_type, VARINT, 0)                                                         \
	X(42, u32, max_potential_cluster_size, VARINT, 0)                                          \
	X(43, u32, max_active_clusters, VARINT, 0)                                                 \
	X(44, u8, is_device_launched, VARINT, 0)                                                   \
	X(45, u32, src_occupancy_bp, VARINT, 0) /* occupancy reported by the source, basis points (Kineto "est. achieved occupancy %" x100); 0 none */ \
	X(46, u32, src_blocks_per_sm_milli, VARINT, 0) /* "blocks per SM" x1000 */                  \
	X(47, u32, src_warps_per_sm_milli, VARINT, 0) /* "warps per SM" x1000 */

/* MEMCPY and MEMCPY2 (peer-to-peer) records. */
#define GPT_MEMCPY_FIELDS(X)                                                                       \
	X(1, u64, start, KEYED, 5)                                                                 \
	X(2, u64, end, REL, 1)                                                                     \
	X(3, u32, device, VARINT, 0)                                                               \
	X(4, u32, context, VARINT, 0)                                                              \
	X(5, u32, stream, VARINT, 0)                                                               \
	X(6, u32, correlation, DELTA, 0)                                                           \
	X(7, u32, runtime_correlation, DELTA, 0)                                                   \
	X(8, u64, bytes, VARINT, 0)                                                                \
	X(9, u8, copy_kind, VARINT, 0) /* CUpti_ActivityMemcpyKind */                              \
	X(10, u8, src_kind, VARINT, 0) /* CUpti_ActivityMemoryKind */                              \
	X(11, u8, dst_kind, VARINT, 0)                                                             \
	X(12, u8, flags, VARINT, 0)    /* bit 0: async */                                          \
	X(13, u32, src_device, VARINT, 0)                                                          \
	X(14, u32, src_context, VARINT, 0)                                                         \
	X(15, u32, dst_device, VARINT, 0)                                                          \
	X(16, u32, dst_context, VARINT, 0)                                                         \
	X(17, u32, graph_id, VARINT, 0)                                                            \
	X(18, u64, graph_node_id, VARINT, 0)                                                       \
	X(19, u32, channel_id, VARINT, 0)                                                          \
	X(20, u8, channel_type, VARINT, 0)                                                         \
	X(21, u8, is_device_launched, VARINT, 0)                                                   \
	X(22, u32, copy_count, VARINT, 0)                                                          \
	X(23, u8, is_p2p, VARINT, 0) /* came from a MEMCPY2 record */

#define GPT_MEMSET_FIELDS(X)                                                                       \
	X(1, u64, start, KEYED, 5)                                                                 \
	X(2, u64, end, REL, 1)                                                                     \
	X(3, u32, device, VARINT, 0)                                                               \
	X(4, u32, context, VARINT, 0)                                                              \
	X(5, u32, stream, VARINT, 0)                                                               \
	X(6, u32, correlation, DELTA, 0)                                                           \
	X(7, u32, value, VARINT, 0)                                                                \
	X(8, u64, bytes, VARINT, 0)                                                                \
	X(9, u8, flags, VARINT, 0) /* bit 0: async */                                              \
	X(10, u8, memory_kind, VARINT, 0)                                                          \
	X(11, u32, graph_id, VARINT, 0)                                                            \
	X(12, u64, graph_node_id, VARINT, 0)                                                       \
	X(13, u32, channel_id, VARINT, 0)                                                          \
	X(14, u8, channel_type, VARINT, 0)                                                         \
	X(15, u8, is_device_launched, VARINT, 0)

/* A CUDA runtime or driver API call. */
#define GPT_API_FIELDS(X)                                                                          \
	X(1, u64, start, KEYED, 3)                                                                 \
	X(2, u64, end, REL, 1)                                                                     \
	X(3, u32, tid, VARINT, 0)                                                                  \
	X(4, u8, domain, VARINT, 0) /* enum gpt_api_domain */                                      \
	X(5, u32, cbid, VARINT, 0)                                                                 \
	X(6, str, name, KEYED, 5)                                                                 \
	X(7, u32, correlation, DELTA, 0)                                                           \
	X(8, u32, return_value, VARINT, 0)

#define GPT_SYNC_FIELDS(X)                                                                         \
	X(1, u64, start, KEYED, 6)                                                                 \
	X(2, u64, end, REL, 1)                                                                     \
	X(3, u8, type, VARINT, 0) /* 1 event, 2 stream-wait-event, 3 stream, 4 context, 5 record */ \
	X(4, u32, correlation, DELTA, 0)                                                           \
	X(5, u32, context, VARINT, 0)                                                              \
	X(6, u32, stream, VARINT, 0)                                                               \
	X(7, u32, event_id, VARINT, 0)                                                             \
	X(8, u64, event_sync_id, VARINT, 0)                                                        \
	X(9, u32, return_value, VARINT, 0)                                                         \
	X(10, u32, device_plus1, VARINT, 0) /* device ordinal + 1; 0 unknown (CUPTI has none) */   \
	X(11, u32, record_correlation, VARINT, 0) /* the awaited cudaEventRecord call; 0 unknown */ \
	X(12, u32, record_stream, VARINT, 0) /* the stream it recorded on, with 11 */

/* An NVTX range (push/pop or start/end) or mark. */
#define GPT_NVTX_FIELDS(X)                                                                         \
	X(1, u64, start, KEYED, 11)                                                                 \
	X(2, u64, end, REL, 1)            /* == start for marks */                                 \
	X(3, u8, type, VARINT, 0)         /* enum gpt_nvtx_type */                                 \
	X(4, str, domain, VARINT, 0)      /* 0: the default domain */                              \
	X(5, str, message, VARINT, 0)                                                              \
	X(6, u32, category, VARINT, 0)                                                             \
	X(7, u32, color, VARINT, 0)       /* ARGB */                                               \
	X(8, u8, color_type, VARINT, 0)   /* 0 none, 1 ARGB */                                     \
	X(9, u8, payload_type, VARINT, 0) /* NVTX payload type; 0 none */                          \
	X(10, u64, payload, VARINT, 0)    /* the payload's bits */                                 \
	X(11, u32, start_tid, VARINT, 0)                                                           \
	X(12, u32, end_tid, VARINT, 0)                                                             \
	X(13, u16, depth, VARINT, 0)      /* push/pop nesting depth, 0 outermost */                \
	X(14, u64, range_id, DELTA, 0)    /* start/end ranges; 0 otherwise */                      \
	X(15, str, args, VARINT, 0)       /* a CPU op's recorded inputs (format 1.2); 0 none */      \
	X(16, u64, message_num, VARINT, 0) /* in a flight ring only: message is a pattern */

/* An NCCL operation (collective or point-to-point). */
#define GPT_NCCL_FIELDS(X)                                                                         \
	X(1, u64, start, KEYED, 15)                                                                 \
	X(2, u64, end, REL, 1)                                                                     \
	X(3, str, func, VARINT, 0) /* AllReduce, Send, ... */                                      \
	X(4, u64, count, VARINT, 0)                                                                \
	X(5, u8, datatype, VARINT, 0) /* ncclDataType_t */                                         \
	X(6, u64, bytes, VARINT, 0)                                                                \
	X(7, i32, root, ZIGZAG, 0)                                                                 \
	X(8, i32, peer, ZIGZAG, 0)                                                                 \
	X(9, u64, comm_hash, VARINT, 0)                                                            \
	X(10, i32, rank, ZIGZAG, 0)                                                                \
	X(11, i32, nranks, ZIGZAG, 0)                                                              \
	X(12, str, algorithm, VARINT, 0)                                                           \
	X(13, str, protocol, VARINT, 0)                                                            \
	X(14, u32, channels, VARINT, 0)                                                            \
	X(15, u32, stream, VARINT, 0)                                                              \
	X(16, u32, device, VARINT, 0)                                                              \
	X(17, u64, external_id, DELTA, 0) /* links to kernels via EXTCORR */                       \
	X(18, u64, seq, DELTA, 0)                                                                  \
	X(19, u32, tid, VARINT, 0)                                                                 \
	X(20, u8, reduce_op, VARINT, 0)                                                            \
	X(21, u8, source, VARINT, 0) /* enum gpt_nccl_source */                                   \
	X(22, u32, nodes, VARINT, 0) /* nodes in the communicator; 0 unknown */                    \
	X(23, u64, enqueued, REL, 1) /* when the plugin saw it enqueued; 0 unknown */              \
	X(24, u64, gpu_start, REL, 1) /* first channel start on the GPU; 0 unknown */              \
	X(25, u64, gpu_end, REL, 24) /* last channel stop on the GPU; 0 unknown */                 \
	X(26, u64, op_id, DELTA, 0) /* this process's id of the op; NCCL_CHANNEL refers to it */   \
	X(27, u32, warps, VARINT, 0) /* nWarps per channel (plugin) */                             \
	X(28, u64, stream_handle, VARINT, 0) /* the cudaStream_t value; 0 unknown */               \
	X(29, str, comm_name, VARINT, 0) /* the communicator's name, when it has one */            \
	X(30, u8, flags, VARINT, 0) /* enum gpt_nccl_flags */

/*
 * Per-channel GPU execution of one NCCL op, from the profiler plugin's
 * KernelCh events: the GPU globaltimer readings as given (gpu_start,
 * gpu_end) and converted to the trace clock (start, end).
 */
#define GPT_NCCL_CHANNEL_FIELDS(X)                                                                 \
	X(1, u64, start, DELTA, 0)                                                                 \
	X(2, u64, end, REL, 1)                                                                     \
	X(3, u64, op_id, DELTA, 0) /* the NCCL record's op_id */                                   \
	X(4, u8, channel, VARINT, 0)                                                               \
	X(5, u64, comm_hash, VARINT, 0)                                                            \
	X(6, u64, seq, DELTA, 0)                                                                   \
	X(7, i32, rank, ZIGZAG, 0)                                                                 \
	X(8, u64, gpu_start, DELTA, 0) /* globaltimer ns as NCCL read it */                        \
	X(9, u64, gpu_end, REL, 8)

#define GPT_EXTCORR_FIELDS(X)                                                                      \
	X(1, u8, external_kind, VARINT, 0)                                                         \
	X(2, u64, external_id, DELTA, 0)                                                           \
	X(3, u32, correlation, DELTA, 0)

#define GPT_OVERHEAD_FIELDS(X)                                                                     \
	X(1, u64, start, DELTA, 0)                                                                 \
	X(2, u64, end, REL, 1)                                                                     \
	X(3, u32, overhead_kind, VARINT, 0) /* CUpti_ActivityOverheadKind */                       \
	X(4, u8, object_kind, VARINT, 0)    /* CUpti_ActivityObjectKind */                         \
	X(5, u32, object_id0, VARINT, 0)    /* process or device */                                \
	X(6, u32, object_id1, VARINT, 0)    /* thread or context */                                \
	X(7, u32, object_id2, VARINT, 0)    /* stream */                                           \
	X(8, u32, correlation, DELTA, 0)

/* A sampled hardware or software metric; value is an IEEE-754 double's bits. */
#define GPT_METRIC_FIELDS(X)                                                                       \
	X(1, u64, ts, DELTA, 0)                                                                    \
	X(2, u32, device, VARINT, 0)                                                               \
	X(3, str, metric, VARINT, 0)                                                               \
	X(4, u64, value_bits, VARINT, 0)

/*
 * Device memory allocation and release (CUPTI MEMORY2, a PyTorch profiler
 * "[memory]" event, an nsys CUDA_GPU_MEMORY_USAGE_EVENTS row). bytes is the
 * size, op says which way; the totals are the allocator's after the event
 * when flags has GPT_MEMORY_HAS_TOTALS (reserved: GPT_MEMORY_HAS_RESERVED).
 */
#define GPT_MEMORY_FIELDS(X)                                                                       \
	X(1, u64, ts, DELTA, 0)                                                                    \
	X(2, u8, op, VARINT, 0) /* 1 allocation, 2 release */                                      \
	X(3, u8, memory_kind, VARINT, 0)                                                           \
	X(4, u64, address, VARINT, 0)                                                              \
	X(5, u64, bytes, VARINT, 0)                                                                \
	X(6, u32, device, VARINT, 0)                                                               \
	X(7, u32, context, VARINT, 0)                                                              \
	X(8, u32, stream, VARINT, 0)                                                               \
	X(9, u32, correlation, DELTA, 0)                                                           \
	X(10, u64, pc, VARINT, 0)                                                                  \
	X(11, u8, is_async, VARINT, 0)                                                             \
	X(12, u8, pool_type, VARINT, 0)                                                            \
	X(13, str, name, VARINT, 0)                                                                \
	X(14, u32, tid, VARINT, 0)             /* allocating CPU thread; 0 unknown (1.2) */        \
	X(15, u64, total_allocated, VARINT, 0) /* allocator's bytes in use after it (1.2) */       \
	X(16, u64, total_reserved, VARINT, 0)  /* allocator's bytes reserved after it (1.2) */     \
	X(17, u8, flags, VARINT, 0)            /* enum gpt_memory_flags (1.2) */                   \
	X(18, u8, device_type, VARINT, 0)      /* c10 DeviceType: 0 CPU, 1 CUDA, 6 HIP (1.2) */

/* A memory pool created, destroyed or trimmed (CUPTI MEMORY_POOL; format 1.2). */
#define GPT_MEMORY_POOL_FIELDS(X)                                                                  \
	X(1, u64, ts, DELTA, 0)                                                                    \
	X(2, u8, op, VARINT, 0)        /* 1 created, 2 destroyed, 3 trimmed */                     \
	X(3, u8, pool_type, VARINT, 0) /* 1 local, 2 imported */                                   \
	X(4, u64, address, VARINT, 0)                                                              \
	X(5, u64, size, VARINT, 0)                                                                 \
	X(6, u64, release_threshold, VARINT, 0)                                                    \
	X(7, u64, utilized_size, VARINT, 0)                                                        \
	X(8, u64, min_bytes_to_keep, VARINT, 0) /* trimmed: what the trim kept */                  \
	X(9, u32, device, VARINT, 0)                                                               \
	X(10, u32, correlation, DELTA, 0)                                                          \
	X(11, u8, is_managed, VARINT, 0)

/* One CUDA graph launch (GRAPH_TRACE). */
#define GPT_GRAPH_FIELDS(X)                                                                        \
	X(1, u64, start, DELTA, 0)                                                                 \
	X(2, u64, end, REL, 1)                                                                     \
	X(3, u32, device, VARINT, 0)                                                               \
	X(4, u32, context, VARINT, 0)                                                              \
	X(5, u32, stream, VARINT, 0)                                                               \
	X(6, u32, correlation, DELTA, 0)                                                           \
	X(7, u32, graph_id, VARINT, 0)                                                             \
	X(8, u32, end_device, VARINT, 0)                                                           \
	X(9, u32, end_context, VARINT, 0)

/* A name given to an id: NVTX categories, domains, devices, contexts. */
#define GPT_NAME_FIELDS(X)                                                                         \
	X(1, u8, type, VARINT, 0) /* enum gpt_name_type */                                         \
	X(2, str, domain, VARINT, 0)                                                               \
	X(3, u64, id, VARINT, 0)                                                                   \
	X(4, str, name, VARINT, 0)

/*
 * CPU call stacks captured at API calls (--backtrace). A stack is a chain of
 * interned nodes: each STACK_NODE is one frame (pc) under its parent frame
 * (0: the outermost frame has none); ids start at 1 and a parent's id is
 * always smaller than its child's. Each node is written once.
 */
#define GPT_STACK_NODE_FIELDS(X)                                                                   \
	X(1, u32, id, DELTA, 0)                                                                    \
	X(2, u32, parent, VARINT, 0) /* 0: outermost frame */                                      \
	X(3, u64, pc, VARINT, 0)     /* return address (the call site + 1 insn), or the pc */

/* The stack captured at one API call, joined to its API record by correlation. */
#define GPT_STACK_FIELDS(X)                                                                        \
	X(1, u64, ts, DELTA, 0)                                                                    \
	X(2, u32, correlation, DELTA, 0)                                                           \
	X(3, u32, tid, VARINT, 0)                                                                  \
	X(4, u32, node, VARINT, 0)   /* innermost frame's STACK_NODE; 0 none captured */           \
	X(5, u16, depth, VARINT, 0)  /* frames in the chain */                                     \
	X(6, u8, flags, VARINT, 0)   /* bit 0 cut at the depth limit, bit 1 node table full */     \
	X(7, u8, method, VARINT, 0)  /* 1 frame pointers, 2 libunwind */

/* A loaded module (executable or shared object), for symbolizing stack pcs. */
#define GPT_MODULE_FIELDS(X)                                                                       \
	X(1, u64, ts, DELTA, 0)                                                                    \
	X(2, u32, id, VARINT, 0)                                                                   \
	X(3, str, path, VARINT, 0)    /* as the loader names it; the executable's real path */    \
	X(4, u64, base, VARINT, 0)    /* load bias: runtime address = ELF vaddr + base */         \
	X(5, u64, lo, VARINT, 0)      /* runtime address range of its PT_LOAD segments */         \
	X(6, u64, hi, REL, 5)                                                                      \
	X(7, str, build_id, VARINT, 0) /* GNU build-id, lower-case hex; 0 none */

/*
 * The kinds: X(number, name, NAME, fields, time field, end field). The time
 * fields give each chunk its first and last timestamp (0: the kind has none).
 * Kind 1 is the string table and 127 the footer index; they are not records.
 */
#define GPT_RECORD_KINDS(X)                                                                        \
	X(2, process, PROCESS, GPT_PROCESS_FIELDS, 1, 0)                                           \
	X(3, device, DEVICE, GPT_DEVICE_FIELDS, 0, 0)                                              \
	X(4, context, CONTEXT, GPT_CONTEXT_FIELDS, 0, 0)                                           \
	X(5, stream, STREAM, GPT_STREAM_FIELDS, 0, 0)                                              \
	X(6, thread, THREAD, GPT_THREAD_FIELDS, 1, 0)                                              \
	X(7, clock, CLOCK, GPT_CLOCK_FIELDS, 1, 0)                                                 \
	X(8, loss, LOSS, GPT_LOSS_FIELDS, 1, 0)                                                    \
	X(9, kernel, KERNEL, GPT_KERNEL_FIELDS, 1, 2)                                              \
	X(10, memcpy, MEMCPY, GPT_MEMCPY_FIELDS, 1, 2)                                             \
	X(11, memset, MEMSET, GPT_MEMSET_FIELDS, 1, 2)                                             \
	X(12, api, API, GPT_API_FIELDS, 1, 2)                                                      \
	X(13, sync, SYNC, GPT_SYNC_FIELDS, 1, 2)                                                   \
	X(14, nvtx, NVTX, GPT_NVTX_FIELDS, 1, 2)                                                   \
	X(15, nccl, NCCL, GPT_NCCL_FIELDS, 1, 2)                                                   \
	X(16, extcorr, EXTCORR, GPT_EXTCORR_FIELDS, 0, 0)                                          \
	X(17, overhead, OVERHEAD, GPT_OVERHEAD_FIELDS, 1, 2)                                       \
	X(18, metric, METRIC, GPT_METRIC_FIELDS, 1, 0)                                             \
	X(19, memory, MEMORY, GPT_MEMORY_FIELDS, 1, 0)                                             \
	X(20, graph, GRAPH, GPT_GRAPH_FIELDS, 1, 2)                                                \
	X(21, name, NAME, GPT_NAME_FIELDS, 0, 0)                                                   \
	X(22, stack_node, STACK_NODE, GPT_STACK_NODE_FIELDS, 0, 0)                                 \
	X(23, stack, STACK, GPT_STACK_FIELDS, 1, 0)                                                \
	X(24, module, MODULE, GPT_MODULE_FIELDS, 1, 0)                                             \
	X(25, nccl_channel, NCCL_CHANNEL, GPT_NCCL_CHANNEL_FIELDS, 1, 2)                           \
	X(26, memory_pool, MEMORY_POOL, GPT_MEMORY_POOL_FIELDS, 1, 0)

#define GPT_CT_u8 uint8_t
#define GPT_CT_u16 uint16_t
#define GPT_CT_u32 uint32_t
#define GPT_CT_u64 uint64_t
#define GPT_CT_i32 int32_t
#define GPT_CT_i64 int64_t
#define GPT_CT_str uint32_t

#define GPT_STRUCT_MEMBER_(id, type, name, enc, ref) GPT_CT_##type name;
#define GPT_DECLARE_STRUCT_(num, name, NAME, FIELDS, tf, ef)                                       \
	struct gpt_##name {                                                                        \
		FIELDS(GPT_STRUCT_MEMBER_)                                                         \
	};
GPT_RECORD_KINDS(GPT_DECLARE_STRUCT_)

enum gpt_kind {
	GPT_KIND_NONE = 0,
	GPT_KIND_STRING = 1,
#define GPT_KIND_ENUM_(num, name, NAME, FIELDS, tf, ef) GPT_KIND_##NAME = num,
	GPT_RECORD_KINDS(GPT_KIND_ENUM_)
	GPT_KIND__LAST_RECORD = 26,
	GPT_KIND_INDEX = 127,
	GPT_KIND__MAX = 128,
};

/* memory.flags */
enum gpt_memory_flags {
	GPT_MEMORY_HAS_TOTALS = 1 << 0,   /* total_allocated is the source's */
	GPT_MEMORY_HAS_RESERVED = 1 << 1, /* total_reserved is the source's */
	GPT_MEMORY_HOST = 1 << 2,         /* host (CPU) memory, not a device's */
};

enum gpt_memory_op {
	GPT_MEMORY_ALLOC = 1,
	GPT_MEMORY_FREE = 2,
};

enum gpt_api_domain {
	GPT_API_RUNTIME = 1,
	GPT_API_DRIVER = 2,
};

enum gpt_nvtx_type {
	GPT_NVTX_PUSH_POP = 1,
	GPT_NVTX_START_END = 2,
	GPT_NVTX_MARK = 3,
};

/* MEMCPY copy_kind values named in code (the field holds CUpti_ActivityMemcpyKind). */
enum gpt_copy_kind {
	GPT_COPY_KIND_PTOP = 10, /* peer-to-peer: CUPTI_ACTIVITY_MEMCPY_KIND_PTOP */
};

enum gpt_loss_cause {
	GPT_LOSS_CUPTI_DROPPED = 1,   /* CUPTI's own dropped-record count */
	GPT_LOSS_POOL_EXHAUSTED = 2,  /* our bounded buffer pool was empty */
	GPT_LOSS_NVTX_BUFFER = 3,     /* a per-thread NVTX buffer was full */
	GPT_LOSS_NCCL_BUFFER = 4,     /* NCCL events dropped */
	GPT_LOSS_WRITER = 5,          /* the writer failed to write records */
	GPT_LOSS_UNFINISHED = 6,      /* ranges still open at the end */
	GPT_LOSS_DEADLINE = 7,        /* a flush wait ran past its deadline */
	GPT_LOSS_STACK_QUEUE = 8,     /* call stacks dropped: the stack queue was full */
	GPT_LOSS_STACK_TABLE = 9,     /* call stacks cut short: the stack node table was full */
	GPT_LOSS_GEMM_QUEUE = 10,     /* cuBLAS GEMM calls not recorded (queue full, descriptors unreadable) */
	GPT_LOSS__MAX = 11,
};

enum gpt_nccl_source {
	GPT_NCCL_SRC_PLUGIN = 1,    /* NCCL profiler plugin */
	GPT_NCCL_SRC_INTERPOSE = 2, /* pnccl interposition */
	GPT_NCCL_SRC_KINETO = 3,    /* imported from a Kineto trace */
	GPT_NCCL_SRC_NSYS = 4,      /* imported from nsys NCCL NVTX ranges */
};

enum gpt_nccl_flags {
	GPT_NCCL_GRAPH_CAPTURED = 1, /* issued under CUDA graph capture */
	GPT_NCCL_IN_GROUP = 2,	     /* issued inside ncclGroupStart/End */
	GPT_NCCL_P2P = 4,	     /* a point-to-point op (Send, Recv) */
	GPT_NCCL_GPU_PARTIAL = 8,    /* some channels never reported a stop */
};

enum gpt_stack_flags {
	GPT_STACK_CUT = 1,	 /* more frames than the depth limit */
	GPT_STACK_TABLE_FULL = 2, /* outer frames only: the node table was full */
};

enum gpt_stack_method {
	GPT_STACK_FP = 1,	/* frame-pointer walk */
	GPT_STACK_UNWIND = 2, /* libunwind unw_backtrace (DWARF CFI) */
};

enum gpt_name_type {
	GPT_NAME_CATEGORY = 1,
	GPT_NAME_DOMAIN = 2,
	GPT_NAME_DEVICE = 3,
	GPT_NAME_CONTEXT = 4,
};

#endif /* GPT_RECORDS_H */
