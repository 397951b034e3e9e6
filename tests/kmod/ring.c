// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ring.h"

int ktest_rings_open(struct ktest_rings *r, uint32_t id, uint64_t token, uint64_t data_size,
		     int nr_cpu_ids)
{
	struct skyprof_bind b = { .session_id = id, .token = token };
	long page = sysconf(_SC_PAGESIZE);
	int cpu;

	memset(r, 0, sizeof(*r));
	r->fd = open("/dev/" SKYPROF_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	if (ioctl(r->fd, SKYPROF_IOC_BIND, &b))
		return -errno;
	r->nr = nr_cpu_ids < KTEST_MAX_CPUS ? nr_cpu_ids : KTEST_MAX_CPUS;
	for (cpu = 0; cpu < r->nr; cpu++) {
		void *ctl, *data;

		ctl = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
			   (off_t)SKYPROF_MMAP_CTL_PGOFF(cpu) * page);
		if (ctl == MAP_FAILED) {
			if (errno == EINVAL)
				continue;	/* not a possible CPU */
			return -errno;
		}
		data = mmap(NULL, data_size, PROT_READ, MAP_SHARED, r->fd,
			    (off_t)SKYPROF_MMAP_DATA_PGOFF(cpu) * page);
		if (data == MAP_FAILED)
			return -errno;
		r->ring[cpu].ctl = ctl;
		r->ring[cpu].data = data;
		r->ring[cpu].size = data_size;
	}
	return 0;
}

