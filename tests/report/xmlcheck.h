/* A tiny well-formedness check for the SVG and HTML the report writes:
 * balanced tags, known entities only, no stray '<' or '&'.  Not a full
 * XML parser (tests must not add dependencies); enough to catch unescaped
 * text and unclosed elements.  HTML void elements are accepted unclosed. */
#ifndef SLEUTH_TEST_XMLCHECK_H
#define SLEUTH_TEST_XMLCHECK_H

#include <stdio.h>
#include <string.h>

static int xml_void(const char *name, size_t n)
{
	static const char *const v[] = {"meta", "br", "hr", "img", "link", "col", "wbr"};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (strlen(v[i]) == n && !strncmp(v[i], name, n))
			return 1;
	return 0;
}

/* 0 if well formed, else -1 with a message on stderr. */
static int xml_check(const char *s)
{
	const char *stack[256];
	size_t len[256], depth = 0;
	for (const char *p = s; *p; p++) {
		if (*p == '&') {
			static const char *const ent[] = {"&amp;", "&lt;", "&gt;", "&quot;",
							  "&#39;"};
			int ok = 0;
			for (size_t i = 0; i < 5; i++)
				ok |= !strncmp(p, ent[i], strlen(ent[i]));
			if (!ok) {
				fprintf(stderr, "bad entity at: %.40s\n", p);
				return -1;
			}
			continue;
		}
		if (*p == '>') {
			fprintf(stderr, "stray '>' at: %.40s\n", p);
			return -1;
		}
		if (*p != '<')
			continue;
		if (!strncmp(p, "<!--", 4)) {
			const char *e = strstr(p, "-->");
			if (!e)
				return -1;
			p = e + 2;
			continue;
		}
		if (!strncmp(p, "<!DOCTYPE", 9) || !strncmp(p, "<!doctype", 9)) {
			p = strchr(p, '>');
			if (!p)
				return -1;
			continue;
		}
		int closing = p[1] == '/';
		const char *name = p + 1 + closing;
		size_t n = strcspn(name, " \t\n/>");
		if (n == 0) {
			fprintf(stderr, "stray '<' at: %.40s\n", p);
			return -1;
		}
		const char *e = strchr(name, '>');
		if (!e)
			return -1;
		/* no '<' inside a tag (attribute values are escaped) */
		const char *lt = memchr(name, '<', (size_t)(e - name));
		if (lt) {
			fprintf(stderr, "'<' inside a tag at: %.40s\n", p);
			return -1;
		}
		if (closing) {
			if (!depth || len[depth - 1] != n || strncmp(stack[depth - 1], name, n)) {
				fprintf(stderr, "unbalanced </%.*s>\n", (int)n, name);
				return -1;
			}
			depth--;
		} else if (e[-1] != '/' && !xml_void(name, n)) {
			if (depth == 256)
				return -1;
			stack[depth] = name;
			len[depth++] = n;
		}
		p = e;
	}
	if (depth) {
		fprintf(stderr, "unclosed <%.*s>\n", (int)len[depth - 1], stack[depth - 1]);
		return -1;
	}
	return 0;
}

/* Occurrences of `needle` in `s`. */
static size_t count_str(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

#endif
