// SPDX-License-Identifier: GPL-2.0
/*
 * skyprof-privprobe: the privilege boundary of skyprof.ko (issue 11).
 *
 *   skyprof-privprobe perfmon   as a caller with CAP_PERFMON but not CAP_SYSLOG
 *   skyprof-privprobe mmap      as root: the mapping rules of /dev/skyprof
 *   skyprof-privprobe foreign ID TOKEN   BIND to another owner's session
 *
 * perfmon: sessions work; kernel stacks are refused (-EPERM) and are not in
 * the default (kernel addresses only for who may read them from kallsyms);
 * no record carries a kernel address even while sampling a syscall loop.
 * mmap: wrong offset, size, MAP_PRIVATE, PROT_EXEC, PROT_WRITE on data,
 * mremap growth are refused; a forked child that kept the bound file after
 * the owner stopped and exited can map and read without harm and the ring
 * memory goes once it lets go. Prints one "ok"/"FAIL" line per check.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nl.h"

static int fails;

static void ck(int ok, const char *what, int err)
{
	printf("%-4s %s -> %d (%s)\n", ok ? "ok" : "FAIL", what, err,
	       err ? strerror(err < 0 ? -err : err) : "success");
	fails += !ok;
}

struct sess {
	uint32_t id;
	uint64_t token, data_size;
};

static int start(struct ktest_nl *nl, int flags, uint32_t tgid, struct sess *s, char *ext)
{
	struct nl_msg *m = ktest_nl_msg(nl, SKYPROF_CMD_SESSION_START);
	struct ktest_reply rep;
	int err;

	nla_put_u32(m, SKYPROF_A_CLOCK, SKYPROF_CLOCK_HRTIMER);
	nla_put_u32(m, SKYPROF_A_FREQ, 999);
	nla_put_u32(m, SKYPROF_A_RING_PAGES, 64);
	if (flags >= 0)
		nla_put_u32(m, SKYPROF_A_FLAGS, (uint32_t)flags);
	if (tgid)
		nla_put(m, SKYPROF_A_TARGET_TGIDS, 4, &tgid);
	err = ktest_nl_request(nl, m, &rep);
	if (ext)
		snprintf(ext, 256, "%s", rep.ext);
	if (!err && s) {
		s->id = nla_get_u32(rep.tb[SKYPROF_A_SESSION_ID]);
		s->token = nla_get_u64(rep.tb[SKYPROF_A_SESSION_TOKEN]);
		s->data_size = nla_get_u64(rep.tb[SKYPROF_A_RING_DATA_SIZE]);
	}
	ktest_reply_free(&rep);
	return err;
}

static int stop(struct ktest_nl *nl, uint32_t id)
{
	struct nl_msg *m = ktest_nl_msg(nl, SKYPROF_CMD_SESSION_STOP);
	struct ktest_reply rep;
	int err;

	nla_put_u32(m, SKYPROF_A_SESSION_ID, id);
	err = ktest_nl_request(nl, m, &rep);
	ktest_reply_free(&rep);
	return err;
}

static int info(struct ktest_nl *nl, uint32_t *active, uint64_t *ring_bytes, uint32_t *ncpu)
{
	struct ktest_reply rep;
	int err = ktest_nl_request(nl, ktest_nl_msg(nl, SKYPROF_CMD_GET_INFO), &rep);

	if (!err) {
		*active = nla_get_u32(rep.tb[SKYPROF_A_ACTIVE_SESSIONS]);
		*ring_bytes = nla_get_u64(rep.tb[SKYPROF_A_RING_BYTES]);
		if (ncpu)
			*ncpu = nla_get_u32(rep.tb[SKYPROF_A_NR_CPU_IDS]);
	}
	ktest_reply_free(&rep);
	return err;
}

static int bind_fd(uint32_t id, uint64_t token)
{
	struct skyprof_bind b = { .session_id = id, .token = token };
	int fd = open("/dev/" SKYPROF_DEVICE_NAME, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, SKYPROF_IOC_BIND, &b)) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

static int map_err(int fd, size_t len, int prot, int flags, unsigned long pgoff)
{
	void *p = mmap(NULL, len, prot, flags, fd, (off_t)(pgoff * (unsigned long)getpagesize()));

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, len);
	return 0;
}

/* Counts records with kernel frames in every CPU's data area. */
static long kernel_frames(int fd, uint32_t ncpu, uint64_t size, long *records)
{
	long kf = 0;
	uint32_t c;

	*records = 0;
	for (c = 0; c < ncpu; c++) {
		struct skyprof_ring_ctl *ctl =
			mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			     (off_t)(SKYPROF_MMAP_CTL_PGOFF(c) * getpagesize()));
		const uint8_t *d = mmap(NULL, size, PROT_READ, MAP_SHARED, fd,
					(off_t)(SKYPROF_MMAP_DATA_PGOFF(c) * getpagesize()));
		uint64_t head, tail;

		if (ctl == MAP_FAILED || d == MAP_FAILED)
			continue;
		head = __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE);
		for (tail = ctl->data_tail; tail < head;) {
			const struct skyprof_rec_header *h =
				(const void *)(d + (tail & (size - 1)));

			if (h->size < sizeof(*h) || h->size > size)
				break;
			if (h->type == SKYPROF_REC_SAMPLE) {
				const struct skyprof_sample *smp = (const void *)h;

				(*records)++;
				kf += smp->nr_kernel != 0;
			}
			tail += h->size;
		}
		__atomic_store_n(&ctl->data_tail, head, __ATOMIC_RELEASE);
		munmap(ctl, getpagesize());
		munmap((void *)d, size);
	}
	return kf;
}

