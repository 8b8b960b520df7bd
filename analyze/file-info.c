/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "analyze/file-info.h"
#include "import/import.h"

#include <stdio.h>

static const char *const loss_names[GPT_LOSS__MAX] = {
	[GPT_LOSS_CUPTI_DROPPED] = "cupti-dropped",
	[GPT_LOSS_POOL_EXHAUSTED] = "pool-exhausted",
	[GPT_LOSS_NVTX_BUFFER] = "nvtx-buffer-full",
	[GPT_LOSS_NCCL_BUFFER] = "nccl-buffer-full",
	[GPT_LOSS_WRITER] = "writer-error",
	[GPT_LOSS_UNFINISHED] = "unfinished-ranges",
	[GPT_LOSS_DEADLINE] = "flush-deadline",
	[GPT_LOSS_STACK_QUEUE] = "stack-queue-full",
	[GPT_LOSS_STACK_TABLE] = "stack-table-full",
	[GPT_LOSS_GEMM_QUEUE] = "gemm-queue-full",
};

const char *gpa_loss_cause_name(unsigned cause)
{
	if (cause >= GPT_LOSS__MAX || !loss_names[cause]) {
		return "unknown";
	}
	return loss_names[cause];
}

const char *gpa_kind_name(unsigned kind)
{
	const struct gpt_kind_info *ki = gpt_kind_info(kind);

	return ki ? ki->name : NULL;
}

bool gpa_kind_is_event(enum gpt_kind kind)
{
	switch (kind) {
	case GPT_KIND_PROCESS:
	case GPT_KIND_DEVICE:
	case GPT_KIND_CONTEXT:
	case GPT_KIND_STREAM:
	case GPT_KIND_THREAD:
	case GPT_KIND_CLOCK:
	case GPT_KIND_LOSS:
	case GPT_KIND_NAME:
	case GPT_KIND_STACK_NODE:
	case GPT_KIND_STACK:
	case GPT_KIND_MODULE:
		return false;
	default:
		return gpt_kind_info(kind) != NULL;
	}
}

static char *dup_str(const struct gpt_reader *r, uint32_t id)
{
	const char *s = gpt_reader_string(r, id);
	char buf[48];

	if (!s) {
		snprintf(buf, sizeof(buf), "<missing string %" PRIu32 ">", id);
		s = buf;
	}
	return strdup(s);
}

static void take_process(struct gpa_file_info *fi, const struct gpt_reader *r,
			 const struct gpt_process *p)
{
	if (p->phase == 2) {
		/*
		 * The record written at close adds the exit status, and its status
		 * holds the start's and what happened later (CUPTI refused after
		 * the start record was written): it wins when it says more.
		 */
		fi->process.has_exit = true;
		fi->process.exit_status = p->exit_status;
		if (fi->has_process) {
			const char *st = gpt_reader_string(r, p->status);
			if (st && *st && (!fi->process.status || strcmp(st, fi->process.status))) {
				char *dup = strdup(st);
				if (dup) {
					free(fi->process.status);
					fi->process.status = dup;
				}
			}
			return;
		}
	}
	if (fi->has_process) {
		return;
	}
	fi->has_process = true;
	fi->process.pid = p->pid;
	fi->process.ppid = p->ppid;
	fi->process.host = dup_str(r, p->host);
	fi->process.exe = dup_str(r, p->exe);
	fi->process.cmdline = dup_str(r, p->cmdline);
	fi->process.launcher = dup_str(r, p->launcher);
	fi->process.gpuprof_version = dup_str(r, p->gpuprof_version);
	fi->process.settings = dup_str(r, p->settings);
	fi->process.status = dup_str(r, p->status);
	fi->process.rank = p->rank;
	fi->process.local_rank = p->local_rank;
	fi->process.world_size = p->world_size;
	fi->process.local_world_size = p->local_world_size;
	fi->process.driver_version = p->cuda_driver_version;
	fi->process.runtime_version = p->cuda_runtime_version;
	fi->process.cupti_version = p->cupti_version;
	fi->process.nccl_version = p->nccl_version;
}

/* dev into fi->work_devs (kept sorted, bounded); 0 or -GP_ERR_NOMEM. */
static int note_device(struct gpa_file_info *fi, uint32_t dev)
{
	size_t at = 0;

	while (at < fi->work_devs.n && fi->work_devs.v[at] < dev) {
		at++;
	}
	if ((at < fi->work_devs.n && fi->work_devs.v[at] == dev) ||
	    fi->work_devs.n >= GPA_INFO_WORK_DEVS) {
		return 0;
	}
	if (gp_vec_push(&fi->work_devs, dev)) {
		return -GP_ERR_NOMEM;
	}
	memmove(&fi->work_devs.v[at + 1], &fi->work_devs.v[at],
		(fi->work_devs.n - 1 - at) * sizeof(*fi->work_devs.v));
	fi->work_devs.v[at] = dev;
	return 0;
}

struct span {
	uint64_t start, end;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->start != y->start) {
		return x->start < y->start ? -1 : 1;
	}
	return x->end < y->end ? -1 : x->end > y->end;
}

/* The time under some interval of v (sorted here): overhead records overlap across threads. */
static uint64_t union_ns(struct span *v, size_t n)
{
	uint64_t sum = 0, s = 0, e = 0;

	gp_qsort(v, n, sizeof(*v), cmp_span);
	for (size_t i = 0; i < n; i++) {
		if (i && v[i].start <= e) {
			e = v[i].end > e ? v[i].end : e;
			continue;
		}
		sum += e - s;
		s = v[i].start;
		e = v[i].end;
	}
	return sum + (e - s);
}

const char *gpa_file_info_source(const struct gpa_file_info *fi)
{
	return gpa_input_format_name(fi->source);
}

