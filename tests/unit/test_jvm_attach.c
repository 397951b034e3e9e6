// SPDX-License-Identifier: GPL-2.0
/*
 * Asking a JVM over HotSpot's attach mechanism, against a fake JVM: a child
 * process that does what HotSpot does (on SIGQUIT, if the trigger file is
 * there, it listens on .java_pid<NSPID>; it answers one request per
 * connection, as JDK 17, JDK 11 or JDK 8 would, or not at all), in a
 * directory standing for its /tmp, named by a pid of its own namespace.
 *
 * proc/jvm_attach: the request on the wire, the trigger file made and
 * removed, one SIGQUIT and none once the socket is there, the peer's
 * credentials the JVM's user's (when run as root), and each failure: no
 * handler (never signalled: SIGQUIT would kill it), no socket in time, the
 * connection closed, no answer in time, a pid that is another image now,
 * a socket of another user. proc/jvm_ask, with a fake /proc naming the child
 * a JVM: asked and asked again at the end, JDK 11's Compiler.codelist
 * instead, JDK 8 given up on with one line, a JVM with
 * -XX:+DisableAttachMechanism and a process that is no JVM never signalled,
 * a launcher that loads libjvm.so late and a process that execs java.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/clock.h"
#include "proc/ident.h"
#include "proc/jvm_ask.h"
#include "proc/jvm_attach.h"
#include "scratch_dir.h"

#define NSPID	  4242
#define OTHER_UID 65534 /* the JVM's user when we are root */
#define UNKNOWN	  "-1\njava.lang.IllegalArgumentException: Unknown diagnostic command\n"
#define CODELIST_2                                                                                 \
	"0\n12 1 0 Hot.hotA(J)J [0x7f0000001000, 0x7f0000001100 - 0x7f0000001200]\n"               \
	"13 1 0 Hot.hotB(J)J [0x7f0000002000, 0x7f0000002100 - 0x7f0000002180]\n"

enum mode {
	M_JDK17,     /* Compiler.perfmap writes the map */
	M_JDK11,     /* no Compiler.perfmap; Compiler.codelist */
	M_JDK8,	     /* neither */
	M_SILENT,    /* reads the request, never answers */
	M_CLOSE,     /* closes each connection at once */
	M_NO_SOCKET, /* handles SIGQUIT, never listens */
	M_NO_HANDLER /* SIGQUIT not handled: it would die of it */
};

struct fake {
	pid_t pid;
	int ctl; /* closing it ends the child */
	char tmp[200];
};

static volatile sig_atomic_t quits;

static void on_quit(int sig)
{
	(void)sig;
	quits++;
}

static void put(const char *path, const char *buf, size_t len, bool append)
{
	int fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);

	if (fd >= 0) {
		if (write(fd, buf, len) < 0)
			_exit(3);
		close(fd);
	}
}

static int listen_at(const char *tmpdir, uid_t uid)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/.java_pid%d", tmpdir, NSPID);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 5))
		_exit(4);
	chmod(sa.sun_path, 0600);
	if (lchown(sa.sun_path, uid, (gid_t)-1))
		_exit(5);
	return fd;
}

/* One connection, as the mode answers it. */
static void serve(int c, const char *tmpdir, enum mode m)
{
	char req[512], path[512], peer[32], *cmd;
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	size_t n = 0;
	int nuls = 0;

	if (!getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl)) {
		snprintf(path, sizeof(path), "%s/peer", tmpdir);
		snprintf(peer, sizeof(peer), "%u", (unsigned int)cr.uid);
		put(path, peer, strlen(peer), false);
	}
	if (m == M_CLOSE) {
		close(c);
		return;
	}
	while (nuls < 5 && n < sizeof(req)) {
		ssize_t r = read(c, req + n, sizeof(req) - n);

		if (r <= 0)
			break;
		for (ssize_t i = 0; i < r; i++)
			nuls += !req[n + (size_t)i];
		n += (size_t)r;
	}
	snprintf(path, sizeof(path), "%s/req", tmpdir);
	put(path, req, n, true);
	cmd = n > 7 ? req + 7 : (char *)""; /* after "1\0jcmd\0" */
	if (m == M_SILENT) {
		sleep(2);
	} else if (m == M_JDK17 && !strcmp(cmd, "Compiler.perfmap")) {
		static const char map[] = "7f0000001000 100 long Hot.hotA(long)\n";

		snprintf(path, sizeof(path), "%s/perf-%d.map", tmpdir, NSPID);
		put(path, map, sizeof(map) - 1, false);
		if (write(c, "0\n", 2) < 0)
			_exit(6);
	} else if (m == M_JDK11 && !strcmp(cmd, "Compiler.codelist")) {
		if (write(c, CODELIST_2, sizeof(CODELIST_2) - 1) < 0)
			_exit(6);
	} else if (write(c, UNKNOWN, sizeof(UNKNOWN) - 1) < 0) {
		_exit(6);
	}
	close(c);
}

