// SPDX-License-Identifier: GPL-2.0
/*
 * What a JVM says and what /proc says of it, parsed: the attach answer's
 * result line and first line, Compiler.codelist's lines (JDK 11's and JDK
 * 9's forms, and lines that are not of either), descriptors turned into the
 * names Compiler.perfmap writes, and the status fields, -XX flags and
 * libraries that tell a HotSpot JVM and how to ask it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "proc/jvm_probe.h"
#include "proc/jvm_reply.h"

static void result_line(void **state)
{
	static const char fail[] = "-1\njava.lang.IllegalArgumentException: Unknown diagnostic "
				   "command\n";
	struct jvm_reply r;
	char line[64];

	(void)state;
	assert_int_equal(jvm_reply_parse("0\n", 2, &r), 0);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.len, 0);
	jvm_reply_first_line(&r, line, sizeof(line));
	assert_string_equal(line, "");
	assert_int_equal(jvm_reply_parse(fail, sizeof(fail) - 1, &r), 0);
	assert_int_equal(r.status, -1);
	jvm_reply_first_line(&r, line, sizeof(line));
	assert_string_equal(line, "java.lang.IllegalArgumentException: Unknown diagnostic command");
	jvm_reply_first_line(&r, line, 17);
	assert_string_equal(line, "java.lang.Illega");
	assert_int_equal(jvm_reply_parse("101\n", 4, &r), 0);
	assert_int_equal(r.status, JVM_REPLY_BAD_VERSION);
	/* not an answer: no number, no newline, too many digits, an empty buffer */
	assert_int_equal(jvm_reply_parse("ok\n", 3, &r), -EINVAL);
	assert_int_equal(jvm_reply_parse("0", 1, &r), -EINVAL);
	assert_int_equal(jvm_reply_parse("12345678901\n", 12, &r), -EINVAL);
	assert_int_equal(jvm_reply_parse("-\n", 2, &r), -EINVAL);
	assert_int_equal(jvm_reply_parse("", 0, &r), -EINVAL);
	/* a message is printable and cut: control bytes become '?' */
	assert_int_equal(jvm_reply_parse("-1\n\n\r\n  bad\x01\xff"
					 "end\nmore",
					 21, &r),
			 0);
	jvm_reply_first_line(&r, line, 8);
	assert_string_equal(line, "bad??en");
}

static void method_names(void **state)
{
	char out[256];

	(void)state;
	assert_true(jvm_reply_method_name("Hot.hotA(J)J", 12, out, sizeof(out)) > 0);
	assert_string_equal(out, "long Hot.hotA(long)");
	jvm_reply_method_name("java.lang.Object.hashCode()I", 28, out, sizeof(out));
	assert_string_equal(out, "int java.lang.Object.hashCode()");
	jvm_reply_method_name("a.B$C.m([[Ljava/lang/String;IZ[B)V", 34, out, sizeof(out));
	assert_string_equal(out, "void a.B$C.m(java.lang.String[][], int, boolean, byte[])");
	jvm_reply_method_name("X.y(Ljava/util/List;)[Ljava/lang/Object;", 40, out, sizeof(out));
	assert_string_equal(out, "java.lang.Object[] X.y(java.util.List)");
	/* not a descriptor: the name stays as it came */
	assert_int_equal(jvm_reply_method_name("noparen", 7, out, sizeof(out)), -EINVAL);
	assert_string_equal(out, "noparen");
	assert_int_equal(jvm_reply_method_name("x.y(Q)V", 7, out, sizeof(out)), -EINVAL);
	assert_string_equal(out, "x.y(Q)V");
	assert_int_equal(jvm_reply_method_name("x.y(V)V", 7, out, sizeof(out)), -EINVAL);
	assert_int_equal(jvm_reply_method_name("x.y(I", 5, out, sizeof(out)), -EINVAL);
	assert_int_equal(jvm_reply_method_name("x.y(L;)V", 8, out, sizeof(out)), -EINVAL);
	assert_int_equal(jvm_reply_method_name("x.y()VV", 7, out, sizeof(out)), -EINVAL);
	assert_int_equal(jvm_reply_method_name("(I)V", 4, out, sizeof(out)), -EINVAL);
	/* a small buffer holds what fits */
	assert_true(jvm_reply_method_name("Hot.hotA(J)J", 12, out, 8) > 0);
	assert_string_equal(out, "long Ho");
}

