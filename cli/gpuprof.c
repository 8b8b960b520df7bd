/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "trace/trace.h"
int main(void) { return 0; }
