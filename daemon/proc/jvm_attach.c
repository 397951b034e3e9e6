// SPDX-License-Identifier: GPL-2.0
/* One attach request to a HotSpot JVM (jvm_attach.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/path.h"
#include "proc/jvm_attach.h"

enum phase {
	P_SOCKET, /* waiting for the socket, then connecting */
	P_SEND,
	P_READ,
	P_DONE,
	P_FAILED,
};

bool jvm_attach_target_of(struct jvm_attach_target *t, const char *proc_root, uint32_t pid,
			  const struct jvm_probe *p)
{
	memset(t, 0, sizeof(*t));
	if (!proc_root)
		proc_root = "/proc";
	t->pid = pid;
	t->nspid = p->nspid;
	t->uid = p->uid;
	t->gid = p->gid;
	t->ident = p->ident;
	t->proc_root = proc_root;
	if (p->own_mntns)
		snprintf(t->tmp_dir, sizeof(t->tmp_dir), "/tmp");
	else if (!path_fmt(t->tmp_dir, sizeof(t->tmp_dir), "%s/%u/root/tmp", proc_root, pid))
		return false;
	return path_fmt(t->cwd_dir, sizeof(t->cwd_dir), "%s/%u/cwd", proc_root, pid);
}

/* Our effective ids while we act as the JVM's user. */
struct creds {
	bool switched;
	uid_t euid;
	gid_t egid;
};

/*
 * This thread's effective uid and gid become t's (a no-op when they are
 * ours already, or when we are not root and so may not switch: the JVM
 * then judges our own). Raw system calls: glibc's wrappers would switch
 * every thread of the process.
 */
static int become(const struct jvm_attach_target *t, struct creds *c)
{
	c->switched = false;
	c->euid = geteuid();
	c->egid = getegid();
	if (c->euid != 0 || (t->uid == c->euid && t->gid == c->egid))
		return 0;
	if (syscall(SYS_setresgid, -1, t->gid, -1))
		return -errno;
	if (syscall(SYS_setresuid, -1, t->uid, -1)) {
		int e = errno;

		if (syscall(SYS_setresgid, -1, c->egid, -1))
			abort();
		return -e;
	}
	c->switched = true;
	return 0;
}

/* Back to our own ids; going on with the JVM's user's would be wrong. */
static void unbecome(const struct creds *c)
{
	int e = errno;

	if (!c->switched)
		return;
	if (syscall(SYS_setresuid, -1, c->euid, -1) || syscall(SYS_setresgid, -1, c->egid, -1)) {
		fprintf(stderr, "skyprof: cannot take back our own credentials: %s\n",
			strerror(errno));
		abort();
	}
	errno = e;
}

static enum jvm_attach_state fail(struct jvm_attach *a, enum jvm_attach_why why, const char *fmt,
				  ...) __attribute__((format(printf, 3, 4)));

static enum jvm_attach_state fail(struct jvm_attach *a, enum jvm_attach_why why, const char *fmt,
				  ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->err, sizeof(a->err), fmt, ap);
	va_end(ap);
	a->why = why;
	a->phase = P_FAILED;
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	return JVM_ATTACH_FAILED;
}

static void remove_trigger(struct jvm_attach *a)
{
	struct creds c;

	if (!a->trigger[0])
		return;
	if (!become(&a->t, &c)) {
		unlink(a->trigger);
		unbecome(&c);
	}
	a->trigger[0] = '\0';
}

/* Is SIGQUIT handled (not ignored) by the process now? */
static bool quit_caught(const struct jvm_attach_target *t)
{
	char path[PATH_MAX], buf[16384];
	struct jvm_probe p = { 0 };
	ssize_t n = -1;
	int fd;

	if (!path_fmt(path, sizeof(path), "%s/%u/status", t->proc_root, t->pid))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	return n > 0 && !jvm_probe_status(buf, (size_t)n, &p) && p.quit_caught;
}

/*
 * SIGQUIT to the JVM, while pid is still the image the target names: a
 * pidfd pins the process before the identity is compared, where the kernel
 * has pidfds (5.3); elsewhere the comparison comes right before kill().
 */
static int send_quit(const struct jvm_attach_target *t)
{
	struct proc_ident now;
	int pfd = -1, r;

#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
	pfd = (int)syscall(SYS_pidfd_open, t->pid, 0);
#endif
	if (ident_read(t->proc_root, t->pid, &now) || !ident_same(&now, &t->ident)) {
		if (pfd >= 0)
			close(pfd);
		return -ESRCH;
	}
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
	if (pfd >= 0) {
		r = (int)syscall(SYS_pidfd_send_signal, pfd, SIGQUIT, NULL, 0);
		r = r ? -errno : 0;
		close(pfd);
		return r;
	}
#endif
	r = kill((pid_t)t->pid, SIGQUIT);
	return r ? -errno : 0;
}

