// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolization fixture: prints "name 0xADDR" lines for code whose symbols
 * the test knows, then "ready", then waits for stdin to close. The test
 * builds it with and without debug info, stripped with a debuglink, etc.
 *
 *   fx_main          addresses of leaf_target and of a call inside an
 *                    inlined function
 *   fx_main dlopen LIB   also loads LIB and prints its lib_func/lib_static
 *   fx_main dlopen-late LIB   the same, but only after "ready", once a line
 *                    comes on stdin; then "ready" again
 *   fx_main jit      also maps an anonymous executable page (for perf maps)
 *                    and prints its own pid (as its pid namespace sees it)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void *probe_ret;

__attribute__((noinline)) void leaf_target(void)
{
	__asm__ volatile("" ::: "memory");
}

/* Records where it returns to: an address inside its inlined caller. */
__attribute__((noinline)) void probe(void)
{
	probe_ret = __builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

static inline __attribute__((always_inline)) void inl_helper(void)
{
	probe();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void outer_with_inline(void)
{
	inl_helper();
	__asm__ volatile("" ::: "memory");
}

/* dlopens LIB and prints the addresses of its lib_func and lib_static. */
static int load_lib(const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW);
	void *(*addrs)(int);

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return -1;
	}
	addrs = (void *(*)(int))dlsym(h, "lib_addr");
	printf("lib_func %p\n", addrs(0));
	printf("lib_static %p\n", addrs(1));
	return 0;
}

int main(int argc, char **argv)
{
	char buf[64];

	outer_with_inline();
	leaf_target();
	printf("leaf_target %p\n", (void *)leaf_target);
	printf("probe_ret %p\n", probe_ret);
	{
		/* glibc hands out the vDSO's symbols through this handle. */
		void *vdso = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);

		if (vdso)
			printf("vdso_clock_gettime %p\n", dlsym(vdso, "__vdso_clock_gettime"));
	}
	if (argc > 2 && !strcmp(argv[1], "dlopen") && load_lib(argv[2]))
		return 1;
	if (argc > 1 && !strcmp(argv[1], "jit")) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		printf("jit %p\n", p);
		printf("nspid 0x%x\n", (unsigned int)getpid());
	}
	printf("ready\n");
	fflush(stdout);
	if (argc > 2 && !strcmp(argv[1], "dlopen-late") && read(0, buf, 1) == 1) {
		if (load_lib(argv[2]))
			return 1;
		printf("ready\n");
		fflush(stdout);
	}
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}
