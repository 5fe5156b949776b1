/*
 * Pieces shared by the simulator's modules but not part of libsleuth's
 * public interface: table-driven loading of named numeric parameters (the
 * machine's truth, a phase's behaviour) and the keyed random streams.
 */
#ifndef SLEUTH_SIM_INTERNAL_H
#define SLEUTH_SIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "formats/yamlio.h"

#include <gsl/gsl_rng.h>

/* One numeric parameter: its YAML key, where it lives (byte offset in the
 * target), its allowed range, and a default (NaN: required). */
typedef struct sl_sim_key {
	const char *key;
	size_t off;
	double min, max;
	double def;
	int integer;
} sl_sim_key;

/* Reads every key of `keys` present in `map` into `base` (marking set[i]);
 * warns about unknown keys.  Range and type errors name file, line, key. */
int sl_sim_read_keys(sl_yparser *yp, const sl_ynode *map, const sl_sim_key *keys,
		     size_t n, void *base, int *set);
/* The same, not warning about the keys in `other` (NULL-terminated), which
 * the caller reads itself. */
int sl_sim_read_keys_but(sl_yparser *yp, const sl_ynode *map, const sl_sim_key *keys,
			 size_t n, void *base, int *set, const char *const *other);
/* Fills unset keys with their defaults; a required key still unset is an
 * error "missing required key in WHERE" at `line`. */
int sl_sim_finish_keys(sl_yparser *yp, int line, const char *where,
		       const sl_sim_key *keys, size_t n, void *base, int *set);

/* Opens a small YAML file, loads it whole, checks its `format:`, warns about
 * top-level keys not in `top` and hands the root mapping to `body`. */
int sl_sim_load_doc(const char *path, const char *format, const char *const *top,
		    int (*body)(sl_yparser *yp, const sl_ynode *root, void *obj),
		    void *obj);

/* The independent random streams of a run (docs/simulator.md). */
enum sl_sim_stream {
	SL_STREAM_CODE = 1,
	SL_STREAM_INTERVAL,
	SL_STREAM_DRIFT,
	SL_STREAM_METER,
	SL_STREAM_IDLE,
	SL_STREAM_BACKGROUND,
};

/* The key of one random stream: a 64-bit mix (splitmix64 finaliser) of the
 * seed, the stream and up to three indices within it. */
uint64_t sl_sim_key_hash(uint64_t seed, enum sl_sim_stream stream, uint64_t a, uint64_t b,
			 uint64_t c);

/*
 * The power meter: samples the true power timeline at a fixed rate with
 * Gaussian noise, optionally writes them as a CSV power log, and integrates
 * the piecewise-linear series of the samples *as written* over each
 * interval, so the energy it reports is exactly what sleuth would integrate
 * from the log.  Streaming: an interval's energy is known once a sample at
 * or after its end exists.
 */
typedef struct sl_meter_seg {
	double t0, t1, w;
} sl_meter_seg;

typedef struct sl_meter_pend {
	double a, b, e;
} sl_meter_pend;

typedef struct sl_meter {
	double rate, sigma;
	gsl_rng *r;
	FILE *f;              /* CSV rows go here when not NULL */
	uint64_t k;           /* next sample index */
	sl_meter_seg *seg;    /* true power timeline not yet sampled past */
	size_t seg_head, n_seg, cap_seg;
	double t_end;         /* end of the known timeline */
	int have_prev;
	double tp, yp;        /* last sample, as written */
	sl_meter_pend *pend;  /* intervals awaiting their energy, in order */
	size_t pend_head, n_pend, cap_pend;
} sl_meter;

void sl_meter_init(sl_meter *m, double rate, double sigma, uint64_t seed, FILE *f);
void sl_meter_free(sl_meter *m);
/* Append `seconds` of true power `watts` to the timeline. */
void sl_meter_add(sl_meter *m, double seconds, double watts);
/* Register the next interval [a, b) whose energy is wanted. */
void sl_meter_interval(sl_meter *m, double a, double b);
/* Take every sample the known timeline allows (final: also the first
 * sample at or after its end, the power held at its last value). */
void sl_meter_advance(sl_meter *m, int final);
/* 1 and the energy of the oldest pending interval if it is complete. */
int sl_meter_pop(sl_meter *m, double *e);

/* The idle log's rows (docs/formats.md, power log): meter samples of each P-state's idle
 * power, keyed by the seed. */
struct sl_sim_machine;
void sl_sim_idle_rows(const struct sl_sim_machine *m, uint64_t seed, FILE *f);

#endif
