// SPDX-License-Identifier: GPL-2.0
/* The agent's log; see log.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>

#include "agent/log.h"

static int level = LOG_LVL_INFO;
static int journal = -1; /* unknown until the first line */

int log_level_parse(const char *s)
{
	static const struct {
		const char *name;
		int level;
	} names[] = {
		{ "error", LOG_LVL_ERROR }, { "fatal", LOG_LVL_ERROR },	 { "panic", LOG_LVL_ERROR },
		{ "warn", LOG_LVL_WARN },   { "warning", LOG_LVL_WARN }, { "info", LOG_LVL_INFO },
		{ "debug", LOG_LVL_DEBUG }, { "trace", LOG_LVL_DEBUG },
	};

	for (size_t i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i].name))
			return names[i].level;
	return -1;
}

void log_set_level(enum log_level l)
{
	level = l;
}

int log_enabled(enum log_level l)
{
	return (int)l <= level;
}

void log_msg(enum log_level l, const char *fmt, ...)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	static const int prio[] = { 3, 4, 6, 7 }; /* syslog LOG_ERR, WARNING, INFO, DEBUG */
	char line[2048];
	va_list ap;

	if (!log_enabled(l))
		return;
	if (journal < 0)
		journal = getenv("JOURNAL_STREAM") != NULL;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (journal) {
		fprintf(stderr, "<%d>%s: %s\n", prio[l], names[l], line);
	} else {
		struct timespec ts;
		struct tm tm;
		char when[32];

		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(stderr, "%s.%03ld %-5s %s\n", when, ts.tv_nsec / 1000000, names[l], line);
	}
}
