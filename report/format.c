/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "report/report.h"

void gpr_fmt_ns(struct gp_strbuf *sb, uint64_t ns)
{
	gp_strbuf_addf(sb, "%" PRIu64 ".%09" PRIu64 " s", ns / 1000000000u, ns % 1000000000u);
}

void gpr_fmt_dur_human(struct gp_strbuf *sb, uint64_t ns)
{
	if (ns < 1000) {
		gp_strbuf_addf(sb, "%" PRIu64 " ns", ns);
	} else if (ns < 1000000) {
		gp_strbuf_addf(sb, "%.3g us", (double)ns / 1e3);
	} else if (ns < 1000000000) {
		gp_strbuf_addf(sb, "%.3g ms", (double)ns / 1e6);
	} else {
		gp_strbuf_addf(sb, "%.3f s", (double)ns / 1e9);
	}
}

void gpr_fmt_bytes(struct gp_strbuf *sb, uint64_t b)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double v = (double)b;
	int u = -1;

	if (b < 1024) {
		gp_strbuf_addf(sb, "%" PRIu64 " B", b);
		return;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	gp_strbuf_addf(sb, "%.2f %s", v, units[u]);
}

void gpr_fmt_count(struct gp_strbuf *sb, uint64_t n)
{
	char digits[32];
	int len = snprintf(digits, sizeof(digits), "%" PRIu64, n);

	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0) {
			gp_strbuf_addch(sb, ',');
		}
		gp_strbuf_addch(sb, digits[i]);
	}
}

void gpr_fmt_cuda_version(struct gp_strbuf *sb, uint32_t v)
{
	if (!v) {
		gp_strbuf_adds(sb, "unknown");
		return;
	}
	gp_strbuf_addf(sb, "%" PRIu32 ".%" PRIu32, v / 1000, (v % 1000) / 10);
}

void gpr_fmt_pct(struct gp_strbuf *sb, uint64_t num, uint64_t den)
{
	if (!den) {
		return;
	}
	unsigned __int128 x = ((unsigned __int128)num * 20000 + den) / ((unsigned __int128)den * 2);
	gp_strbuf_addf(sb, "%" PRIu64 ".%02" PRIu64, (uint64_t)(x / 100), (uint64_t)(x % 100));
}
