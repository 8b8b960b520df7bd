/* SPDX-License-Identifier: MIT */
/*
 * meta.c - the writer's metadata records: the process, clock anchors,
 * device attributes CUPTI does not report, thread names and loss counts.
 *
 * Writer thread only. The CUDA driver is never linked: its few functions
 * are looked up in the already loaded libcuda.so.1 (RTLD_NOLOAD), and only
 * after InitializeInjection, so nothing here initializes CUDA.
 */
#include "base/compat.h"
#include "inject/inject.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#ifndef GP_VERSION
#define GP_VERSION "0.0.0"
#endif

static const char *env_get(const char *name)
{
	return getenv(name);
}

const char *gpi_hostname(void)
{
	static char host[256];

	if (!host[0]) {
		if (gethostname(host, sizeof(host) - 1)) {
			memcpy(host, "localhost", 10);
		}
		host[sizeof(host) - 1] = '\0';
		for (char *p = host; *p; p++) {
			if (*p == '/') {
				*p = '_';
			}
		}
	}
	return host;
}

static void *driver_sym(const char *name)
{
	void *h = gpi_dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	void *s;

	if (!h) {
		return NULL;
	}
	s = gpi_dlsym(h, name);
	dlclose(h);
	return s;
}

static size_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;

	if (fd < 0) {
		return 0;
	}
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			break;
		}
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return len;
}

/* The command line as a shell would read it back. */
static void cmdline(char *out, size_t size)
{
	char raw[8192];
	size_t n = read_file("/proc/self/cmdline", raw, sizeof(raw)), pos = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && pos + 4 < size;) {
		const char *arg = raw + i;
		size_t len = strnlen(arg, n - i);
		bool quote = len == 0 || strpbrk(arg, " \t\n'\"\\$`*?[]{}()<>|&;#~") != NULL;
		if (pos) {
			out[pos++] = ' ';
		}
		if (quote) {
			out[pos++] = '\'';
		}
		for (size_t k = 0; k < len && pos + 6 < size; k++) {
			if (arg[k] == '\'') {
				memcpy(out + pos, "'\\''", 4);
				pos += 4;
			} else {
				out[pos++] = arg[k];
			}
		}
		if (quote) {
			out[pos++] = '\'';
		}
		i += len + 1;
	}
	out[pos] = '\0';
}

/*
 * The CUDA driver, runtime and NCCL versions. In a crash (a flight save
 * made before anything else) the libraries are not called: the versions
 * of the last record stand.
 */
static void versions(struct gpt_process *p)
{
	static uint32_t drv_v, rt_v, nccl_v;
	int v = 0;

	if (!atomic_load(&gpi_s.crashing)) {
		drv_v = rt_v = nccl_v = 0;
		int (*drv)(int *) = (int (*)(int *))driver_sym("cuDriverGetVersion");
		if (drv && drv(&v) == 0) {
			drv_v = (uint32_t)v;
		}
		/* The runtime may be linked statically and not export this; then it stays 0. */
		int (*rt)(int *) = (int (*)(int *))gpi_dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion");
		if (rt && atomic_load(&gpi_cupti_state) != GPI_CUPTI_NONE && rt(&v) == 0) {
			rt_v = (uint32_t)v;
		}
		int (*nccl)(int *) = (int (*)(int *))gpi_dlsym(RTLD_DEFAULT, "ncclGetVersion");
		if (nccl && nccl(&v) == 0) {
			nccl_v = (uint32_t)v;
		}
	}
	p->cuda_driver_version = drv_v;
	p->cuda_runtime_version = rt_v;
	p->cupti_version = gpi_cupti_version;
	p->nccl_version = nccl_v;
}

void gpi_meta_process(struct gpi_conv *cv, int phase, int exit_status)
{
	gpi_meta_process_status(cv, phase, exit_status, NULL);
}

