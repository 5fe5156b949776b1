/*
 * One CSV splitter for every table sleuth reads (see formats/csv.h).
 */
#include "formats/csv.h"

#include <string.h>

char *sl_csv_trim(char *s, int unquote)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' ||
		     s[n - 1] == '\n'))
		s[--n] = 0;
	if (unquote && n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		s[n - 1] = 0;
		s++;
	}
	return s;
}

size_t sl_csv_split(char *line, char **fld, size_t max, int unquote)
{
	size_t n = 0;
	char *p = line, *tok;
	while ((tok = strsep(&p, ",")) != NULL) {
		if (n < max)
			fld[n] = sl_csv_trim(tok, unquote);
		n++;
	}
	return n;
}
