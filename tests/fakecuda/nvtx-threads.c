/* SPDX-License-Identifier: MIT */
/*
 * nvtx-threads - NVTX through the real NVTX headers and loader, from many
 * threads at once: nested push/pop in two domains, registered strings,
 * categories and their names, colors, every scalar payload type, wide
 * strings, marks, thread names, and start/end ranges that end on another
 * thread. Every range it makes is written to the expectation file (all
 * fields but the times); kernels launched inside ranges give "C" lines
 * (the API call must lie inside the range: NVTX and CUPTI share a clock).
 *
 * usage: nvtx-threads [-e EXPECT] [-t THREADS] [-n ITERATIONS]
 */
#include "base/compat.h"
#include "tests/fakecuda/sim.h"

#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int nthreads = 8, iters = 200;
static nvtxDomainHandle_t dom;
static nvtxStringHandle_t reg_step;
static nvtxRangeId_t *cross_ids;
static uint32_t *tids;
static pthread_barrier_t barrier;

static void expect(uint8_t type, const char *domain, const char *msg, uint32_t cat, uint32_t color,
		   uint8_t ptype, uint64_t payload, uint32_t stid, uint32_t etid, uint16_t depth,
		   uint64_t id)
{
	struct gpt_nvtx r = {
		.type = type,
		.category = cat,
		.color = color,
		.color_type = color ? 1 : 0,
		.payload_type = ptype,
		.payload = payload,
		.start_tid = stid,
		.end_tid = etid,
		.depth = depth,
		.range_id = id,
	};
	sim_expect_nvtx(&r, domain, msg);
}

