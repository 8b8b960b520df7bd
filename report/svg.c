/* SPDX-License-Identifier: MIT */
/*
 * svg.c - the element and attribute steps of the SVG charts (report/svg.h).
 */
#include "base/compat.h"
#include "report/svg.h"

#include <stdarg.h>
#include <stdio.h>

xmlNodePtr gpr_svg_node(bool *failed, xmlNodePtr parent, const char *name, const char *text)
{
	xmlNodePtr n = xmlNewChild(parent, NULL, BAD_CAST name, NULL);

	if (!n) {
		*failed = true;
		return parent;
	}
	if (text) {
		xmlNodePtr t = xmlNewText(BAD_CAST text);
		if (!t || !xmlAddChild(n, t)) {
			xmlFreeNode(t);
			*failed = true;
		}
	}
	return n;
}

void gpr_svg_prop(bool *failed, xmlNodePtr n, const char *name, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!xmlNewProp(n, BAD_CAST name, BAD_CAST buf)) {
		*failed = true;
	}
}
