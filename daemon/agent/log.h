/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's log: one line per event on stderr, with a level. Under
 * systemd (JOURNAL_STREAM set) each line starts with the sd-daemon "<N>"
 * priority prefix so journald files it at the right level; on a terminal it
 * carries a timestamp instead. Thread-safe (one fprintf per line).
 */
#ifndef SKYPROF_AGENT_LOG_H
#define SKYPROF_AGENT_LOG_H

enum log_level {
	LOG_LVL_ERROR,
	LOG_LVL_WARN,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG,
};

/* "error", "warn"/"warning", "info", "debug"/"trace", any case; -1 otherwise. */
int log_level_parse(const char *s);
void log_set_level(enum log_level l);
int log_enabled(enum log_level l);

void log_msg(enum log_level l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_LVL_ERROR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
