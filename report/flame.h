/* SPDX-License-Identifier: MIT */
/*
 * flame.h - private to report/flame*.c.
 */
#ifndef GPR_FLAME_H
#define GPR_FLAME_H

#include "base/base.h"

/*
 * Appends s[0..len) as valid UTF-8 that XML and JSON accept: bad sequences,
 * surrogates, U+FFFE/U+FFFF and control characters but tab become U+FFFD.
 */
void gpr_flame_add_utf8_(struct gp_strbuf *sb, const char *s, size_t len);

#endif
