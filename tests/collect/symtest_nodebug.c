/* A function in a shared library built without debug info, for
 * test_symbols.c: symbolisation must still name it from the symbol table
 * and report no source line. */
int symtest_nodebug(int x);

__attribute__((noinline)) int symtest_nodebug(int x)
{
	return x * 3 + 1;
}