int gpa_file_info_read(const char *path, struct gpa_file_info *fi, char *errbuf, size_t errlen)
{
	struct gpt_reader *r = NULL;
	struct gpt_reader_status st;
	struct gpt_chunk ch;
	uint64_t first_clock_ts = 0, first_clock_rt = 0;
	bool have_clock = false;
	GP_VEC(struct span) over = {0};
	int ret;

	memset(fi, 0, sizeof(*fi));
	fi->path = strdup(path);
	ret = gpa_input_open(path, &r, &fi->source, errbuf, errlen);
	if (ret) {
		goto out;
	}
	while ((ret = gpt_reader_next(r, &ch)) > 0) {
		const uint8_t *rec = ch.records;
		if (gpa_kind_is_event(ch.kind)) {
			fi->events += ch.count;
			if (ch.count && ch.info->time_field) {
				if (!fi->has_span || ch.first_ts < fi->first_ts) {
					fi->first_ts = ch.first_ts;
				}
				if (!fi->has_span || ch.last_ts > fi->last_ts) {
					fi->last_ts = ch.last_ts;
				}
				fi->has_span = true;
			}
		}
		fi->records[ch.kind] += ch.count;
		for (uint32_t i = 0; i < ch.count; i++, rec += ch.info->size) {
			switch (ch.kind) {
			case GPT_KIND_PROCESS:
				take_process(fi, r, (const void *)rec);
				break;
			case GPT_KIND_DEVICE: {
				const struct gpt_device *d = (const void *)rec;
				struct gpa_device_info di = {
					.id = d->id,
					.name = dup_str(r, d->name),
					.cc_major = d->cc_major,
					.cc_minor = d->cc_minor,
					.num_sms = d->num_sms,
					.global_mem_bytes = d->global_mem_bytes,
					.global_mem_bw_kbps = d->global_mem_bw_kbps,
					.core_clock_khz = d->core_clock_khz,
				};
				if (gp_vec_push(&fi->devices, di)) {
					free(di.name);
					ret = -GP_ERR_NOMEM;
					goto out;
				}
				break;
			}
			case GPT_KIND_LOSS: {
				const struct gpt_loss *l = (const void *)rec;
				unsigned c = l->cause < GPT_LOSS__MAX ? l->cause : 0;
				fi->losses[c] += l->count;
				fi->loss_total += l->count;
				break;
			}
			case GPT_KIND_CLOCK: {
				const struct gpt_clock *c = (const void *)rec;
				if (!have_clock && c->realtime) {
					have_clock = true;
					first_clock_ts = c->ts;
					first_clock_rt = c->realtime;
				}
				break;
			}
			case GPT_KIND_OVERHEAD: {
				const struct gpt_overhead *o = (const void *)rec;
				struct span sp = {o->start, o->end};
				if (o->end > o->start && gp_vec_push(&over, sp)) {
					ret = -GP_ERR_NOMEM;
					goto out;
				}
				fi->overhead_ns += o->end > o->start ? o->end - o->start : 0;
				fi->overhead_records++;
				break;
			}
			case GPT_KIND_KERNEL:
			case GPT_KIND_MEMCPY:
			case GPT_KIND_MEMSET:
				if (note_device(fi, ch.kind == GPT_KIND_KERNEL
							    ? ((const struct gpt_kernel *)(const void *)rec)->device
						    : ch.kind == GPT_KIND_MEMCPY
							    ? ((const struct gpt_memcpy *)(const void *)rec)->device
							    : ((const struct gpt_memset *)(const void *)rec)->device)) {
					ret = -GP_ERR_NOMEM;
					goto out;
				}
				break;
			default:
				break;
			}
		}
	}
	if (ret < 0) {
		snprintf(errbuf, errlen, "%s", gpt_reader_last_error(r));
		goto out;
	}
	fi->overhead_union_ns = union_ns(over.v, over.n);
	if (have_clock && fi->has_span) {
		fi->start_realtime = first_clock_rt + (fi->first_ts - first_clock_ts);
	}
	gpt_reader_get_status(r, &st);
	fi->major = st.major;
	fi->minor = st.minor;
	fi->file_bytes = st.file_bytes;
	fi->chunks = st.chunks;
	fi->strings = st.strings;
	fi->has_footer = st.has_footer;
	fi->truncated = st.truncated;
	fi->truncated_at = st.truncated_at;
	fi->problem_count = st.problems;
	size_t np;
	const struct gpt_problem *pr = gpt_reader_problems(r, &np);
	for (size_t i = 0; i < np; i++) {
		struct gpa_problem p = {pr[i].chunk_index, pr[i].offset, pr[i].err,
					strdup(pr[i].reason)};
		if (gp_vec_push(&fi->problems, p)) {
			free(p.reason);
			ret = -GP_ERR_NOMEM;
			goto out;
		}
	}
	ret = 0;
out:
	if (ret == -GP_ERR_NOMEM) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
	}
	gpt_reader_free(r);
	gp_vec_free(&over);
	return ret;
}

void gpa_file_info_release(struct gpa_file_info *fi)
{
	free(fi->path);
	free(fi->process.host);
	free(fi->process.exe);
	free(fi->process.cmdline);
	free(fi->process.launcher);
	free(fi->process.gpuprof_version);
	free(fi->process.settings);
	free(fi->process.status);
	for (size_t i = 0; i < fi->devices.n; i++) {
		free(fi->devices.v[i].name);
	}
	gp_vec_free(&fi->devices);
	gp_vec_free(&fi->work_devs);
	for (size_t i = 0; i < fi->problems.n; i++) {
		free(fi->problems.v[i].reason);
	}
	gp_vec_free(&fi->problems);
	memset(fi, 0, sizeof(*fi));
}
