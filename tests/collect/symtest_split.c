/* A library whose names live only in a separate debug file found by
 * build-id (as gdb and perf find them), for test_symbols.c: the loaded
 * file is stripped to .dynsym, and its static function and source lines
 * must come from DEBUGROOT/.build-id/xx/yyyy.debug (split-debug.sh). */
void *symtest_split_addr(void);

static __attribute__((noinline)) int split_hidden(int x)
{
	return x * 11 + 5;
}

void *symtest_split_addr(void)
{
	return (void *)split_hidden;
}
