// SPDX-License-Identifier: GPL-2.0
/*
 * Ring reader: maps a session's per-CPU rings and drains them.
 *
 * Memory ordering (the reader's half of the contract in skyprof.h):
 *  - data_head is loaded with acquire; it pairs with the producer's release
 *    store after it wrote the records, so every byte in [tail, head) is
 *    visible once head is;
 *  - data_tail is stored with release after the last read of the records it
 *    frees; it pairs with the producer's acquire load before it reserves
 *    space, so the producer never overwrites bytes we are still reading.
 * The producer's head is untrusted: a head behind our tail, more than one
 * area ahead of it, or not 8-aligned makes us resynchronise at head and count
 * it, rather than read stale or foreign bytes as records.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <skyprof.h>

#include "capture/ring.h"

#define DEVICE_PATH  "/dev/" SKYPROF_DEVICE_NAME
#define CPU_POSSIBLE "/sys/devices/system/cpu/possible"

struct ring {
	int fd;
	uint32_t nr_cpus; /* entries in cpus[] (nr_cpu_ids) */
	uint32_t nr_mapped;
	size_t page_size;
	struct ring_cpu *cpus;
	struct ring_stats stats;
};

static void drop_rest(uint64_t *tail, uint64_t head, struct ring_stats *st)
{
	st->framing_errors++;
	st->bytes_dropped += head - *tail;
	*tail = head;
}

/* A side-band record to the sink, or counted when no one takes them. */
static int sideband(const struct ring_sink *k, uint32_t cpu, enum decode_result r,
		    const struct sp_record *rec, struct ring_stats *st)
{
	if (r == DECODE_MMAP && k->mmap) {
		st->mmaps++;
		return k->mmap(k->arg, cpu, &rec->mmap);
	}
	if (r == DECODE_ASPACE && k->aspace) {
		st->aspaces++;
		return k->aspace(k->arg, cpu, &rec->aspace);
	}
	st->sideband_unread++;
	return 0;
}