/* The trigger file in dir, created as the JVM's user. 0: made (or there
 * already, someone else's); -errno. */
static int make_trigger(struct jvm_attach *a, const char *dir)
{
	char path[PATH_MAX];
	struct creds c;
	int fd, e;

	if (!dir[0] || !path_fmt(path, sizeof(path), "%s/.attach_pid%u", dir, a->t.nspid))
		return -ENAMETOOLONG;
	e = become(&a->t, &c);
	if (e)
		return e;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	e = fd < 0 ? -errno : 0;
	unbecome(&c);
	if (fd >= 0) {
		close(fd);
		snprintf(a->trigger, sizeof(a->trigger), "%s", path);
	}
	return e == -EEXIST ? 0 : e;
}

/* No socket yet: the trigger file and SIGQUIT, once. */
static enum jvm_attach_state start_listener(struct jvm_attach *a, uint64_t now)
{
	int e;

	if (!quit_caught(&a->t))
		return fail(a, JVM_WHY_NO_HANDLER,
			    "it has no attach socket and no handler for SIGQUIT (yet)");
	e = make_trigger(a, a->t.tmp_dir);
	if (e)
		e = make_trigger(a, a->t.cwd_dir);
	if (e)
		return fail(a, JVM_WHY_IO, "cannot create its .attach_pid%u file: %s", a->t.nspid,
			    strerror(-e));
	e = send_quit(&a->t);
	if (e) {
		remove_trigger(a);
		return fail(a, e == -ESRCH ? JVM_WHY_GONE : JVM_WHY_IO, "cannot signal it: %s",
			    strerror(-e));
	}
	a->signalled = true;
	a->deadline_ns = now + a->t.socket_ns;
	return JVM_ATTACH_PENDING;
}

static enum jvm_attach_state try_connect(struct jvm_attach *a, const char *path, uint64_t now)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct creds c;
	int r, e;

	if (strlen(path) >= sizeof(sa.sun_path))
		return fail(a, JVM_WHY_IO, "socket path too long");
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (a->fd < 0)
		a->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (a->fd < 0)
		return fail(a, JVM_WHY_IO, "socket: %s", strerror(errno));
	e = become(&a->t, &c);
	if (e)
		return fail(a, JVM_WHY_IO, "cannot take uid %u gid %u: %s", a->t.uid, a->t.gid,
			    strerror(-e));
	r = connect(a->fd, (struct sockaddr *)&sa, sizeof(sa));
	e = r ? errno : 0;
	unbecome(&c);
	if (e == EAGAIN) {
		/* its backlog is full: another client; try again */
		if (!a->deadline_ns)
			a->deadline_ns = now + a->t.socket_ns;
		return JVM_ATTACH_PENDING;
	}
	if (e)
		return fail(a, JVM_WHY_CONNECT, "connect to %s: %s", path, strerror(e));
	remove_trigger(a);
	a->phase = P_SEND;
	a->deadline_ns = now + a->t.answer_ns;
	return JVM_ATTACH_PENDING;
}

static enum jvm_attach_state step_socket(struct jvm_attach *a, uint64_t now)
{
	char path[PATH_MAX];
	struct stat st;

	if (!path_fmt(path, sizeof(path), "%s/.java_pid%u", a->t.tmp_dir, a->t.nspid))
		return fail(a, JVM_WHY_IO, "socket path too long");
	if (lstat(path, &st)) {
		if (errno != ENOENT)
			return fail(a, JVM_WHY_IO, "%s: %s", path, strerror(errno));
		if (!a->signalled)
			return start_listener(a, now);
		if (now >= a->deadline_ns) {
			remove_trigger(a);
			return fail(a, JVM_WHY_NO_SOCKET,
				    "no attach socket %.0f s after SIGQUIT (attach mechanism "
				    "disabled, its /tmp not writable, or not HotSpot)",
				    (double)a->t.socket_ns / 1e9);
		}
		return JVM_ATTACH_PENDING;
	}
	if (!S_ISSOCK(st.st_mode) || st.st_uid != a->t.uid)
		return fail(a, JVM_WHY_BAD_SOCKET,
			    "%s is not a socket of its user's (uid %u, not %u)", path,
			    (unsigned int)st.st_uid, a->t.uid);
	if (a->deadline_ns && now >= a->deadline_ns)
		return fail(a, JVM_WHY_CONNECT, "its attach socket takes no connection");
	return try_connect(a, path, now);
}