static void fake_main(int ctl, int ready, const char *tmpdir, enum mode m, uid_t sock_uid)
{
	struct sigaction sa = { .sa_handler = on_quit };
	int lfd = -1, seen = 0;
	char trig[512], path[512];

	if (m != M_NO_HANDLER)
		sigaction(SIGQUIT, &sa, NULL);
	else
		signal(SIGQUIT, SIG_DFL);
	if (write(ready, "r", 1) != 1)
		_exit(2);
	close(ready);
	snprintf(trig, sizeof(trig), "%s/.attach_pid%d", tmpdir, NSPID);
	snprintf(path, sizeof(path), "%s/quits", tmpdir);
	for (;;) {
		struct pollfd p[2] = { { .fd = ctl, .events = POLLIN },
				       { .fd = lfd, .events = POLLIN } };

		poll(p, lfd >= 0 ? 2 : 1, 20);
		if (p[0].revents)
			_exit(0);
		if (quits != seen) {
			char n[16];

			seen = quits;
			snprintf(n, sizeof(n), "%d", seen);
			put(path, n, strlen(n), false);
			if (m != M_NO_SOCKET && lfd < 0 && !access(trig, F_OK))
				lfd = listen_at(tmpdir, sock_uid);
		}
		if (lfd >= 0 && (p[1].revents & POLLIN)) {
			int c = accept(lfd, NULL, NULL);

			if (c >= 0)
				serve(c, tmpdir, m);
		}
	}
}

static uid_t jvm_uid(void)
{
	return geteuid() == 0 ? OTHER_UID : geteuid();
}

/* A fake JVM whose /tmp is tmpdir (made, writable by its user). */
static void fake_start(struct fake *f, const char *tmpdir, enum mode m, uid_t sock_uid)
{
	int ctl[2], ready[2];
	char c;

	snprintf(f->tmp, sizeof(f->tmp), "%s", tmpdir);
	mkdir(tmpdir, 01777);
	chmod(tmpdir, 01777);
	assert_int_equal(pipe(ctl), 0);
	assert_int_equal(pipe(ready), 0);
	f->pid = fork();
	assert_true(f->pid >= 0);
	if (!f->pid) {
		close(ctl[1]);
		close(ready[0]);
		fake_main(ctl[0], ready[1], tmpdir, m, sock_uid);
	}
	close(ctl[0]);
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	f->ctl = ctl[1];
}

/* Ends the child; true if it was still running (no signal had killed it). */
static bool fake_stop(struct fake *f)
{
	int st;
	bool alive = waitpid(f->pid, &st, WNOHANG) == 0;

	close(f->ctl);
	if (alive)
		waitpid(f->pid, &st, 0);
	return alive;
}

static int fake_file_int(const struct fake *f, const char *name)
{
	char path[512], buf[32] = "";
	int fd, n;

	snprintf(path, sizeof(path), "%s/%s", f->tmp, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : 0;
}

static bool trigger_left(const struct fake *f)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/.attach_pid%d", f->tmp, NSPID);
	return !access(path, F_OK);
}

static void target_of(struct jvm_attach_target *t, const struct fake *f)
{
	memset(t, 0, sizeof(*t));
	t->pid = (uint32_t)f->pid;
	t->nspid = NSPID;
	t->uid = (uint32_t)jvm_uid();
	t->gid = (uint32_t)(geteuid() == 0 ? 65534 : getegid());
	assert_int_equal(ident_read(NULL, t->pid, &t->ident), 0);
	snprintf(t->tmp_dir, sizeof(t->tmp_dir), "%s", f->tmp);
	t->socket_ns = 2000000000ull;
	t->answer_ns = 2000000000ull;
}

