/* SPDX-License-Identifier: MIT */
/*
 * demangle - read names one per line on stdin and demangle each Itanium-mangled
 * one (`_Z...`) with the demangler the analysis uses (gpa_demangle); print
 * "NAME -> DEMANGLED", and exit 1 when any mangled name does not demangle.
 *
 *   demangle < names.txt      (tests/e2e/t1071-sim-names.sh)
 */
#include "base/compat.h"
#include "analyze/symbolize.h"

#include <stdio.h>
#include <string.h>

int main(void)
{
	static char line[65536], out[65536];
	int bad = 0;

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "_Z", 2) != 0) {
			continue;
		}
		gpa_demangle(line, out, sizeof(out));
		if (!strcmp(out, line)) {
			printf("not demangled: %s\n", line);
			bad = 1;
		} else {
			printf("%s -> %s\n", line, out);
		}
	}
	return bad;
}
