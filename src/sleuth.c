/*
 * sleuth: git-style front end.  `sleuth CMD [ARGS]` runs builtin CMD;
 * `sleuth help [CMD]` and `--version` are handled here.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "sleuth/common.h"

static int help(int argc, char **argv);

static const struct sl_cmd cmd_help = {
	.name = "help",
	.fn = help,
	.summary = "Show help for a command",
	.usage = "usage: sleuth help [COMMAND]\n\n"
		 "Without COMMAND, list the commands; with it, show its options.\n",
};

static const struct sl_cmd *const commands[] = {
	/* one line per subcommand, alphabetical */
	&sl_cmd_calibrate,
	&sl_cmd_demo,
	&sl_cmd_doctor,
	&cmd_help,
	&sl_cmd_phases,
	&sl_cmd_predict,
	&sl_cmd_report,
	&sl_cmd_run,
	&sl_cmd_schedule,
	&sl_cmd_simulate,
};

static const struct sl_cmd *find(const char *name)
{
	for (size_t i = 0; i < SL_ARRAY_LEN(commands); i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

static void overview(FILE *f)
{
	fprintf(f, "usage: sleuth [--version] [--help] COMMAND [ARGS]\n\n"
		   "Time, power and energy of every program phase at every CPU "
		   "frequency, from one run.\n\nCommands:\n");
	for (size_t i = 0; i < SL_ARRAY_LEN(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "\nSee 'sleuth help COMMAND' for a command's options.\n");
}

static int help(int argc, char **argv)
{
	if (argc < 2) {
		overview(stdout);
		return SL_EXIT_OK;
	}
	const struct sl_cmd *c = find(argv[1]);
	if (!c) {
		fprintf(stderr, "sleuth: no command '%s'; run 'sleuth help' for the list\n",
			argv[1]);
		return SL_EXIT_USAGE;
	}
	printf("%s", c->usage);
	return SL_EXIT_OK;
}

int sl_bad_option(const char *cmd, int c, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	char shortopt[3] = {'-', (char)optopt, 0};
	/* For a short option, argv[optind-1] may be a cluster like "-qx";
	 * name the option itself. */
	const char *name = (arg[0] == '-' && arg[1] == '-') || !optopt || optopt > 127
				   ? arg : shortopt;
	if (c == ':')
		fprintf(stderr, "sleuth %s: option '%s' needs a value\n", cmd, name);
	else
		fprintf(stderr, "sleuth %s: unknown option '%s'\n", cmd, name);
	fprintf(stderr, "Try 'sleuth help %s'.\n", cmd);
	return SL_EXIT_USAGE;
}

int sl_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "sleuth %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'sleuth help %s'.\n", cmd);
	return SL_EXIT_USAGE;
}

int sl_fail(void)
{
	fprintf(stderr, "sleuth: %s\n", sl_error());
	return SL_EXIT_ERROR;
}

/*
 * Every command's output to stdout is checked here, once: a full disk or a
 * closed pipe (`sleuth phases P > /dev/full`) fails the command with one
 * line, whatever it printed.  A command that failed already keeps its code.
 */
static int check_stdout(int rc)
{
	int e = fflush(stdout) ? errno : 0;
	if (!e && !ferror(stdout))
		return rc;
	if (rc == SL_EXIT_OK || rc == SL_EXIT_USAGE) {
		fprintf(stderr, "sleuth: cannot write to standard output: %s\n",
			strerror(e ? e : EIO));
		rc = SL_EXIT_ERROR;
	}
	return rc;
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
	sl_input_guard();
	return check_stdout(dispatch(argc, argv));
}

static int dispatch(int argc, char **argv)
{
	opterr = 0; /* builtins report bad options themselves */
	if (argc < 2) {
		overview(stderr);
		return SL_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("sleuth %s\n", SLEUTH_VERSION);
		return SL_EXIT_OK;
	}
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		return help(argc - 1, argv + 1);
	const struct sl_cmd *c = find(name);
	if (!c) {
		fprintf(stderr, "sleuth: '%s' is not a sleuth command; run 'sleuth help' "
				"for the list\n", name);
		return SL_EXIT_USAGE;
	}
	/* `sleuth CMD --help`; run answers it itself, since a -h after the
	 * program it runs is the program's */
	for (int i = 2; c != &sl_cmd_run && i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("%s", c->usage);
			return SL_EXIT_OK;
		}
	return c->fn(argc - 1, argv + 1);
}
