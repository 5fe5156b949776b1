/*
 * sleuth: git-style front end.  `sleuth CMD [ARGS]` runs builtin CMD;
 * `sleuth help [CMD]` and `--version` are handled here.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "sleuth/common.h"

static int help(int argc, char **argv);

static const struct sl_cmd cmd_help = {
	.name = "help",
	.fn = help,
	.summary = "Show help for a command",
	.usage = "usage: sleuth help [COMMAND]\n"
		 "       sleuth help --man [COMMAND]\n\n"
		 "Without COMMAND, list the commands; with it, show its options.\n"
		 "With --man, write the manual page (roff) made from the same text:\n"
		 "the build installs them as sleuth(1) and sleuth-COMMAND(1).\n",
};

static const struct sl_cmd *const commands[] = {
	/* one line per subcommand, alphabetical */
	&sl_cmd_calibrate,
	&sl_cmd_demo,
	&sl_cmd_doctor,
	&cmd_help,
	&sl_cmd_machine,
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

/*
 * Edit distance with adjacent transpositions (optimal string alignment):
 * "reprot" is one edit from "report".  Words here are short; longer ones
 * are cut at 63 characters, which cannot matter for a suggestion.
 */
static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
	size_t d[64][64];
	na = SL_MIN(na, 63);
	nb = SL_MIN(nb, 63);
	for (size_t i = 0; i <= na; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= nb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= na; i++)
		for (size_t j = 1; j <= nb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t v = SL_MIN(d[i - 1][j] + 1, d[i][j - 1] + 1);
			v = SL_MIN(v, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				v = SL_MIN(v, d[i - 2][j - 2] + 1);
			d[i][j] = v;
		}
	return d[na][nb];
}

/* Is `cand` (n characters) near enough to `typed` to suggest, and nearer
 * than the best so far (*best_d)? A third of the word may be wrong. */
static int nearer(const char *typed, const char *cand, size_t n, size_t *best_d)
{
	size_t lt = strlen(typed), d = edit_distance(typed, lt, cand, n);
	size_t limit = SL_MAX((size_t)1, SL_MAX(lt, n) / 3);
	if (d == 0 || d > limit || d >= *best_d)
		return 0;
	*best_d = d;
	return 1;
}

static const struct sl_cmd *nearest_command(const char *typed)
{
	const struct sl_cmd *best = NULL;
	size_t best_d = SIZE_MAX;
	for (size_t i = 0; i < SL_ARRAY_LEN(commands); i++)
		if (nearer(typed, commands[i]->name, strlen(commands[i]->name), &best_d))
			best = commands[i];
	return best;
}

/*
 * The long option of command `c` nearest to `typed` ("--max-slowdwn"), or
 * 0: the options are read from the command's help text, the one list every
 * builtin keeps of what it takes, so no option table needs passing here.
 * Writes "--name" into out.
 */