static int cmd_perfmon(void)
{
	struct ktest_nl nl;
	struct sess s;
	uint32_t act, ncpu;
	uint64_t rb;
	char ext[256];
	long recs = 0, kf;
	pid_t spin;
	int err, fd, i;

	printf("uid=%u\n", getuid());
	if (ktest_nl_open(&nl))
		return 1;
	err = info(&nl, &act, &rb, &ncpu);
	ck(!err, "CAP_PERFMON: GET_INFO", err);
	err = start(&nl, SKYPROF_F_KERNEL_STACK | SKYPROF_F_USER_STACK, 0, NULL, ext);
	ck(err == -EPERM, "CAP_PERFMON without CAP_SYSLOG: START with kernel stacks", err);
	printf("     extack: %s\n", ext);
	/* A child in a syscall loop: most ticks interrupt kernel mode. */
	spin = fork();
	if (!spin) {
		for (;;)
			getppid(), close(-1);
	}
	err = start(&nl, -1, (uint32_t)spin, &s, NULL);
	ck(!err, "CAP_PERFMON: START with default flags", err);
	if (err)
		goto out;
	fd = bind_fd(s.id, s.token);
	ck(fd >= 0, "CAP_PERFMON: open + BIND own session", fd < 0 ? fd : 0);
	if (fd >= 0) {
		for (i = 0, kf = 0; i < 20; i++) {
			long r;

			usleep(100000);
			kf += kernel_frames(fd, ncpu, s.data_size, &r);
			recs += r;
		}
		printf("     records=%ld with_kernel_frames=%ld\n", recs, kf);
		ck(recs > 0 && kf == 0, "CAP_PERFMON: samples carry no kernel address", 0);
		close(fd);
	}
	err = stop(&nl, s.id);
	ck(!err, "CAP_PERFMON: STOP own session", err);
out:
	kill(spin, SIGKILL);
	waitpid(spin, NULL, 0);
	ktest_nl_close(&nl);
	printf("privprobe_failures=%d\n", fails);
	return fails ? 1 : 0;
}