static void *worker(void *arg)
{
	int t = (int)(intptr_t)arg;
	uint32_t tid = sim_gettid();
	char name[64], msg[96];

	tids[t] = tid;
	snprintf(name, sizeof(name), "worker-%d", t);
	nvtxNameOsThreadA(tid, name);
	for (int i = 0; i < iters; i++) {
		/* outer: Ex attributes with a color, a category and a 64-bit payload */
		nvtxEventAttributes_t a = {0};
		a.version = NVTX_VERSION;
		a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
		a.colorType = NVTX_COLOR_ARGB;
		a.color = 0xff00aa00u + (uint32_t)t;
		a.category = 1;
		a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
		a.payload.ullValue = (uint64_t)i * 1000 + (uint64_t)t;
		a.messageType = NVTX_MESSAGE_TYPE_ASCII;
		snprintf(msg, sizeof(msg), "outer-%d-%d", t, i);
		a.message.ascii = msg;
		int d = nvtxRangePushEx(&a);
		expect(GPT_NVTX_PUSH_POP, "", msg, 1, a.color, NVTX_PAYLOAD_TYPE_UNSIGNED_INT64,
		       a.payload.ullValue, tid, tid, 0, 0);
		if (d != 0 && d != NVTX_NO_PUSH_POP_TRACKING) {
			fprintf(stderr, "push returned depth %d, expected 0\n", d);
		}

		/* inner: plain ASCII, nested; a mark inside it */
		snprintf(msg, sizeof(msg), "inner-%d", i % 3);
		nvtxRangePushA(msg);
		expect(GPT_NVTX_PUSH_POP, "", msg, 0, 0, 0, 0, tid, tid, 1, 0);
		nvtxMarkA("tick");
		expect(GPT_NVTX_MARK, "", "tick", 0, 0, 0, 0, tid, tid, 0, 0);

		/* a range in another domain, with a registered string and a double payload */
		nvtxEventAttributes_t b = {0};
		b.version = NVTX_VERSION;
		b.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
		b.category = 2;
		b.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
		b.payload.dValue = 0.5 * i;
		b.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
		b.message.registered = reg_step;
		nvtxDomainRangePushEx(dom, &b);
		uint64_t bits;
		memcpy(&bits, &b.payload.dValue, 8);
		expect(GPT_NVTX_PUSH_POP, "worker", "registered-step", 2, 0,
		       NVTX_PAYLOAD_TYPE_DOUBLE, bits, tid, tid, 0, 0);

		/* a kernel launched inside a uniquely named range */
		snprintf(msg, sizeof(msg), "launch-%d-%d", t, i);
		nvtxRangePushA(msg);
		expect(GPT_NVTX_PUSH_POP, "", msg, 0, 0, 0, 0, tid, tid, 2, 0);
		uint32_t corr = sim_launch(0, 1, 7 + (uint32_t)t % 3, NULL);
		nvtxRangePop();
		if (corr && sim_cupti_active() && i % 20 == 0) {
			sim_directive("C %s %u", msg, corr);
		}
		nvtxDomainRangePop(dom);

		/* 32-bit payloads: only their half of the union counts */
		nvtxEventAttributes_t c = {0};
		c.version = NVTX_VERSION;
		c.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
		c.payloadType = i % 2 ? NVTX_PAYLOAD_TYPE_INT32 : NVTX_PAYLOAD_TYPE_FLOAT;
		c.payload.ullValue = 0xdeadbeef00000000ULL; /* garbage in the other half */
		if (i % 2) {
			c.payload.iValue = -i;
		} else {
			c.payload.fValue = 1.25f * (float)i;
		}
		uint32_t low;
		memcpy(&low, &c.payload, 4);
		c.messageType = NVTX_MESSAGE_TYPE_UNICODE;
		c.message.unicode = L"wide-\u00fc\u4e2d";
		nvtxMarkEx(&c);
		expect(GPT_NVTX_MARK, "", "wide-\xc3\xbc\xe4\xb8\xad", 0, 0, (uint8_t)c.payloadType,
		       low, tid, tid, 0, 0);

		nvtxRangePop(); /* inner */
		nvtxRangePop(); /* outer */

		/* start a range that another thread ends */
		snprintf(msg, sizeof(msg), "cross-%d-%d", t, i);
		cross_ids[t * iters + i] = nvtxRangeStartA(msg);
	}
	pthread_barrier_wait(&barrier);
	/* end the ranges the next thread started */
	int from = (t + 1) % nthreads;
	for (int i = 0; i < iters; i++) {
		nvtxRangeEnd(cross_ids[from * iters + i]);
		snprintf(msg, sizeof(msg), "cross-%d-%d", from, i);
		expect(GPT_NVTX_START_END, "", msg, 0, 0, 0, 0, tids[from], tid, 0,
		       cross_ids[from * iters + i]);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *exp = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "e:t:n:")) != -1) {
		switch (opt) {
		case 'e':
			exp = optarg;
			break;
		case 't':
			nthreads = atoi(optarg);
			break;
		case 'n':
			iters = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (nthreads < 1 || nthreads > 64 || iters < 1) {
		return 2;
	}
	sim_init(exp, 7);
	sim_cuinit();
	dom = nvtxDomainCreateA("worker");
	reg_step = nvtxDomainRegisterStringA(dom, "registered-step");
	nvtxNameCategoryA(1, "cat-one");
	nvtxDomainNameCategoryA(dom, 2, "cat-two");
	sim_expect_name(GPT_NAME_CATEGORY, "", 1, "cat-one");
	sim_expect_name(GPT_NAME_CATEGORY, "worker", 2, "cat-two");
	cross_ids = calloc((size_t)nthreads * (size_t)iters, sizeof(*cross_ids));
	tids = calloc((size_t)nthreads, sizeof(*tids));
	pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
	pthread_t th[64];
	for (int t = 0; t < nthreads; t++) {
		pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
	}
	for (int t = 0; t < nthreads; t++) {
		pthread_join(th[t], NULL);
	}
	sim_finish();
	printf("nvtx-threads: %d threads x %d iterations\n", nthreads, iters);
	return 0;
}