static int nearest_option(const struct sl_cmd *c, const char *typed, char *out,
			  size_t len)
{
	size_t best_d = SIZE_MAX, lt = strcspn(typed, "=");
	char word[64];
	if (lt >= sizeof word)
		return 0;
	memcpy(word, typed, lt);
	word[lt] = 0;
	int found = 0;
	for (const char *u = c->usage; (u = strstr(u, "--"));) {
		size_t n = 2 + strspn(u + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
		if (n > 3 && n < len && nearer(word, u, n, &best_d)) {
			memcpy(out, u, n);
			out[n] = 0;
			found = 1;
		}
		u += n;
	}
	return found;
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

/* Text as roff: backslashes and hyphens escaped, no line taken for a
 * request (a leading dot or quote). */
static void roff_line(FILE *f, const char *s, size_t n)
{
	if (n && (s[0] == '.' || s[0] == '\''))
		fputs("\\&", f);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\')
			fputs("\\e", f);
		else if (s[i] == '-')
			fputs("\\-", f);
		else
			fputc(s[i], f);
	}
	fputc('\n', f);
}

static void roff_block(FILE *f, const char *s)
{
	while (*s) {
		size_t n = strcspn(s, "\n");
		roff_line(f, s, n);
		s += n + (s[n] == '\n');
	}
}

/*
 * The manual page of a command, from its help text: the "usage:" lines
 * are the synopsis, the rest the description, kept as laid out for the
 * terminal (it is written for 80 columns).  Without a command, sleuth(1):
 * the overview and the list of commands.
 */
static void man_page(FILE *f, const struct sl_cmd *c)
{
	char upper[64];
	const char *name = c ? c->name : NULL;
	snprintf(upper, sizeof upper, "SLEUTH%s%s", c ? "-" : "", c ? c->name : "");
	for (char *u = upper; *u; u++)
		if (*u >= 'a' && *u <= 'z')
			*u = (char)(*u - 'a' + 'A');
	fprintf(f, ".TH %s 1 \"\" \"sleuth %s\" \"sleuth manual\"\n.SH NAME\n", upper,
		SLEUTH_VERSION);
	if (!c) {
		fputs("sleuth \\- time, power and energy of every program phase at every CPU "
		      "frequency, from one run\n.SH SYNOPSIS\n.B sleuth\n"
		      "[\\-\\-version] [\\-\\-help] COMMAND [ARGS]\n.SH DESCRIPTION\n"
		      "sleuth profiles an unmodified program once, finds its phases, maps "
		      "them to source code, predicts each phase's time, power and energy at "
		      "every CPU frequency and chooses a frequency per phase.\n"
		      ".SH COMMANDS\n", f);
		for (size_t i = 0; i < SL_ARRAY_LEN(commands); i++) {
			fprintf(f, ".TP\n.BR sleuth\\-%s (1)\n", commands[i]->name);
			roff_line(f, commands[i]->summary, strlen(commands[i]->summary));
		}
		fputs(".SH SEE ALSO\n'sleuth help COMMAND' prints the same text as each "
		      "command's page.\n", f);
		return;
	}
	fprintf(f, "sleuth\\-%s \\- ", name);
	roff_line(f, c->summary, strlen(c->summary));
	const char *u = c->usage, *desc = strstr(u, "\n\n");
	size_t syn = desc ? (size_t)(desc - u) : strlen(u);
	fputs(".SH SYNOPSIS\n.nf\n", f);
	for (const char *l = u; l < u + syn;) {
		size_t n = strcspn(l, "\n");
		n = SL_MIN(n, (size_t)(u + syn - l));
		/* "usage: " and the continuation lines' indent under it go */
		const char *t = n >= 7 && (!strncmp(l, "usage: ", 7) ||
					   !strncmp(l, "       ", 7)) ? l + 7 : l;
		roff_line(f, t, n - (size_t)(t - l));
		l += n + 1;
	}
	fputs(".fi\n.SH DESCRIPTION\n.nf\n", f);
	if (desc)
		roff_block(f, desc + 2);
	fputs(".fi\n.SH SEE ALSO\n.BR sleuth (1)\n", f);
}

static int help(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--man")) {
		const struct sl_cmd *c = argc >= 3 ? find(argv[2]) : NULL;
		if (argc >= 3 && !c) {
			fprintf(stderr, "sleuth: no command '%s'; run 'sleuth help' for the "
					"list\n", argv[2]);
			return SL_EXIT_USAGE;
		}
		man_page(stdout, c);
		return SL_EXIT_OK;
	}
	if (argc < 2) {
		overview(stdout);
		return SL_EXIT_OK;
	}
	const struct sl_cmd *c = find(argv[1]);
	if (!c) {
		const struct sl_cmd *near = nearest_command(argv[1]);
		if (near)
			fprintf(stderr, "sleuth: no command '%s'; did you mean '%s'?\n",
				argv[1], near->name);
		else
			fprintf(stderr, "sleuth: no command '%s'; run 'sleuth help' for the "
					"list\n", argv[1]);
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
	const struct sl_cmd *sc = find(cmd);
	char near[64];
	if (c == ':')
		fprintf(stderr, "sleuth %s: option '%s' needs a value\n", cmd, name);
	else if (name == arg && sc && nearest_option(sc, arg, near, sizeof near))
		fprintf(stderr, "sleuth %s: unknown option '%s'; did you mean '%s'?\n", cmd,
			name, near);
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
		const struct sl_cmd *near = nearest_command(name);
		if (near)
			fprintf(stderr, "sleuth: '%s' is not a sleuth command; did you mean "
					"'%s'?\n", name, near->name);
		else
			fprintf(stderr, "sleuth: '%s' is not a sleuth command; run 'sleuth "
					"help' for the list\n", name);
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