static enum jvm_attach_state ask(struct jvm_attach *a, const struct jvm_attach_target *t,
				 const char *cmd)
{
	enum jvm_attach_state s = jvm_attach_begin(a, t, cmd, clock_mono_ns());

	return s == JVM_ATTACH_PENDING ? jvm_attach_wait(a) : s;
}

static void attach_jdk17(void **state)
{
	static const char want[] = "1\0jcmd\0Compiler.perfmap\0\0\0";
	struct jvm_attach_target t;
	struct jvm_attach a;
	struct fake f;
	char *req;

	(void)state;
	fake_start(&f, tmp("t17"), M_JDK17, jvm_uid());
	target_of(&t, &f);
	assert_int_equal(ask(&a, &t, "Compiler.perfmap"), JVM_ATTACH_DONE);
	assert_int_equal(a.answer_len, 2);
	assert_memory_equal(a.answer, "0\n", 2);
	jvm_attach_end(&a);
	assert_int_equal(geteuid(), geteuid() == 0 ? 0 : geteuid());
	assert_int_equal(fake_file_int(&f, "quits"), 1);
	assert_int_equal(fake_file_int(&f, "peer"), (int)jvm_uid());
	assert_false(trigger_left(&f));
	req = slurp(tmp("t17/req"));
	assert_memory_equal(req, want, sizeof(want) - 1);
	free(req);
	/* the socket is there now: no second signal */
	assert_int_equal(ask(&a, &t, "Compiler.perfmap"), JVM_ATTACH_DONE);
	jvm_attach_end(&a);
	assert_int_equal(fake_file_int(&f, "quits"), 1);
	assert_true(fake_stop(&f));
}

static void attach_failures(void **state)
{
	struct jvm_attach_target t;
	struct jvm_attach a;
	struct fake f;

	(void)state;
	/* no handler for SIGQUIT: never sent, the process lives */
	fake_start(&f, tmp("nohandler"), M_NO_HANDLER, jvm_uid());
	target_of(&t, &f);
	assert_int_equal(ask(&a, &t, "Compiler.perfmap"), JVM_ATTACH_FAILED);
	assert_int_equal(a.why, JVM_WHY_NO_HANDLER);
	jvm_attach_end(&a);
	assert_false(trigger_left(&f));
	assert_true(fake_stop(&f));

	/* signalled, never listens: given up after socket_ns */
	fake_start(&f, tmp("nosock"), M_NO_SOCKET, jvm_uid());
	target_of(&t, &f);
	t.socket_ns = 300000000ull;
	assert_int_equal(ask(&a, &t, "Compiler.perfmap"), JVM_ATTACH_FAILED);
	assert_int_equal(a.why, JVM_WHY_NO_SOCKET);
	jvm_attach_end(&a);
	assert_false(trigger_left(&f));
	assert_int_equal(fake_file_int(&f, "quits"), 1);
	assert_true(fake_stop(&f));

	/* the pid is another image than the one asked for: not signalled */
	fake_start(&f, tmp("other"), M_JDK17, jvm_uid());
	target_of(&t, &f);
	t.ident.start_time++;
	assert_int_equal(ask(&a, &t, "Compiler.perfmap"), JVM_ATTACH_FAILED);
	assert_int_equal(a.why, JVM_WHY_GONE);
	jvm_attach_end(&a);
	assert_int_equal(fake_file_int(&f, "quits"), 0);
	assert_false(trigger_left(&f));
	assert_true(fake_stop(&f));

	/* closes the connection: it refused us */
	fake_start(&f, tmp("close"), M_CLOSE, jvm_uid());
	target_of(&t, &f);
	assert_int_equal(ask(&a, &t, "Compiler.perfmap"), JVM_ATTACH_FAILED);
	assert_int_equal(a.why, JVM_WHY_CLOSED);
	jvm_attach_end(&a);
	assert_true(fake_stop(&f));

	/* takes the request, never answers */
	fake_start(&f, tmp("silent"), M_SILENT, jvm_uid());
	target_of(&t, &f);
	t.answer_ns = 300000000ull;
	assert_int_equal(ask(&a, &t, "Compiler.perfmap"), JVM_ATTACH_FAILED);
	assert_int_equal(a.why, JVM_WHY_TIMEOUT);
	jvm_attach_end(&a);
	assert_true(fake_stop(&f));

	/* a socket another user made is not the JVM's (as root only) */
	if (geteuid() == 0) {
		fake_start(&f, tmp("badsock"), M_JDK17, 12345);
		target_of(&t, &f);
		assert_int_equal(ask(&a, &t, "Compiler.perfmap"), JVM_ATTACH_FAILED);
		assert_int_equal(a.why, JVM_WHY_BAD_SOCKET);
		jvm_attach_end(&a);
		assert_true(fake_stop(&f));
	}
}

