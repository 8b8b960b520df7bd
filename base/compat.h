/* SPDX-License-Identifier: MIT */
/*
 * compat.h - included first by every .c file of gpuprof.
 *
 * Pulls in the C library headers every module uses and defines the few
 * compiler helpers the code relies on. Nothing here knows about GPUs.
 */
#ifndef GP_COMPAT_H
#define GP_COMPAT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GP_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define GP_UNUSED __attribute__((unused))
#define GP_NORETURN __attribute__((noreturn))
#define GP_HIDDEN __attribute__((visibility("hidden")))
#define GP_LIKELY(x) __builtin_expect(!!(x), 1)
#define GP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define GP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* GP_COMPAT_H */
