// SPDX-License-Identifier: GPL-2.0
/*
 * The flame graph in a real browser: headless Chromium (Debian's chromium)
 * driven over the DevTools protocol by svg_browser.py. Checks that frames
 * render, that Ctrl-F search highlights a frame with a "Matched:" readout,
 * that click-to-zoom and Reset Zoom work, and that no JavaScript error is
 * raised. The screenshot is left in build/unit/flamegraph.png to look at.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture_proc.h"
#include "output/output.h"
#include "profile/profile.h"
#include "view_fixture.h"

static void run_browser(enum profile_kind kind, const char *shot_name)
{
	char dir[] = "/tmp/skyprof-svg-XXXXXX", svg[64], shot[256], cmd[PATH_MAX + 512];
	struct view *p;
	int r;

	if (system("command -v chromium >/dev/null 2>&1") ||
	    system("/usr/bin/python3 -c 'import websocket' 2>/dev/null")) {
		fprintf(stderr, "chromium or python3-websocket missing: skipped\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	snprintf(svg, sizeof(svg), "%s/p.svg", dir);
	p = vf_make(kind);
	assert_int_equal(output_write(p, svg, OUTPUT_SVG), 0);
	vf_free(p);
	if (access("build/unit", W_OK) == 0)
		snprintf(shot, sizeof(shot), "build/unit/%s", shot_name);
	else
		snprintf(shot, sizeof(shot), "%s/%s", dir, shot_name);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/svg_browser.py %s %s spin_leaf middle",
		 fx_src_dir(), svg, shot);
	r = system(cmd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd)) {
		/* best effort */
	}
	assert_int_equal(r, 0);
}

static void test_svg_in_chromium(void **state)
{
	(void)state;
	run_browser(PROFILE_ONCPU, "flamegraph.png");
}

static void test_offcpu_svg_in_chromium(void **state)
{
	(void)state;
	run_browser(PROFILE_OFFCPU, "flamegraph-offcpu.png");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_svg_in_chromium),
		cmocka_unit_test(test_offcpu_svg_in_chromium),
	};

	return cmocka_run_group_tests_name("svg_browser", tests, NULL, NULL);
}
