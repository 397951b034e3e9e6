// SPDX-License-Identifier: GPL-2.0
/*
 * bpfcount [PID,PID...]: the sample counts of a running
 *   bpftrace -e 'profile:hz:N { @[kstack, ustack, pid] = count(); }'
 * read straight from its map with the bpf() system call, so that make bench
 * can count what bpftrace collected without waiting for it to print the map
 * (it symbolizes every stack first, which is slow under TCG at high rates,
 * with the probe still firing) and then end it with SIGKILL.
 *
 * bpftrace 0.17 keys that map by 24 bytes (kernel stack id; user stack id
 * or'ed with the thread id << 32; pid) with a u64 count per CPU: every hash
 * or per-CPU hash map of that shape is read, its per-CPU values summed.
 * Prints "total N" (every key) and "pids N" (keys whose pid, the third
 * word, is in the list).
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

int main(int argc, char **argv)
{
	uint64_t want[256], total = 0, in_pids = 0;
	int nwant = 0, nmaps = 0;
	/* Per-CPU values come for every possible CPU: a buffer larger than
	 * any possible count, zeroed, summed whole. */
	const long ncpu = 4096;
	uint32_t id = 0;

	if (argc > 1) {
		for (char *s = argv[1], *e; *s && nwant < 256; s = *e ? e + 1 : e) {
			want[nwant++] = strtoull(s, &e, 10);
			if (e == s)
				break;
		}
	}
	for (;;) {
		union bpf_attr a;
		struct bpf_map_info info;
		uint8_t key[24], next[24];
		uint64_t *vals;
		int fd, first = 1;

		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (bpf(BPF_MAP_GET_NEXT_ID, &a))
			break;
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		a.map_id = id;
		fd = (int)bpf(BPF_MAP_GET_FD_BY_ID, &a);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = (uint32_t)fd;
		a.info.info_len = sizeof(info);
		a.info.info = (uint64_t)(uintptr_t)&info;
		if (bpf(BPF_OBJ_GET_INFO_BY_FD, &a) || info.key_size != 24 || info.value_size != 8 ||
		    (info.type != BPF_MAP_TYPE_HASH && info.type != BPF_MAP_TYPE_PERCPU_HASH)) {
			close(fd);
			continue;
		}
		nmaps++;
		vals = calloc((size_t)ncpu, 8);
		if (!vals)
			return 1;
		for (;;) {
			uint64_t v = 0, pid;
			int n = info.type == BPF_MAP_TYPE_PERCPU_HASH ? (int)ncpu : 1;


			memset(&a, 0, sizeof(a));
			a.map_fd = (uint32_t)fd;
			a.key = first ? 0 : (uint64_t)(uintptr_t)key;
			a.next_key = (uint64_t)(uintptr_t)next;
			if (bpf(BPF_MAP_GET_NEXT_KEY, &a))
				break;
			first = 0;
			memcpy(key, next, sizeof(key));
			memset(&a, 0, sizeof(a));
			a.map_fd = (uint32_t)fd;
			a.key = (uint64_t)(uintptr_t)key;
			a.value = (uint64_t)(uintptr_t)vals;
			memset(vals, 0, (size_t)ncpu * 8);
			if (bpf(BPF_MAP_LOOKUP_ELEM, &a))
				continue; /* deleted meanwhile */
			for (int c = 0; c < n; c++)
				v += vals[c];
			total += v;
			memcpy(&pid, key + 16, 8);
			for (int i = 0; i < nwant; i++)
				if (want[i] == pid) {
					in_pids += v;
					break;
				}
		}
		free(vals);
		close(fd);
	}
	if (!nmaps) {
		fprintf(stderr, "bpfcount: no bpftrace count map found\n");
		return 1;
	}
	printf("maps %d\ntotal %llu\npids %llu\n", nmaps, (unsigned long long)total,
	       (unsigned long long)in_pids);
	return 0;
}
