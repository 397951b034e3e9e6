// SPDX-License-Identifier: GPL-2.0
/*
 * skyprof agent: the command line (options, the config loaded and checked,
 * --check); the running agent is agent_loop.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/config.h"
#include "agent/log.h"
#include "cli/agent_loop.h"
#include "cli/commands.h"
#include "cli/usage.h"

#define DEFAULT_CONFIG "/etc/skyprof/agent.yaml"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: skyprof agent [-c FILE] [--check] [--log-level LEVEL]\n"
		"\n"
		"Registers this host's processes with an Apache SkyWalking OAP (as\n"
		"skywalking-rover's host mode), runs the on-CPU and off-CPU profiling tasks\n"
		"created in the SkyWalking UI through skyprof.ko, and uploads the stacks.\n"
		"Without core.backend.addr it profiles on the skyprof.schedule of its config\n"
		"and writes pprof + SVG files into skyprof.spool_dir.\n"
		"\n"
		"  -c, --config FILE   the YAML config (rover_configs.yaml keys; default %s)\n"
		"  --check             load and check the config, print the result, exit\n"
		"  --log-level LEVEL   error, warn, info or debug (overrides logger.level)\n"
		"  -h, --help          this text\n"
		"\n"
		"SIGTERM/SIGINT stop it: running tasks end with a final upload. The config\n"
		"schema is in docs/agent.md.\n",
		DEFAULT_CONFIG);
}

/*
 * Without an OAP the profiles go to the spool directory: one that cannot be
 * written is found at the start, not after the first task ran for nothing.
 * A file is made and removed in it, as access() says yes to root even where
 * nothing can be written (a read-only mount). --check makes no directory:
 * for a missing one, the parent is what must be writable.
 */
static int spool_dir_check(const char *dir, bool create, char *err, size_t errlen)
{
	char *probe = NULL, *slash;
	int fd, r = 0;

	if (create && mkdir(dir, 0750) && errno != EEXIST) {
		r = -errno;
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(-r));
		return r;
	}
	if (asprintf(&probe, "%s/.skyprof-check.XXXXXX", dir) < 0)
		return -ENOMEM;
	if (!create && access(dir, F_OK) && errno == ENOENT) {
		/* the parent, then: ".../spool/.skyprof-check" -> ".../.skyprof-check" */
		slash = strrchr(dir, '/');
		free(probe);
		probe = NULL;
		if (asprintf(&probe, "%.*s/.skyprof-check.XXXXXX", slash ? (int)(slash - dir) : 1,
			     slash ? dir : ".") < 0)
			return -ENOMEM;
	}
	fd = mkstemp(probe);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot write into %s: %s", dir, strerror(-r));
	} else {
		close(fd);
		unlink(probe);
	}
	free(probe);
	return r;
}

struct agent_opts {
	const char *config, *level;
	bool check_only;
};

/* The command line: -1 to go on, else the exit code. */
static int parse_options(int argc, char **argv, struct agent_opts *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'C' },
		{ "log-level", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;

	optind = 0; /* glibc: full reinitialisation */
	opterr = 0; /* usage_getopt_fail's message instead */
	while ((opt = getopt_long(argc, argv, ":c:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			o->config = optarg;
			break;
		case 'C':
			o->check_only = true;
			break;
		case 'L':
			o->level = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return usage_getopt_fail("agent", opt, argc, argv);
		}
	}
	if (optind < argc)
		return usage_fail("agent", "unexpected argument '%s'", argv[optind]);
	if (o->level && log_level_parse(o->level) < 0)
		return usage_fail("agent", "--log-level: '%s' is not error, warn, info or debug",
				  o->level);
	return -1;
}

/* The config, loaded and checked: -1 to go on, else the exit code (--check ends here). */
static int load_config(struct agent_config *cfg, struct agent_opts *o)
{
	char err[1024];
	int r;

	if (!o->config && access(DEFAULT_CONFIG, R_OK) == 0)
		o->config = DEFAULT_CONFIG;
	if (o->config)
		r = config_load_file(cfg, o->config, err, sizeof(err));
	else
		r = config_load_string(cfg, "", 0, err, sizeof(err));
	if (r) {
		/* a file that cannot be read as one is a usage error; its content is not */
		bool file = config_error_is_file(r);

		if (file)
			usage_fail("agent", "%s", err);
		else
			log_error("config %s: %s", o->config ? o->config : "(defaults)", err);
		config_free(cfg);
		return file ? USAGE_EXIT : 1;
	}
	log_set_level(o->level ? log_level_parse(o->level) : cfg->log_level);
	if (!cfg->backend.addr &&
	    spool_dir_check(cfg->skyprof.spool_dir, !o->check_only, err, sizeof(err))) {
		log_error("skyprof.spool_dir: %s", err);
		config_free(cfg);
		return 1;
	}
	if (o->check_only) {
		printf("%s: ok (%u warnings): %s, %zu finders, on-CPU at %u Hz\n",
		       o->config ? o->config : "(defaults)", cfg->nr_warnings,
		       cfg->backend.addr ? cfg->backend.addr : "no OAP (spool mode)",
		       cfg->nr_finders, config_oncpu_freq(cfg));
		config_free(cfg);
		return 0;
	}
	return -1;
}

int cli_agent_main(int argc, char **argv)
{
	struct agent_config cfg;
	struct agent_opts o = { 0 };
	int r;

	r = parse_options(argc, argv, &o);
	if (r < 0)
		r = load_config(&cfg, &o);
	if (r >= 0)
		return r;
	return agent_loop_run(&cfg);
}
