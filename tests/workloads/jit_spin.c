// SPDX-License-Identifier: GPL-2.0
/*
 * jit_spin MS: what a JIT does, in small. Maps three pages of anonymous
 * memory, writes a counting loop into the middle one, gives the pages
 * three different protections (r-x, rwx, r-x: three mappings side by side,
 * as a JIT flipping pages between writable and executable leaves them),
 * runs the loop for MS milliseconds and exits at once. Prints
 * "code START SIZE" (hex, bytes) of the three pages first.
 * x86-64 only (the loop is machine code): elsewhere it exits 77.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/* count(n): mov rax, rdi; 1: sub rax, 1; jnz 1b; ret (n > 0) */
static const unsigned char count_code[] = { 0x48, 0x89, 0xf8, 0x48, 0x83,
					    0xe8, 0x01, 0x75, 0xfa, 0xc3 };

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), ms;
	void (*count)(unsigned long);
	struct timespec t0;
	unsigned char *mem;

	if (argc < 2) {
		fprintf(stderr, "usage: jit_spin MS\n");
		return 2;
	}
	ms = strtol(argv[1], NULL, 0);
	mem = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("jit_spin: mmap");
		return 1;
	}
	memcpy(mem + page, count_code, sizeof(count_code));
	if (mprotect(mem, page, PROT_READ | PROT_EXEC) ||
	    mprotect(mem + page, page, PROT_READ | PROT_WRITE | PROT_EXEC) ||
	    mprotect(mem + 2 * page, page, PROT_READ | PROT_EXEC)) {
		perror("jit_spin: mprotect");
		return 1;
	}
	printf("code %lx %lx\n", (unsigned long)mem, 3 * (unsigned long)page);
	fflush(stdout);
	*(void **)&count = mem + page;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (elapsed_ms(&t0) < ms)
		count(100000);
	return 0;
}
#else
int main(void)
{
	fprintf(stderr, "jit_spin: x86-64 only\n");
	return 77;
}
#endif