static int cmd_mmap(void)
{
	long pg = getpagesize();
	struct ktest_nl nl;
	struct sess s;
	uint32_t act, ncpu;
	uint64_t rb;
	void *p, *q;
	int fd, err, i, st;
	pid_t child;

	if (ktest_nl_open(&nl) || info(&nl, &act, &rb, &ncpu) || start(&nl, -1, 0, &s, NULL))
		return 1;
	fd = bind_fd(s.id, s.token);
	if (fd < 0)
		return 1;
	ck(map_err(fd, pg, PROT_READ | PROT_WRITE, MAP_SHARED, SKYPROF_MMAP_CTL_PGOFF(0)) == 0,
	   "ctl page RW", 0);
	err = map_err(fd, pg, PROT_READ | PROT_EXEC, MAP_SHARED, SKYPROF_MMAP_CTL_PGOFF(0));
	ck(err, "PROT_EXEC ctl page", err);
	err = map_err(fd, s.data_size, PROT_READ | PROT_EXEC, MAP_SHARED,
		      SKYPROF_MMAP_DATA_PGOFF(0));
	ck(err, "PROT_EXEC data area", err);
	err = map_err(fd, s.data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      SKYPROF_MMAP_DATA_PGOFF(0));
	ck(err, "PROT_WRITE data area", err);
	err = map_err(fd, pg, PROT_READ, MAP_PRIVATE, SKYPROF_MMAP_CTL_PGOFF(0));
	ck(err == -EINVAL, "MAP_PRIVATE ctl page", err);
	err = map_err(fd, 2 * pg, PROT_READ, MAP_SHARED, SKYPROF_MMAP_CTL_PGOFF(0));
	ck(err == -EINVAL, "ctl page, 2 pages", err);
	err = map_err(fd, s.data_size * 2, PROT_READ, MAP_SHARED, SKYPROF_MMAP_DATA_PGOFF(0));
	ck(err == -EINVAL, "data area, twice its size", err);
	err = map_err(fd, s.data_size / 2, PROT_READ, MAP_SHARED, SKYPROF_MMAP_DATA_PGOFF(0));
	ck(err == -EINVAL, "data area, half its size", err);
	err = map_err(fd, pg, PROT_READ, MAP_SHARED, SKYPROF_MMAP_CTL_PGOFF(0) + 2);
	ck(err == -EINVAL, "offset between data and the next CPU", err);
	err = map_err(fd, pg, PROT_READ, MAP_SHARED, SKYPROF_MMAP_CTL_PGOFF(ncpu));
	ck(err == -EINVAL, "offset of CPU nr_cpu_ids", err);
	err = map_err(fd, pg, PROT_READ, MAP_SHARED, SKYPROF_MMAP_CTL_PGOFF(4096));
	ck(err == -EINVAL, "offset far beyond", err);
	/* mremap growth and mprotect(PROT_EXEC) of a good mapping */
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	q = p == MAP_FAILED ? MAP_FAILED : mremap(p, pg, 4 * pg, MREMAP_MAYMOVE);
	ck(p != MAP_FAILED && q == MAP_FAILED, "mremap growth of the ctl page",
	   q == MAP_FAILED ? -errno : 0);
	if (q != MAP_FAILED)
		p = q;
	err = p != MAP_FAILED && mprotect(p, pg, PROT_READ | PROT_EXEC) ? -errno : 0;
	ck(err, "mprotect(PROT_EXEC) of the ctl page", err);
	if (p != MAP_FAILED)
		munmap(p, q != MAP_FAILED ? 4 * pg : pg);
	p = mmap(NULL, s.data_size, PROT_READ, MAP_SHARED, fd,
		 (off_t)(SKYPROF_MMAP_DATA_PGOFF(0) * pg));
	q = p == MAP_FAILED ? MAP_FAILED : mremap(p, s.data_size, 2 * s.data_size, MREMAP_MAYMOVE);
	ck(p != MAP_FAILED && q == MAP_FAILED, "mremap growth of the data area",
	   q == MAP_FAILED ? -errno : 0);
	if (p != MAP_FAILED && q == MAP_FAILED)
		munmap(p, s.data_size);
	else if (q != MAP_FAILED)
		munmap(q, 2 * s.data_size);
	/* The mapping of a ctl page is not inherited (VM_DONTCOPY); the bound file is. */
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	{
		int fd2 = dup(fd);
		int pipefd[2];

		if (pipe(pipefd))
			return 1;
		fcntl(fd2, F_SETFD, 0);
		child = fork();
		if (!child) {
			const volatile uint8_t *d;
			char c;
			uint64_t sum = 0;

			close(pipefd[1]);
			if (read(pipefd[0], &c, 1) != 1) /* the owner is gone */
				_exit(3);
			d = mmap(NULL, s.data_size, PROT_READ, MAP_SHARED, fd2,
				 (off_t)(SKYPROF_MMAP_DATA_PGOFF(0) * pg));
			if (d != MAP_FAILED)
				for (uint64_t k = 0; k < s.data_size; k += 64)
					sum += d[k];
			printf("     child after the owner's stop: mmap %s, read %llu bytes\n",
			       d == MAP_FAILED ? strerror(errno) : "ok",
			       d == MAP_FAILED ? 0ULL : (unsigned long long)s.data_size);
			_exit(sum == (uint64_t)-1 ? 4 : 0);
		}
		close(pipefd[0]);
		err = stop(&nl, s.id);
		ck(!err, "owner STOP while a child holds the bound file", err);
		if (p != MAP_FAILED)
			munmap(p, pg);
		close(fd);
		close(fd2);
		if (write(pipefd[1], "x", 1) != 1)
			return 1;
		close(pipefd[1]);
		waitpid(child, &st, 0);
		ck(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child read the ended session's ring", 0);
	}
	for (i = 0; i < 300; i++) {
		if (!info(&nl, &act, &rb, NULL) && !act && !rb)
			break;
		usleep(10000);
	}
	ck(!act && !rb, "no session and no ring memory after the child let go", 0);
	ktest_nl_close(&nl);
	printf("privprobe_failures=%d\n", fails);
	return fails ? 1 : 0;
}

/* Another caller tries the rings of a session it does not own. */
static int cmd_foreign(int argc, char **argv)
{
	uint32_t id = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 0;
	uint64_t tok = argc > 2 ? strtoull(argv[2], NULL, 0) : 0;
	int fd;

	fd = bind_fd(id, tok ^ 1);
	ck(fd < 0, "BIND another owner's session with a wrong token", fd < 0 ? fd : 0);
	if (fd >= 0)
		close(fd);
	fd = bind_fd(id, 0);
	ck(fd < 0, "BIND another owner's session with token 0", fd < 0 ? fd : 0);
	if (fd >= 0)
		close(fd);
	printf("privprobe_failures=%d\n", fails);
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "perfmon"))
		return cmd_perfmon();
	if (argc > 1 && !strcmp(argv[1], "mmap"))
		return cmd_mmap();
	if (argc > 1 && !strcmp(argv[1], "foreign"))
		return cmd_foreign(argc - 1, argv + 1);
	fprintf(stderr, "usage: skyprof-privprobe perfmon|mmap|foreign ID TOKEN\n");
	return 2;
}