/* A fake /proc entry for f naming it a JVM (libjvm mapped) or not. */
static void fake_proc(const struct fake *f, const char *proc, const char *root, bool jvm,
		      bool handler, const char *cmdline, size_t cmd_len)
{
	char d[300], path[512], buf[1024];
	int fd;
	ssize_t n;

	snprintf(d, sizeof(d), "%s/%d", proc, (int)f->pid);
	mkdir(proc, 0755);
	mkdir(d, 0755);
	snprintf(path, sizeof(path), "%s/fd", d);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/root", d);
	assert_int_equal(symlink(root, path), 0);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)f->pid);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	assert_true(n > 0);
	snprintf(path, sizeof(path), "%s/stat", d);
	put(path, buf, (size_t)n, false);
	n = snprintf(buf, sizeof(buf),
		     "Name:\tjava\nUid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nNSpid:\t%d\t%d\n"
		     "SigIgn:\t0000000000000000\nSigCgt:\t%016x\n",
		     jvm_uid(), jvm_uid(), jvm_uid(), jvm_uid(), 65534u, 65534u, 65534u, 65534u,
		     (int)f->pid, NSPID, handler ? 4 : 0);
	if (geteuid() != 0)
		n = snprintf(buf, sizeof(buf),
			     "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nNSpid:\t%d\t%d\n"
			     "SigIgn:\t0\nSigCgt:\t%x\n",
			     geteuid(), geteuid(), geteuid(), geteuid(), getegid(), getegid(),
			     getegid(), getegid(), (int)f->pid, NSPID, handler ? 4 : 0);
	snprintf(path, sizeof(path), "%s/status", d);
	put(path, buf, (size_t)n, false);
	n = snprintf(buf, sizeof(buf),
		     "7f0000000000-7f0000100000 r-xp 00000000 08:01 1234 %s\n"
		     "7f0000200000-7f0000300000 rwxp 00000000 00:00 0 \n",
		     jvm ? "/usr/lib/jvm/java-17/lib/server/libjvm.so" : "/usr/bin/java-lookalike");
	snprintf(path, sizeof(path), "%s/maps", d);
	put(path, buf, (size_t)n, false);
	snprintf(path, sizeof(path), "%s/cmdline", d);
	put(path, cmdline, cmd_len, false);
	snprintf(path, sizeof(path), "%s/environ", d);
	put(path, "HOME=/\0", 7, false);
	snprintf(path, sizeof(path), "%s/comm", d);
	put(path, "java\n", 5, false);
}

struct heard {
	int lines, answers;
	size_t methods;
	char last[512];
	char method0[96];
};

static void on_say(void *arg, const char *line)
{
	struct heard *h = arg;

	h->lines++;
	snprintf(h->last, sizeof(h->last), "%s", line);
}

static void on_answer(void *arg, uint32_t pid, const struct jvm_method *m, size_t n)
{
	struct heard *h = arg;

	(void)pid;
	h->answers++;
	h->methods = n;
	if (n)
		snprintf(h->method0, sizeof(h->method0), "%s", m[0].name);
}

/* Polls j until cond holds or 5 s have passed. */
#define POLL_UNTIL(j, cond)                                                                        \
	do {                                                                                       \
		for (int i_ = 0; i_ < 500 && !(cond); i_++) {                                      \
			jvm_ask_poll(j, UINT64_MAX);                                               \
			usleep(10000);                                                             \
		}                                                                                  \
	} while (0)

/* A fake JVM in a fake /proc, its /tmp under the fake root. */
static struct jvm_ask *ask_start(struct fake *f, const char *name, enum mode m, bool jvm,
				 const char *cmdline, size_t cl, struct heard *h)
{
	struct jvm_ask_hooks hooks = { .arg = h, .say = on_say, .answered = on_answer };
	char proc[160], root[170], tmpdir[180];
	struct jvm_ask *j;
	pid_t pid;

	/* its root directory (PID/root in the fake /proc links to it) holds
	 * its /tmp; the fake /proc entry is named by the child's pid */
	snprintf(proc, sizeof(proc), "%s", tmp(name));
	snprintf(root, sizeof(root), "%s-root", proc);
	mkdir(root, 0755);
	snprintf(tmpdir, sizeof(tmpdir), "%s/tmp", root);
	fake_start(f, tmpdir, m, jvm_uid());
	pid = f->pid;
	fake_proc(f, proc, root, jvm, m != M_NO_HANDLER, cmdline, cl);
	memset(h, 0, sizeof(*h));
	j = jvm_ask_new(proc, &hooks);
	assert_non_null(j);
	assert_int_equal(jvm_ask_add(j, (uint32_t)pid, 0), 0);
	assert_int_equal(jvm_ask_add(j, (uint32_t)pid, 0), 0);
	return j;
}

