/*
 * The CSV files sleuth reads (power and idle logs, the prediction table
 * that `sleuth schedule --predictions` takes; docs/formats.md) are plain
 * numeric tables: one record per line, fields split at commas, no quoted
 * commas.  One splitter serves them all, so that every reader accepts the
 * same blanks, CRLF line ends and quoted header names.
 */
#ifndef SLEUTH_FORMATS_CSV_H
#define SLEUTH_FORMATS_CSV_H

#include <stddef.h>

/* Strip blanks, CR and LF at both ends (and, if `unquote`, one pair of
 * double quotes around what is left), in place; returns the start. */
char *sl_csv_trim(char *s, int unquote);
/* Split a line at commas, in place, into trimmed fields; stores at most
 * `max` of them in fld[] and returns how many there are (more than `max`
 * when the line has more). */
size_t sl_csv_split(char *line, char **fld, size_t max, int unquote);

#endif
