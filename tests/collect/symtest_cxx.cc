/* A C++ shared library for test_symbols.c: its method must be named
 * demangled, with its namespace, class and parameters, and the library. */
namespace sl_test {
struct Widget {
	static int spin(int x);
};

__attribute__((noinline)) int Widget::spin(int x)
{
	return x * 7 + 3;
}
} // namespace sl_test

extern "C" void *symtest_cxx_addr(void);

extern "C" void *symtest_cxx_addr(void)
{
	return reinterpret_cast<void *>(&sl_test::Widget::spin);
}
