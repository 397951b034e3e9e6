// SPDX-License-Identifier: GPL-2.0
// C++ fixture: template instantiations whose demangled names the test checks.
#include <cstdio>
#include <unistd.h>

template <typename T> __attribute__((noinline)) T twice(T v)
{
	__asm__ volatile("" ::: "memory");
	return v + v;
}

namespace ns
{
template <class T> struct Box {
	T v;
	__attribute__((noinline)) static T get(const Box &b)
	{
		__asm__ volatile("" ::: "memory");
		return b.v;
	}
};
} // namespace ns

int main()
{
	ns::Box<double> b{ 1.5 };
	char buf[64];

	std::printf("twice_int %p\n", (void *)&twice<int>);
	std::printf("box_get %p\n", (void *)&ns::Box<double>::get);
	std::printf("ready %d %f\n", twice(2), ns::Box<double>::get(b));
	std::fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}
