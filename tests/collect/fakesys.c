/* Files of fake sysfs trees for the collect tests (fakesys.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "fakesys.h"
#include "sleuth/common.h"

void fakesys_put(const char *dir, const char *rel, const char *text)
{
	char *p = sl_xasprintf("%s/%s", dir, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(p);
}
