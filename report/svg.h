/* SPDX-License-Identifier: MIT */
/*
 * svg.h - building an SVG chart through libxml2 (report/ops-svg.c,
 * report/memory-svg.c). A step that cannot be done sets *failed and the
 * caller drops the document; the next steps still run harmlessly.
 */
#ifndef GP_REPORT_SVG_H
#define GP_REPORT_SVG_H

#include "base/compat.h"

#include <libxml/tree.h>
#include <stdbool.h>

/* A child element name of parent, holding text when not NULL; parent when it cannot be made. */
xmlNodePtr gpr_svg_node(bool *failed, xmlNodePtr parent, const char *name, const char *text);
/* The attribute name of n set to the formatted value (at most 255 bytes). */
GP_PRINTF(4, 5)
void gpr_svg_prop(bool *failed, xmlNodePtr n, const char *name, const char *fmt, ...);

#endif /* GP_REPORT_SVG_H */
