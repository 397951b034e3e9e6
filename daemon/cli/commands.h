/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subcommands: each lives in its own cli/<name>.c with its own usage
 * text, and main.c's table maps names to these. argv[0] is the subcommand's
 * name; the return value is the process's exit status (0 success, 1 failure,
 * 2 usage error).
 */
#ifndef SKYPROF_CLI_COMMANDS_H
#define SKYPROF_CLI_COMMANDS_H

int cli_record_main(int argc, char **argv);
int cli_top_main(int argc, char **argv);
int cli_status_main(int argc, char **argv);
int cli_report_main(int argc, char **argv);
int cli_agent_main(int argc, char **argv);

#endif