#define CMDLINE(s) s, sizeof(s) - 1

static void ask_jdk17(void **state)
{
	struct jvm_ask_result r;
	struct heard h;
	struct fake f;
	struct jvm_ask *j;

	(void)state;
	j = ask_start(&f, "p17", M_JDK17, true, CMDLINE("java\0-cp\0.\0Hot\0"), &h);
	POLL_UNTIL(j, h.answers > 0);

	assert_int_equal(h.answers, 1);
	assert_int_equal(h.methods, 0);
	assert_non_null(strstr(h.last, "perf map written on request"));
	assert_true(jvm_ask_result(j, (uint32_t)f.pid, &r));
	assert_true(r.answered);
	assert_int_equal(r.preserve_fp, JVM_FLAG_UNSET);
	/* a newer generation of the same image (a caller's view of its exit) */
	assert_int_equal(jvm_ask_add(j, (uint32_t)f.pid, 3), 0);
	assert_true(jvm_ask_result(j, (uint32_t)f.pid, &r));
	assert_true(r.answered);
	/* the end: asked once more, then how often it was */
	usleep(1100000);
	jvm_ask_finish(j, true);
	assert_int_equal(h.answers, 2);
	assert_non_null(strstr(h.last, "asked for 2 times"));
	assert_int_equal(fake_file_int(&f, "quits"), 1);
	jvm_ask_free(j);
	assert_true(fake_stop(&f));
}

static void ask_older_jdks(void **state)
{
	struct jvm_ask_result r;
	struct heard h;
	struct fake f;
	struct jvm_ask *j;

	(void)state;
	/* JDK 11: Compiler.codelist's methods, named as JDK 17 names them */
	j = ask_start(&f, "p11", M_JDK11, true, CMDLINE("java\0Hot\0"), &h);
	POLL_UNTIL(j, h.answers > 0);
	assert_int_equal(h.answers, 1);
	assert_int_equal(h.methods, 2);
	assert_string_equal(h.method0, "long Hot.hotA(long)");
	assert_non_null(strstr(h.last, "Compiler.codelist"));
	jvm_ask_finish(j, false);
	jvm_ask_free(j);
	assert_true(fake_stop(&f));

	/* JDK 8: neither; one line, not asked again */
	j = ask_start(&f, "p8", M_JDK8, true, CMDLINE("java\0Hot\0"), &h);
	POLL_UNTIL(j, h.lines > 0);
	assert_int_equal(h.lines, 1);
	assert_non_null(strstr(h.last, "neither Compiler.perfmap"));
	assert_true(jvm_ask_result(j, (uint32_t)f.pid, &r));
	assert_false(r.answered);
	assert_non_null(strstr(r.why, "JDK 8"));
	jvm_ask_finish(j, true);
	assert_int_equal(h.lines, 1);
	jvm_ask_free(j);
	assert_true(fake_stop(&f));
}

static void ask_never_signals(void **state)
{
	struct jvm_ask_result r;
	struct heard h;
	struct fake f;
	struct jvm_ask *j;

	(void)state;
	/* -XX:+DisableAttachMechanism: a line, no signal (it would print a
	 * thread dump), whatever comes after the main class */
	j = ask_start(
		&f, "pdis", M_JDK17, true,
		CMDLINE("java\0-XX:+DisableAttachMechanism\0Hot\0-XX:-DisableAttachMechanism"), &h);
	POLL_UNTIL(j, h.lines > 0);
	assert_int_equal(h.lines, 1);
	assert_non_null(strstr(h.last, "-XX:+DisableAttachMechanism"));
	assert_true(jvm_ask_result(j, (uint32_t)f.pid, &r));
	assert_false(r.answered);
	jvm_ask_finish(j, true);
	assert_int_equal(fake_file_int(&f, "quits"), 0);
	jvm_ask_free(j);
	assert_true(fake_stop(&f));

	/* a process called java that maps no libjvm.so: nothing at all */
	j = ask_start(&f, "pnot", M_JDK17, false, CMDLINE("java\0"), &h);
	for (int i = 0; i < 20; i++) {
		jvm_ask_poll(j, UINT64_MAX);
		usleep(10000);
	}
	jvm_ask_finish(j, true);
	assert_int_equal(h.lines, 0);
	assert_false(jvm_ask_result(j, (uint32_t)f.pid, &r));
	assert_int_equal(fake_file_int(&f, "quits"), 0);
	jvm_ask_free(j);
	assert_true(fake_stop(&f));
}

