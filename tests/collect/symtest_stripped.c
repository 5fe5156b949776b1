/* A shared library stripped of its symbol table (only .dynsym is left, as
 * in most distributions' libraries), for test_symbols.c: an exported
 * function must be named from .dynsym with the library, and a static one,
 * which no symbol table names, as library+offset. */
int symtest_exported(int x);
void *symtest_hidden_addr(void);

static __attribute__((noinline)) int hidden(int x)
{
	return x * 5 + 2;
}

int symtest_exported(int x)
{
	return hidden(x) + 1;
}

void *symtest_hidden_addr(void)
{
	return (void *)hidden;
}