void gpi_meta_process_status(struct gpi_conv *cv, int phase, int exit_status,
			     const char *status)
{
	static uint64_t start_realtime;
	struct gpi_rank rank;
	struct gpt_process p = {0};
	char buf[8192];
	char settings[1024];

	if (!start_realtime) {
		start_realtime = gp_clock_realtime_ns() - (gpi_now() - gpi_s.start_ts);
	}
	gpi_detect_rank(env_get, &rank);
	p.ts = gpi_now();
	p.pid = (uint32_t)getpid();
	p.ppid = (uint32_t)getppid();
	p.host = gpi_conv_intern(cv, gpi_hostname());
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n > 0) {
		p.exe = gpi_conv_intern_len(cv, buf, (size_t)n);
	}
	cmdline(buf, sizeof(buf));
	p.cmdline = gpi_conv_intern(cv, buf);
	p.rank = rank.rank;
	p.local_rank = rank.local_rank;
	p.world_size = rank.world_size;
	p.local_world_size = rank.local_world_size;
	p.launcher = gpi_conv_intern(cv, rank.launcher);
	p.start_realtime = start_realtime;

	versions(&p);
	p.gpuprof_version = gpi_conv_intern(cv, GP_VERSION);
	gpi_config_describe(&gpi_s.cfg, settings, sizeof(settings));
	p.settings = gpi_conv_intern(cv, settings);

	while (atomic_exchange(&gpi_s.status_lock, 1)) {
		sched_yield();
	}
	memcpy(buf, gpi_s.status, sizeof(gpi_s.status));
	atomic_store(&gpi_s.status_lock, 0);
	if (phase == 2 && atomic_load(&gpi_cupti_state) == GPI_CUPTI_NONE &&
	    (gpi_s.cfg.kinds & (GPI_K_ALL & ~GPI_K_NVTX)) && !gpi_s.is_fork_child) {
		size_t l = strlen(buf);
		gpi_fmt(buf + l, sizeof(gpi_s.status) - l,
			"%sCUDA never initialized: no GPU activity", l ? "; " : "");
	}
	p.status = gpi_conv_intern(cv, status ? status : buf);
	p.exit_status = exit_status;
	p.phase = (uint8_t)phase;
	gpi_conv_add(cv, GPT_KIND_PROCESS, &p);
}

void gpi_meta_clock(struct gpi_conv *cv, int phase)
{
	struct gpt_clock c = {0};
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 3; i++) {
		uint64_t a = gp_clock_monotonic_raw_ns();
		uint64_t rt = gp_clock_realtime_ns();
		uint64_t ts = gpi_now();
		uint64_t mono = gp_clock_monotonic_ns();
		uint64_t b = gp_clock_monotonic_raw_ns();
		if (b - a < best) {
			best = b - a;
			c.ts = ts;
			c.realtime = rt;
			c.monotonic = mono;
			c.monotonic_raw = a + (b - a) / 2;
		}
	}
	c.phase = (uint8_t)phase;
	c.uncertainty = best > UINT32_MAX ? UINT32_MAX : (uint32_t)best;
	gpi_conv_add(cv, GPT_KIND_CLOCK, &c);
}

/* CUdevice_attribute values (cuda.h), kept here so the library needs no CUDA header for them. */
enum {
	ATTR_PCI_BUS_ID = 33,
	ATTR_PCI_DEVICE_ID = 34,
	ATTR_MEMORY_CLOCK_RATE = 36,
	ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37,
	ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39,
	ATTR_PCI_DOMAIN_ID = 50,
	ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
	ATTR_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
};