int ring_cpu_drain(struct ring_cpu *rc, const struct ring_sink *k, struct ring_stats *st)
{
	uint64_t head, tail = rc->tail, mask = rc->size - 1;
	int ret = 0;

	/* Pairs with the producer's smp_store_release() of data_head. */
	head = __atomic_load_n(&rc->ctl->data_head, __ATOMIC_ACQUIRE);
	if (head == tail)
		return 0;
	if (head - tail > rc->size || (head & (SKYPROF_REC_ALIGN - 1))) {
		st->head_errors++;
		tail = head;
		goto publish;
	}

	while (tail != head) {
		uint64_t off = tail & mask, avail = head - tail, contig = rc->size - off;
		enum decode_skip_reason why;
		enum decode_result r;
		struct sp_record rec;
		size_t sz;

		if (contig > avail)
			contig = avail;
		switch ((r = decode_record(rc->data + off, contig, &rec, &sz, &why))) {
		case DECODE_SAMPLE:
			if (rec.sample.cpu != rc->cpu) {
				/* Downstream may index per-CPU tables by it. */
				st->cpu_mismatch++;
				rec.sample.cpu = rc->cpu;
			}
			st->samples++;
			tail += sz;
			ret = k->sample(k->arg, &rec.sample);
			if (ret)
				goto publish;
			break;
		case DECODE_MMAP:
		case DECODE_ASPACE:
			tail += sz;
			ret = sideband(k, rc->cpu, r, &rec, st);
			if (ret)
				goto publish;
			break;
		case DECODE_PAD:
			/* The rest of the area is padding, and must have been published. */
			if (rc->size - off > avail) {
				drop_rest(&tail, head, st);
				break;
			}
			st->pads++;
			tail += rc->size - off;
			break;
		case DECODE_SKIP:
			st->skipped[why < __DECODE_SKIP_MAX ? why : DECODE_SKIP_NONE]++;
			tail += sz;
			break;
		case DECODE_TRUNCATED:
		case DECODE_BAD_SIZE:
		case DECODE_MISALIGNED:
			drop_rest(&tail, head, st);
			break;
		}
	}

publish:
	rc->tail = tail;
	/* Pairs with the producer's acquire load of data_tail: our reads are done. */
	__atomic_store_n(&rc->ctl->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

int ring_parse_cpulist(const char *s, uint8_t *bitmap, uint32_t nbits)
{
	memset(bitmap, 0, (nbits + 7) / 8);
	while (*s && *s != '\n') {
		char *end;
		unsigned long lo, hi;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		lo = strtoul(s, &end, 10);
		hi = lo;
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				return -EINVAL;
			hi = strtoul(s, &end, 10);
		}
		if (hi < lo || hi >= nbits)
			return -EINVAL;
		for (unsigned long c = lo; c <= hi; c++)
			bitmap[c / 8] |= (uint8_t)(1u << (c % 8));
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return 0;
}

/* Which CPU ids are possible; without the sysfs file, try them all. */
static void possible_cpus(uint8_t *bitmap, uint32_t nbits)
{
	char buf[4096];
	FILE *f = fopen(CPU_POSSIBLE, "re");
	bool ok = false;

	if (f) {
		ok = fgets(buf, sizeof(buf), f) && !ring_parse_cpulist(buf, bitmap, nbits);
		fclose(f);
	}
	if (!ok)
		memset(bitmap, 0xff, (nbits + 7) / 8);
}

static int map_cpu(struct ring *r, struct ring_cpu *rc, uint32_t cpu, uint64_t data_size, char *err,
		   size_t errlen)
{
	struct skyprof_ring_ctl *ctl;
	void *p;

	p = mmap(NULL, r->page_size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		 (off_t)(SKYPROF_MMAP_CTL_PGOFF(cpu) * r->page_size));
	if (p == MAP_FAILED) {
		int e = errno;

		if (e == EINVAL)
			return 1; /* not a possible CPU after all: no ring */
		snprintf(err, errlen, "cannot map the control page of cpu %u: %s", cpu,
			 strerror(e));
		return -e;
	}
	ctl = p;
	rc->ctl = ctl;
	rc->cpu = cpu;
	rc->size = data_size;

	/* Read once: the page is shared, the values are checked, then not reread. */
	uint32_t version = __atomic_load_n(&ctl->version, __ATOMIC_RELAXED);
	uint32_t ctl_size = __atomic_load_n(&ctl->ctl_size, __ATOMIC_RELAXED);
	uint64_t size = __atomic_load_n(&ctl->data_size, __ATOMIC_RELAXED);

	if (version != SKYPROF_ABI_VERSION || ctl_size < sizeof(*ctl) || size != data_size) {
		snprintf(err, errlen,
			 "cpu %u ring does not match this skyprof (ABI %u, control %u bytes, "
			 "data %llu bytes; expected ABI %d, %zu, %llu)",
			 cpu, version, ctl_size, (unsigned long long)size, SKYPROF_ABI_VERSION,
			 sizeof(*ctl), (unsigned long long)data_size);
		munmap(p, r->page_size);
		rc->ctl = NULL;
		return -EPROTO;
	}

	p = mmap(NULL, data_size, PROT_READ, MAP_SHARED, r->fd,
		 (off_t)(SKYPROF_MMAP_DATA_PGOFF(cpu) * r->page_size));
	if (p == MAP_FAILED) {
		int e = errno;

		snprintf(err, errlen, "cannot map the data area of cpu %u (%llu bytes): %s", cpu,
			 (unsigned long long)data_size, strerror(e));
		munmap(ctl, r->page_size);
		rc->ctl = NULL;
		return -e;
	}
	rc->data = p;
	/* Start where the control page says; the drain resyncs if that is nonsense. */
	rc->tail = __atomic_load_n(&ctl->data_tail, __ATOMIC_RELAXED) & ~(uint64_t)7;
	rc->mapped = true;
	return 0;
}

static const char *bind_error(int e)
{
	switch (e) {
	case EPERM:
	case EACCES:
		return "permission denied (needs CAP_PERFMON or CAP_SYS_ADMIN)";
	case ENOENT:
	case ESRCH:
		return "the session is gone";
	case EINVAL:
		return "the module refused the session id or token";
	case EBUSY:
		return "the session is already bound to another reader";
	default:
		return strerror(e);
	}
}

int ring_open(struct ring **out, uint32_t session_id, uint64_t token, uint32_t nr_cpu_ids,
	      uint64_t data_size, char *err, size_t errlen)
{
	struct skyprof_bind bind = { .session_id = session_id, .token = token };
	uint8_t *possible = NULL;
	struct ring *r;
	long pg;
	int ret;

	*out = NULL;
	if (!nr_cpu_ids || !data_size || (data_size & (data_size - 1))) {
		snprintf(err, errlen,
			 "the module reported a bad ring geometry (%u cpus, %llu bytes)",
			 nr_cpu_ids, (unsigned long long)data_size);
		return -EPROTO;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		goto nomem;
	r->fd = -1;
	pg = sysconf(_SC_PAGESIZE);
	r->page_size = pg > 0 ? (size_t)pg : 4096;
	r->nr_cpus = nr_cpu_ids;
	r->cpus = calloc(nr_cpu_ids, sizeof(*r->cpus));
	possible = calloc((nr_cpu_ids + 7) / 8, 1);
	if (!r->cpus || !possible)
		goto nomem;

	r->fd = open(DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (r->fd < 0) {
		ret = -errno;
		if (errno == ENOENT)
			snprintf(err, errlen,
				 "%s does not exist: is the module loaded and udev running?",
				 DEVICE_PATH);
		else
			snprintf(err, errlen, "cannot open %s: %s", DEVICE_PATH,
				 errno == EACCES || errno == EPERM ? bind_error(errno)
								   : strerror(errno));
		goto fail;
	}
	if (ioctl(r->fd, SKYPROF_IOC_BIND, &bind) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot bind %s to session %u: %s", DEVICE_PATH, session_id,
			 bind_error(errno));
		goto fail;
	}

	possible_cpus(possible, nr_cpu_ids);
	for (uint32_t cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (!(possible[cpu / 8] & (1u << (cpu % 8))))
			continue;
		ret = map_cpu(r, &r->cpus[cpu], cpu, data_size, err, errlen);
		if (ret < 0)
			goto fail;
		if (ret == 0)
			r->nr_mapped++;
	}
	if (!r->nr_mapped) {
		snprintf(err, errlen, "the session has no ring on any cpu");
		ret = -ENODEV;
		goto fail;
	}
	free(possible);
	*out = r;
	return 0;

nomem:
	snprintf(err, errlen, "out of memory");
	ret = -ENOMEM;
fail:
	free(possible);
	ring_close(r);
	return ret;
}

void ring_close(struct ring *r)
{
	if (!r)
		return;
	for (uint32_t cpu = 0; r->cpus && cpu < r->nr_cpus; cpu++) {
		struct ring_cpu *rc = &r->cpus[cpu];

		if (rc->data)
			munmap((void *)rc->data, rc->size);
		if (rc->ctl)
			munmap(rc->ctl, r->page_size);
	}
	free(r->cpus);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

int ring_fd(const struct ring *r)
{
	return r->fd;
}

int ring_wait(struct ring *r, int timeout_ms)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	int n = poll(&pfd, 1, timeout_ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (n == 0)
		return 0;
	if (pfd.revents & POLLIN)
		return 1;
	if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
		return -EPIPE;
	return 0;
}

int ring_drain(struct ring *r, const struct ring_sink *k)
{
	for (uint32_t cpu = 0; cpu < r->nr_cpus; cpu++) {
		int ret;

		if (!r->cpus[cpu].mapped)
			continue;
		ret = ring_cpu_drain(&r->cpus[cpu], k, &r->stats);
		if (ret)
			return ret;
	}
	return 0;
}

const struct ring_stats *ring_get_stats(const struct ring *r)
{
	return &r->stats;
}

uint64_t ring_lost(const struct ring *r)
{
	uint64_t lost = 0;

	for (uint32_t cpu = 0; cpu < r->nr_cpus; cpu++)
		if (r->cpus[cpu].mapped)
			lost += __atomic_load_n(&r->cpus[cpu].ctl->lost, __ATOMIC_RELAXED);
	return lost;
}

uint32_t ring_nr_mapped(const struct ring *r)
{
	return r->nr_mapped;
}
