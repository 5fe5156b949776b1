/*
 * One file per subcommand (builtin-NAME.c), as in the Linux perf tool; each
 * defines `const struct sl_cmd sl_cmd_NAME` and sleuth.c lists them.
 */
#ifndef SLEUTH_BUILTIN_H
#define SLEUTH_BUILTIN_H

struct sl_cmd {
	const char *name;
	int (*fn)(int argc, char **argv); /* argv[0] is the subcommand name */
	const char *summary;              /* one line for `sleuth help` */
	const char *usage;                /* full text for `sleuth help NAME` */
};

/* one line per subcommand, alphabetical */
extern const struct sl_cmd sl_cmd_calibrate;
extern const struct sl_cmd sl_cmd_demo;
extern const struct sl_cmd sl_cmd_doctor;
extern const struct sl_cmd sl_cmd_machine;
extern const struct sl_cmd sl_cmd_phases;
extern const struct sl_cmd sl_cmd_predict;
extern const struct sl_cmd sl_cmd_report;
extern const struct sl_cmd sl_cmd_run;
extern const struct sl_cmd sl_cmd_schedule;
extern const struct sl_cmd sl_cmd_simulate;

/* For getopt_long's '?' (unknown option) and ':' (missing value; start
 * the option string with ":" or "+:" to get it): prints which option and a
 * pointer to help; returns SL_EXIT_USAGE. */
int sl_bad_option(const char *cmd, int c, char **argv);
/* Print "sleuth CMD: MSG" and a pointer to help; returns SL_EXIT_USAGE. */
int sl_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print "sleuth: <sl_error()>"; returns SL_EXIT_ERROR. */
int sl_fail(void);

#endif