void gpi_meta_device_attrs(struct gpt_device *d)
{
	static int (*get)(int *, int, int);
	static int (*dev_get)(int *, int);
	static bool looked;
	int dev = -1, v;

	/* Registers per thread and named barriers per block are architectural constants. */
	d->max_regs_per_thread = 255;
	d->max_barriers_per_block = 16;
	if (!looked) {
		looked = true;
		get = (int (*)(int *, int, int))driver_sym("cuDeviceGetAttribute");
		dev_get = (int (*)(int *, int))driver_sym("cuDeviceGet");
	}
	if (!get || !dev_get) {
		return;
	}
	/*
	 * DEVICE records are written inside cuInit (InitializeInjection): if
	 * the driver is still initializing, wait for it a little.
	 */
	for (int tries = 0;; tries++) {
		int r = dev_get(&dev, (int)d->id);
		if (r == 0) {
			break;
		}
		if (r != 3 /* CUDA_ERROR_NOT_INITIALIZED */ || tries == 50) {
			return;
		}
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
#define A(attr, field)                                                                             \
	do {                                                                                       \
		if (get(&v, attr, dev) == 0 && v >= 0) {                                           \
			d->field = (uint32_t)v;                                                    \
		}                                                                                  \
	} while (0)
	A(ATTR_PCI_BUS_ID, pci_bus);
	A(ATTR_PCI_DEVICE_ID, pci_device);
	A(ATTR_PCI_DOMAIN_ID, pci_domain);
	A(ATTR_MEMORY_CLOCK_RATE, mem_clock_khz);
	A(ATTR_GLOBAL_MEMORY_BUS_WIDTH, mem_bus_width_bits);
	A(ATTR_MAX_THREADS_PER_MULTIPROCESSOR, max_threads_per_sm);
	A(ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, max_smem_per_block_optin);
	A(ATTR_RESERVED_SHARED_MEMORY_PER_BLOCK, reserved_smem_per_block);
#undef A
}

void gpi_meta_threads(struct gpi_conv *cv)
{
	static size_t done;
	char path[64], name[64];

	if (done > cv->tids_n) {
		done = 0; /* a new conversion state (fork child) */
	}
	for (; done < cv->tids_n; done++) {
		struct gpt_thread t = {.ts = gpi_now(), .tid = cv->tids[done]};
		gpi_fmt(path, sizeof(path), "/proc/self/task/%u/comm", t.tid);
		size_t n = read_file(path, name, sizeof(name));
		while (n && (name[n - 1] == '\n' || name[n - 1] == '\0')) {
			n--;
		}
		t.name = gpi_conv_intern_len(cv, name, n);
		gpi_conv_add(cv, GPT_KIND_THREAD, &t);
	}
}

void gpi_meta_losses(struct gpi_conv *cv, uint64_t cupti_dropped)
{
	static uint64_t refused_prev, refused_prev2;
	uint64_t refused = atomic_load(&gpi_pool.refused);
	uint64_t refused_bytes = atomic_load(&gpi_pool.refused_bytes);
	static uint64_t bytes_prev;
	uint64_t nvtx = gpi_nvtx_take_dropped();
	uint64_t ts = gpi_now();

	/*
	 * CUPTI counts every record it could not store, whatever the reason.
	 * Drops reported while our pool refused buffers (now or in the last
	 * period: CUPTI reports them late) are the pool's.
	 */
	if (cupti_dropped) {
		bool pool = refused != refused_prev || refused_prev != refused_prev2;
		struct gpt_loss l = {
			.ts = ts,
			.cause = pool ? GPT_LOSS_POOL_EXHAUSTED : GPT_LOSS_CUPTI_DROPPED,
			.count = cupti_dropped,
			.bytes = pool ? refused_bytes - bytes_prev : 0,
		};
		gpi_conv_add(cv, GPT_KIND_LOSS, &l);
		if (pool) {
			bytes_prev = refused_bytes;
		}
	}
	refused_prev2 = refused_prev;
	refused_prev = refused;
	if (nvtx) {
		struct gpt_loss l = {.ts = ts, .cause = GPT_LOSS_NVTX_BUFFER, .count = nvtx};
		gpi_conv_add(cv, GPT_KIND_LOSS, &l);
	}
	uint64_t nccl = gpi_nccl_take_dropped();
	if (nccl) {
		struct gpt_loss l = {.ts = ts, .cause = GPT_LOSS_NCCL_BUFFER, .count = nccl};
		gpi_conv_add(cv, GPT_KIND_LOSS, &l);
	}
	uint64_t gemm = gpi_gemm_take_dropped();
	if (gemm) {
		struct gpt_loss l = {.ts = ts, .cause = GPT_LOSS_GEMM_QUEUE, .count = gemm};
		gpi_conv_add(cv, GPT_KIND_LOSS, &l);
	}
}