struct got {
	int n;
	uint64_t start[4], end[4];
	char name[4][96];
	int fail_at; /* 1-based: that call fails */
};

static int take(void *arg, const struct jvm_method *m)
{
	struct got *g = arg;

	if (g->fail_at && g->n + 1 == g->fail_at)
		return -ENOMEM;
	if (g->n < 4) {
		g->start[g->n] = m->start;
		g->end[g->n] = m->end;
		snprintf(g->name[g->n], sizeof(g->name[0]), "%s", m->name);
	}
	g->n++;
	return 0;
}

static void codelist(void **state)
{
	static const char text[] =
		/* JDK 11+: id, level, state */
		"4 0 0 jdk.internal.misc.Unsafe.getReferenceVolatile(Ljava/lang/Object;J)"
		"Ljava/lang/Object; [0x00007f82c8ec7010, 0x00007f82c8ec71c0 - 0x00007f82c8ec7430]\n"
		/* JDK 9 and 10: no state; a CRLF line */
		"57 3 Hot.hotA(J)J [0x00007f0000001000, 0x00007f0000001100 - "
		"0x00007f0000001200]\r\n"
		/* not codelist lines */
		"\n"
		"CodeCache: size=245760Kb used=2000Kb\n"
		"5 0 0 x.y()V [0x1, 0x2]\n"
		"6 0 0 x.y()V [0x10, 0x30 - 0x20]\n"
		"7 0 0 x.y()V [0x10, 0x20 - 0x7fffffff]\n"
		"8 0 0 [0x10, 0x20 - 0x30]\n"
		"9 0 0 x.y()V [0x10, 0x20 - 0x30] trailing\n"
		"x 0 0 x.y()V [0x10, 0x20 - 0x30]\n"
		"10 0 0 x.y()V [0x10, 0x20 - 0x11111111111111111]\n"
		/* a name that is no descriptor is kept as it came; no newline at the end */
		"11 4 0 weird.name here [0x10, 0x20 - 0x30]";
	struct got g = { 0 };

	(void)state;
	assert_int_equal(jvm_reply_codelist(text, sizeof(text) - 1, take, &g), 3);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.start[0], 0x00007f82c8ec71c0ull);
	assert_int_equal(g.end[0], 0x00007f82c8ec7430ull);
	assert_string_equal(g.name[0], "java.lang.Object jdk.internal.misc.Unsafe."
				       "getReferenceVolatile(java.lang.Object, long)");
	assert_int_equal(g.start[1], 0x00007f0000001100ull);
	assert_string_equal(g.name[1], "long Hot.hotA(long)");
	assert_string_equal(g.name[2], "weird.name here");
	/* the callback's error ends the walk */
	memset(&g, 0, sizeof(g));
	g.fail_at = 2;
	assert_int_equal(jvm_reply_codelist(text, sizeof(text) - 1, take, &g), -ENOMEM);
	assert_int_equal(jvm_reply_codelist("", 0, take, &g), 0);
}