void ktest_rings_close(struct ktest_rings *r)
{
	long page = sysconf(_SC_PAGESIZE);
	int cpu;

	for (cpu = 0; cpu < r->nr; cpu++) {
		if (r->ring[cpu].ctl)
			munmap(r->ring[cpu].ctl, page);
		if (r->ring[cpu].data)
			munmap((void *)r->ring[cpu].data, r->ring[cpu].size);
		r->ring[cpu].ctl = NULL;
		r->ring[cpu].data = NULL;
	}
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

static bool ktest_all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* Checks one sample record; returns false if malformed, counts padding errors. */
/* The arrays of a sample: after the fixed part, and its as_id in version 2. */
static const uint64_t *ktest_sample_ips(const struct skyprof_sample *s)
{
	if (s->hdr.version == SKYPROF_SAMPLE_VERSION_AS)
		return (const uint64_t *)((const struct skyprof_sample_as *)(s + 1) + 1);
	return (const uint64_t *)(s + 1);
}

static uint64_t ktest_sample_as(const struct skyprof_sample *s)
{
	if (s->hdr.version == SKYPROF_SAMPLE_VERSION_AS)
		return ((const struct skyprof_sample_as *)(s + 1))->as_id;
	return 0;
}

static bool ktest_check_sample(struct ktest_rings *r, const struct skyprof_sample *s, int cpu)
{
	const uint64_t *ips = ktest_sample_ips(s);
	size_t want = (const uint8_t *)ips - (const uint8_t *)s +
		      8 * ((size_t)s->nr_kernel + s->nr_user);
	const uint8_t *p = (const uint8_t *)(ips + s->nr_kernel + s->nr_user);
	bool pad_ok = true;
	size_t i, n;

	if (s->hdr.size < want - 8 * ((size_t)s->nr_kernel + s->nr_user) ||
	    (s->hdr.version != SKYPROF_SAMPLE_VERSION &&
	     s->hdr.version != SKYPROF_SAMPLE_VERSION_AS) ||
	    s->cpu != (uint32_t)cpu || s->nr_kernel > SKYPROF_MAX_DEPTH ||
	    s->nr_user > SKYPROF_MAX_DEPTH)
		return false;
	if (s->flags & SKYPROF_SF_REGS) {
		const struct skyprof_user_regs *ur = (const void *)p;

		want += sizeof(*ur) + ((s->ustack_size + 7) & ~7u);
		if (want > s->hdr.size)
			return false;
		if (ur->reserved)
			pad_ok = false;
		for (i = 0; i < SKYPROF_UREGS_NR; i++)
			if (!(ur->mask & (1ULL << i)) && ur->regs[i])
				pad_ok = false;
		n = (8 - (s->ustack_size & 7)) & 7;
		if (!ktest_all_zero((const uint8_t *)(ur + 1) + s->ustack_size, n))
			pad_ok = false;
	} else if (s->ustack_size) {
		return false;
	}
	if (want != s->hdr.size)
		return false;
	if (s->flags & ~((SKYPROF_SF_OFFCPU << 1) - 1))
		pad_ok = false;
	n = strnlen(s->comm, sizeof(s->comm));
	if (n == sizeof(s->comm) ||
	    !ktest_all_zero((const uint8_t *)s->comm + n, sizeof(s->comm) - n))
		pad_ok = false;
	if (!pad_ok)
		r->padding_errors++;
	return true;
}

static void ktest_dump_sample(FILE *f, const struct skyprof_sample *s)
{
	const uint64_t *ips = ktest_sample_ips(s);
	char comm[17];
	int i;

	memcpy(comm, s->comm, 16);
	comm[16] = 0;
	for (i = 0; comm[i]; i++)
		if (comm[i] == ' ' || comm[i] == '\t')
			comm[i] = '_';
	fprintf(f, "S %u %u %u %x %llu %llu %s k=", s->cpu, s->tgid, s->tid, s->flags,
		(unsigned long long)s->time_ns, (unsigned long long)s->cgroup_id,
		comm[0] ? comm : "-");
	for (i = 0; i < s->nr_kernel; i++)
		fprintf(f, "%s%llx", i ? "," : "", (unsigned long long)ips[i]);
	fprintf(f, " u=");
	for (i = 0; i < s->nr_user; i++)
		fprintf(f, "%s%llx", i ? "," : "", (unsigned long long)ips[s->nr_kernel + i]);
	fprintf(f, " us=%u w=%llu as=%llu\n", s->ustack_size, (unsigned long long)s->weight,
		(unsigned long long)ktest_sample_as(s));
}

/*
 * A side-band record: well framed (the path inside, NUL terminated where
 * path_len says, zeroes after it and in every reserved field), dumped as
 *   M as_id tgid start end pgoff ino major:minor size mtime flags path
 *   A as_id tgid nr_maps report flags first_ns time_ns comm
 */
static bool ktest_check_sideband(struct ktest_rings *r, const struct skyprof_rec_header *h)
{
	if (h->type == SKYPROF_REC_MMAP) {
		const struct skyprof_mmap *m = (const void *)h;
		const char *path = (const char *)(m + 1);
		size_t i;

		if (h->version != SKYPROF_MMAP_VERSION || h->size < sizeof(*m) || !m->path_len ||
		    sizeof(*m) + m->path_len > h->size ||
		    ((sizeof(*m) + m->path_len + 7) & ~(size_t)7) != h->size ||
		    path[m->path_len - 1] || strlen(path) != (size_t)m->path_len - 1 ||
		    m->start >= m->end || m->build_id_size > SKYPROF_BUILD_ID_MAX)
			return false;
		if (m->reserved || m->reserved2 || !(m->prot & 4) ||
		    !ktest_all_zero((const uint8_t *)path + m->path_len,
				    h->size - sizeof(*m) - m->path_len))
			r->padding_errors++;
		for (i = m->build_id_size; i < SKYPROF_BUILD_ID_MAX; i++)
			if (m->build_id[i])
				r->padding_errors++;
		r->mmaps++;
		if (r->dump)
			fprintf(r->dump, "M %llu %u %llx %llx %llx %llu %u:%u %llu %lld.%09u %x %s\n",
				(unsigned long long)m->as_id, m->tgid,
				(unsigned long long)m->start, (unsigned long long)m->end,
				(unsigned long long)m->pgoff, (unsigned long long)m->ino,
				m->dev_major, m->dev_minor, (unsigned long long)m->size,
				(long long)m->mtime_sec, m->mtime_nsec, m->flags,
				path[0] ? path : "-");
		return true;
	}
	{
		const struct skyprof_aspace *a = (const void *)h;
		char comm[17];
		size_t n;

		if (h->version != SKYPROF_ASPACE_VERSION || h->size != sizeof(*a) || !a->as_id)
			return false;
		n = strnlen(a->comm, sizeof(a->comm));
		if (n == sizeof(a->comm) ||
		    !ktest_all_zero((const uint8_t *)a->comm + n, sizeof(a->comm) - n))
			r->padding_errors++;
		r->aspaces++;
		memcpy(comm, a->comm, 16);
		comm[16] = 0;
		for (n = 0; comm[n]; n++)
			if (comm[n] == ' ' || comm[n] == '\t')
				comm[n] = '_';
		if (r->dump)
			fprintf(r->dump, "A %llu %u %u %u %x %llu %llu %s\n",
				(unsigned long long)a->as_id, a->tgid, a->nr_maps, a->report,
				a->flags, (unsigned long long)a->first_ns,
				(unsigned long long)a->time_ns, comm[0] ? comm : "-");
		return true;
	}
}

static uint64_t ktest_ring_drain(struct ktest_rings *r, int cpu)
{
	struct ktest_ring *ring = &r->ring[cpu];
	uint64_t head, tail, n = 0;

	/* Pairs with the kernel's release store of data_head. */
	head = __atomic_load_n(&ring->ctl->data_head, __ATOMIC_ACQUIRE);
	tail = ring->ctl->data_tail;
	while (tail < head) {
		uint64_t off = tail & (ring->size - 1);
		const struct skyprof_rec_header *h = (const void *)(ring->data + off);

		if (h->size < sizeof(*h) || h->size % SKYPROF_REC_ALIGN ||
		    h->size > ring->size - off || h->size > head - tail) {
			r->bad_records++;
			tail = head;	/* resynchronize: skip everything */
			break;
		}
		if (h->type == SKYPROF_REC_PAD) {
			if (off + h->size != ring->size)
				r->bad_records++;
			if (!ktest_all_zero((const uint8_t *)(h + 1), h->size - sizeof(*h)))
				r->padding_errors++;
			r->pads++;
		} else if (h->type == SKYPROF_REC_SAMPLE) {
			const struct skyprof_sample *s = (const void *)h;

			if (!ktest_check_sample(r, s, cpu)) {
				r->bad_records++;
			} else {
				r->samples++;
				r->per_cpu[cpu]++;
				r->weight_sum += s->weight;
				if (r->since_ns && s->time_ns >= r->since_ns)
					r->recent++;
				if (s->time_ns >= r->win_start_ns && s->time_ns < r->win_end_ns)
					r->in_window++;
				if (r->dump)
					ktest_dump_sample(r->dump, s);
			}
		} else if (h->type == SKYPROF_REC_MMAP || h->type == SKYPROF_REC_ASPACE) {
			if (!ktest_check_sideband(r, h))
				r->bad_records++;
		} else {
			r->bad_records++;
		}
		tail += h->size;
		n++;
	}
	/* Pairs with the kernel's acquire load of data_tail: we are done reading. */
	__atomic_store_n(&ring->ctl->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

uint64_t ktest_rings_drain(struct ktest_rings *r)
{
	uint64_t n = 0;
	int cpu;

	for (cpu = 0; cpu < r->nr; cpu++)
		if (r->ring[cpu].ctl)
			n += ktest_ring_drain(r, cpu);
	return n;
}

uint64_t ktest_rings_lost(struct ktest_rings *r)
{
	uint64_t n = 0;
	int cpu;

	for (cpu = 0; cpu < r->nr; cpu++)
		if (r->ring[cpu].ctl)
			n += __atomic_load_n(&r->ring[cpu].ctl->lost, __ATOMIC_RELAXED);
	return n;
}