/* The scratch directory, open to the fake JVMs' user. */
static int setup(void **state)
{
	return scratch_setup(state) || chmod(dir, 0755);
}

/* The fake /proc exe link of pid, to path. */
static void fake_exe(const char *proc, pid_t pid, const char *path)
{
	char link[512];

	snprintf(link, sizeof(link), "%s/%d/exe", proc, (int)pid);
	unlink(link);
	assert_int_equal(symlink(path, link), 0);
}

/* Rewrites the fake /proc maps of pid: libjvm.so mapped, or only libjli.so. */
static void fake_maps(const char *proc, pid_t pid, const char *lib)
{
	char path[512], buf[256];
	int n;

	n = snprintf(buf, sizeof(buf), "7f0000000000-7f0000100000 r-xp 00000000 08:01 1234 %s\n",
		     lib);
	snprintf(path, sizeof(path), "%s/%d/maps", proc, (int)pid);
	put(path, buf, (size_t)n, false);
}

/*
 * A JVM met before it is one: the java launcher before it has loaded
 * libjvm.so is looked at again until it has; a process met as another
 * image (the fork of `record -- CMD`, a shell that execs java) is probed
 * anew when it comes back as a newer generation.
 */
static void ask_late_jvm(void **state)
{
	struct heard h;
	struct fake f;
	struct jvm_ask *j;

	(void)state;
	j = ask_start(&f, "plate", M_JDK17, false, CMDLINE("java\0Hot\0"), &h);
	fake_maps(tmp("plate"), f.pid, "/usr/lib/jvm/java-17/lib/libjli.so");
	for (int i = 0; i < 10; i++) {
		jvm_ask_poll(j, UINT64_MAX);
		usleep(10000);
	}
	assert_int_equal(h.answers, 0);
	fake_maps(tmp("plate"), f.pid, "/usr/lib/jvm/java-17/lib/server/libjvm.so");
	POLL_UNTIL(j, h.answers > 0);
	assert_int_equal(h.answers, 1);
	jvm_ask_finish(j, false);
	jvm_ask_free(j);
	assert_true(fake_stop(&f));

	j = ask_start(&f, "pexec", M_JDK17, false, CMDLINE("sh\0"), &h);
	fake_exe(tmp("pexec"), f.pid, "/bin/sh");
	fake_maps(tmp("pexec"), f.pid, "/usr/bin/dash");
	for (int i = 0; i < 10; i++) {
		jvm_ask_poll(j, UINT64_MAX);
		usleep(10000);
	}
	fake_maps(tmp("pexec"), f.pid, "/usr/lib/jvm/java-17/lib/server/libjvm.so");
	jvm_ask_add(j, (uint32_t)f.pid, 0); /* the same image: nothing new */
	for (int i = 0; i < 30; i++) {
		jvm_ask_poll(j, UINT64_MAX);
		usleep(10000);
	}
	assert_int_equal(h.answers, 0);
	fake_exe(tmp("pexec"), f.pid, "/bin/cat");
	jvm_ask_add(j, (uint32_t)f.pid, 1); /* it exec'd */
	POLL_UNTIL(j, h.answers > 0);
	assert_int_equal(h.answers, 1);
	jvm_ask_finish(j, false);
	jvm_ask_free(j);
	assert_true(fake_stop(&f));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(attach_jdk17),	     cmocka_unit_test(attach_failures),
		cmocka_unit_test(ask_jdk17),	     cmocka_unit_test(ask_older_jdks),
		cmocka_unit_test(ask_never_signals), cmocka_unit_test(ask_late_jvm),
	};

	return cmocka_run_group_tests(tests, setup, scratch_teardown);
}
