/*
 * The options of the commands that predict (predict, report, schedule):
 * which frequencies, which machine model, which time model, whether
 * frequencies outside the machine's P-states are allowed, whether power
 * is anchored on the profile's measured energy, and the short run at
 * another frequency that refines the time model.  One parser, so
 * that they accept the same spellings and refuse them with the same words.
 */
#ifndef SLEUTH_MODEL_OPTS_H
#define SLEUTH_MODEL_OPTS_H

#include <getopt.h>
#include <stddef.h>

#include "sleuth/model.h"

typedef struct sl_model_opts {
	double *freqs;           /* --freq, in GHz, in the order given */
	size_t n_freqs, cap;
	const char *machine;     /* --machine FILE, NULL: the profile's */
	sl_time_model model;     /* --model, SL_TIME_STALL unless given */
	int model_given;
	int extrapolate;         /* --extrapolate */
	sl_anchor_mode anchor;   /* --anchor, SL_ANCHOR_AUTO unless given */
	int anchor_given;
	const char *refine;      /* --refine PROFILE or off, NULL: none (a
				    dithered profile: itself) */
	sl_refine_rule refine_rule; /* --refine-rule, SL_REFINE_DEFAULT unless given */
} sl_model_opts;

/* getopt_long values; a command lists the options it takes in its table
 * (and "f:m:" in its short options: -f and -m mean the same everywhere). */
enum { SL_OPT_FREQ = 'f', SL_OPT_MACHINE = 'm', SL_OPT_MODEL = 0x1000, SL_OPT_EXTRAPOLATE,
       SL_OPT_ANCHOR, SL_OPT_REFINE, SL_OPT_REFINE_RULE };
#define SL_LONGOPT_FREQ {"freq", required_argument, NULL, SL_OPT_FREQ}
#define SL_LONGOPT_MACHINE {"machine", required_argument, NULL, SL_OPT_MACHINE}
#define SL_LONGOPT_MODEL {"model", required_argument, NULL, SL_OPT_MODEL}
#define SL_LONGOPT_EXTRAPOLATE {"extrapolate", no_argument, NULL, SL_OPT_EXTRAPOLATE}
#define SL_LONGOPT_ANCHOR {"anchor", required_argument, NULL, SL_OPT_ANCHOR}
#define SL_LONGOPT_REFINE {"refine", required_argument, NULL, SL_OPT_REFINE}
#define SL_LONGOPT_REFINE_RULE {"refine-rule", required_argument, NULL, SL_OPT_REFINE_RULE}

/* Take getopt_long's `c` (and optarg) if it is one of these options:
 * SL_EXIT_OK when taken, SL_EXIT_USAGE (reported, naming `cmd`) when its
 * value is bad, -1 when `c` is another option. */
int sl_model_opts_take(const char *cmd, sl_model_opts *o, int c, const char *arg);
void sl_model_opts_free(sl_model_opts *o);
/* The sl_model_open() flag --anchor asks for (0 or SL_MODEL_ANCHOR). */
#define SL_MODEL_OPTS_ANCHOR(o) ((o)->anchor == SL_ANCHOR_AUTO ? SL_MODEL_ANCHOR : 0)
/* Refine `md` with --refine's profile, if given, by --refine-rule's rule
 * -- a dithered profile with its own intervals at the second frequency
 * unless --refine off -- and say on stderr what it covers and which level
 * corrects how many instances; -1 with sl_error() when it cannot be used. */
int sl_model_opts_refine(const sl_model_opts *o, sl_model *md);

#endif