static void status_fields(void **state)
{
	/* SIGQUIT is signal 3: bit 2 of the masks */
	static const char in_container[] = "Name:\tjava\nUid:\t1000\t1001\t1001\t1001\n"
					   "Gid:\t100\t101\t101\t101\nNSpid:\t4242\t7\n"
					   "SigIgn:\t0000000000000000\nSigCgt:\t2000000181005ccf\n";
	static const char ignored[] = "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"
				      "SigIgn:\t0000000000000004\nSigCgt:\t0000000000000004\n";
	static const char old_kernel[] = "Uid:\t5\t5\t5\t5\nGid:\t6\t6\t6\t6\n"
					 "SigIgn:\t0000000000000000\nSigCgt:\t0000000000000000\n";
	struct jvm_probe p = { 0 };

	(void)state;
	assert_int_equal(jvm_probe_status(in_container, sizeof(in_container) - 1, &p), 0);
	assert_int_equal(p.uid, 1001);
	assert_int_equal(p.gid, 101);
	assert_int_equal(p.nspid, 7);
	assert_true(p.quit_caught);
	memset(&p, 0, sizeof(p));
	assert_int_equal(jvm_probe_status(ignored, sizeof(ignored) - 1, &p), 0);
	assert_false(p.quit_caught);
	memset(&p, 0, sizeof(p));
	assert_int_equal(jvm_probe_status(old_kernel, sizeof(old_kernel) - 1, &p), 0);
	assert_int_equal(p.nspid, 0);
	assert_int_equal(p.uid, 5);
	assert_false(p.quit_caught);
	assert_int_equal(jvm_probe_status("Name:\tx\n", 8, &p), -EINVAL);
}

#define ARGS(s) s, sizeof(s) - 1

static void jvm_flags(void **state)
{
	static const char cmd[] =
		"java\0-XX:+DisableAttachMechanism\0-cp\0-XX:-PreserveFramePointer\0"
		"Main\0-XX:-DisableAttachMechanism\0-XX:+PreserveFramePointer";
	static const char jar[] = "java\0-jar\0app.jar\0-XX:+PreserveFramePointer";
	static const char env[] = "HOME=/\0JAVA_TOOL_OPTIONS=-Xmx1g  -XX:+PreserveFramePointer\0"
				  "_JAVA_OPTIONS=\t-XX:-DisableAttachMechanism\0";

	(void)state;
	/* a program argument after the main class, or a -cp value, is no flag */
	assert_int_equal(jvm_probe_flag(ARGS(cmd), NULL, 0, "DisableAttachMechanism"), JVM_FLAG_ON);
	assert_int_equal(jvm_probe_flag(ARGS(cmd), NULL, 0, "PreserveFramePointer"),
			 JVM_FLAG_UNSET);
	assert_int_equal(jvm_probe_flag(ARGS(jar), NULL, 0, "PreserveFramePointer"),
			 JVM_FLAG_UNSET);
	/* JAVA_TOOL_OPTIONS, then the command line, then _JAVA_OPTIONS */
	assert_int_equal(jvm_probe_flag(NULL, 0, ARGS(env), "PreserveFramePointer"), JVM_FLAG_ON);
	assert_int_equal(jvm_probe_flag(ARGS(cmd), ARGS(env), "DisableAttachMechanism"),
			 JVM_FLAG_OFF);
	assert_int_equal(jvm_probe_flag(ARGS("java\0-XX:-PreserveFramePointer\0M"), ARGS(env),
					"PreserveFramePointer"),
			 JVM_FLAG_OFF);
	/* a longer flag of the same prefix is another flag */
	assert_int_equal(jvm_probe_flag(ARGS("java\0-XX:+PreserveFramePointerX\0M"), NULL, 0,
					"PreserveFramePointer"),
			 JVM_FLAG_UNSET);
	assert_int_equal(jvm_probe_flag(NULL, 0, NULL, 0, "PreserveFramePointer"), JVM_FLAG_UNSET);
}

static void libraries(void **state)
{
	(void)state;
	assert_int_equal(
		jvm_probe_library("/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so"), 1);
	assert_int_equal(jvm_probe_library("/opt/jdk/jre/lib/amd64/client/libjvm.so"), 1);
	assert_int_equal(jvm_probe_library("/opt/openj9/lib/default/libj9vm29.so"), -1);
	assert_int_equal(jvm_probe_library("/usr/lib/x86_64-linux-gnu/libc.so.6"), 0);
	assert_int_equal(jvm_probe_library("/tmp/libjvm.so.bak"), 0);
	assert_int_equal(jvm_probe_library("/usr/lib/jvm/java-17/lib/libjli.so"), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(result_line), cmocka_unit_test(method_names),
		cmocka_unit_test(codelist),    cmocka_unit_test(status_fields),
		cmocka_unit_test(jvm_flags),   cmocka_unit_test(libraries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