static enum jvm_attach_state step_send(struct jvm_attach *a)
{
	while (a->req_off < a->req_len) {
		ssize_t n =
			send(a->fd, a->request + a->req_off, a->req_len - a->req_off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return JVM_ATTACH_PENDING;
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			return fail(a, JVM_WHY_CLOSED,
				    "it closed the connection: it takes requests of its own "
				    "user (uid %u) only",
				    a->t.uid);
		if (n < 0)
			return fail(a, JVM_WHY_IO, "send: %s", strerror(errno));
		a->req_off += (size_t)n;
	}
	a->phase = P_READ;
	return JVM_ATTACH_PENDING;
}

static enum jvm_attach_state step_read(struct jvm_attach *a)
{
	for (;;) {
		ssize_t n;

		if (a->answer_cap - a->answer_len < 4096) {
			size_t cap = a->answer_cap ? a->answer_cap * 2 : 16384;
			char *b;

			if (cap > JVM_ATTACH_ANSWER_MAX)
				return fail(a, JVM_WHY_IO, "answer larger than %u MiB",
					    JVM_ATTACH_ANSWER_MAX >> 20);
			b = realloc(a->answer, cap);
			if (!b)
				return fail(a, JVM_WHY_IO, "out of memory");
			a->answer = b;
			a->answer_cap = cap;
		}
		/* one byte kept for a NUL, for whoever prints it */
		n = read(a->fd, a->answer + a->answer_len, a->answer_cap - a->answer_len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return JVM_ATTACH_PENDING;
		if (n < 0 && errno != ECONNRESET)
			return fail(a, JVM_WHY_IO, "read: %s", strerror(errno));
		if (n <= 0)
			break;
		a->answer_len += (size_t)n;
	}
	a->answer[a->answer_len] = '\0';
	if (!a->answer_len)
		return fail(a, JVM_WHY_CLOSED,
			    "it closed the connection without an answer: it takes requests of "
			    "its own user (uid %u) only",
			    a->t.uid);
	close(a->fd);
	a->fd = -1;
	a->phase = P_DONE;
	return JVM_ATTACH_DONE;
}

enum jvm_attach_state jvm_attach_step(struct jvm_attach *a, uint64_t now)
{
	enum jvm_attach_state s;

	switch (a->phase) {
	case P_DONE:
		return JVM_ATTACH_DONE;
	case P_FAILED:
		return JVM_ATTACH_FAILED;
	case P_SOCKET:
		s = step_socket(a, now);
		if (s != JVM_ATTACH_PENDING || a->phase == P_SOCKET)
			return s;
		/* connected: the request goes out at once */
		/* fallthrough */
	case P_SEND:
		s = step_send(a);
		if (s != JVM_ATTACH_PENDING || a->phase == P_SEND)
			break;
		/* fallthrough */
	default:
		s = step_read(a);
		break;
	}
	if (s == JVM_ATTACH_PENDING && now >= a->deadline_ns)
		return fail(a, JVM_WHY_TIMEOUT, "no answer within %.0f s",
			    (double)a->t.answer_ns / 1e9);
	return s;
}

enum jvm_attach_state jvm_attach_begin(struct jvm_attach *a, const struct jvm_attach_target *t,
				       const char *command, uint64_t now)
{
	static const char head[] = "1\0jcmd";
	size_t cl = strlen(command);

	memset(a, 0, sizeof(*a));
	a->t = *t;
	a->fd = -1;
	if (!a->t.socket_ns)
		a->t.socket_ns = JVM_ATTACH_SOCKET_NS;
	if (!a->t.answer_ns)
		a->t.answer_ns = JVM_ATTACH_ANSWER_NS;
	if (!a->t.proc_root)
		a->t.proc_root = "/proc";
	/* "1" NUL "jcmd" NUL command NUL, then two empty arguments */
	if (sizeof(head) + cl + 3 > sizeof(a->request))
		return fail(a, JVM_WHY_IO, "command too long");
	memcpy(a->request, head, sizeof(head));
	memcpy(a->request + sizeof(head), command, cl + 1);
	a->req_len = sizeof(head) + cl + 1 + 2;
	a->phase = P_SOCKET;
	return jvm_attach_step(a, now);
}

enum jvm_attach_state jvm_attach_wait(struct jvm_attach *a)
{
	enum jvm_attach_state s;

	while ((s = jvm_attach_step(a, clock_mono_ns())) == JVM_ATTACH_PENDING) {
		if (a->fd >= 0 && a->phase != P_SOCKET) {
			struct pollfd p = { .fd = a->fd,
					    .events = a->phase == P_SEND ? POLLOUT : POLLIN };

			poll(&p, 1, 20);
		} else {
			struct timespec ts = { 0, 10000000 };

			nanosleep(&ts, NULL);
		}
	}
	return s;
}

void jvm_attach_end(struct jvm_attach *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	remove_trigger(a);
	free(a->answer);
	a->answer = NULL;
	a->answer_len = a->answer_cap = 0;
}
