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

/* Functions under Rust's mangled names (the v0 and the legacy scheme), to
 * check that their names are demangled as rustfilt would. */
int symtest_rust_v0(int x) __asm__("_RNvCs1234_7mycrate3foo");
int symtest_rust_legacy(int x) __asm__("_ZN7mycrate3bar17h0123456789abcdefE");

int symtest_rust_v0(int x)
{
	return x + 7;
}

int symtest_rust_legacy(int x)
{
	return x + 9;
}
