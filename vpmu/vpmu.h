/*
 * The host side of the virtual PMU: its machine description (the truth of
 * the virtual world: core, caches, DRAM, P-states, power and thermal
 * constants; data/sim/vpmu-nehalem-i7-920.yaml), its energy meter, and the
 * sl_backend that runs a program under the Valgrind tool.  sleuth's models
 * never read any of this: they see only the profile the backend produces.
 */
#ifndef SLEUTH_VPMU_H
#define SLEUTH_VPMU_H

#include <stddef.h>
#include <stdint.h>

#include "sleuth/backend.h"
#include "vpmu/vpmu-wire.h"

#define SL_VPMU_MACHINE "data/sim/vpmu-nehalem-i7-920.yaml"

typedef struct sl_vpmu_pstate {
	double ghz, volts;
} sl_vpmu_pstate;

/* Every constant of the virtual machine; names follow the YAML keys. */
typedef struct sl_vpmu_machine {
	char *name;
	double width, rob, mshr, mispredict_penalty, gshare_bits;
	double l1_size, l1_assoc, l1_line;
	double l2_size, l2_assoc, l2_line, l2_cycles;
	double llc_size, llc_assoc, llc_line, llc_cycles, llc_uncore_ns;
	double dram_ns, dram_mbps, prefetch_degree;
	/* power */
	double base_w, uncore_w, leak_w, leak_vref, leak_per_volt, leak_tref_c, leak_per_kelvin;
	double c_clock_nf, clock_gated_share, c_issue_nf, issue_exponent, c_irop_nf;
	double c_load_nf, c_store_nf, c_l1_miss_nf, c_l2_miss_nf, c_fp_nf, c_muldiv_nf;
	double c_branch_nf, c_wrong_path_nf, llc_access_nj, dram_nj_per_byte;
	/* thermal */
	double ambient_c, start_c, thermal_r_k_per_w, thermal_tau_s;
	sl_vpmu_pstate *pstates; /* fastest first */
	size_t n_pstates;
} sl_vpmu_machine;

/* Load a sleuth-vpmu-machine/1 file; -1 with sl_error() (FILE:LINE: key). */
int sl_vpmu_machine_load(const char *path, sl_vpmu_machine *m);
void sl_vpmu_machine_free(sl_vpmu_machine *m);
/* The voltage at ghz (linear between P-states); -1 with sl_error() when
 * ghz lies outside the table. */
int sl_vpmu_volts(const sl_vpmu_machine *m, double ghz, double *volts);

/* The energy meter: the power of each interval from the activity the core
 * simulated, with a thermal state carried from interval to interval. */
typedef struct sl_vpmu_meter {
	const sl_vpmu_machine *m;
	double ghz, volts;
	double temp_c;
} sl_vpmu_meter;

void sl_vpmu_meter_init(sl_vpmu_meter *mt, const sl_vpmu_machine *m, double ghz, double volts);
/* The interval's energy in joules (and its mean power); advances the
 * temperature. */
double sl_vpmu_meter_step(sl_vpmu_meter *mt, const struct vpmu_interval *iv, double *watts);

/* The backend. */
typedef struct sl_vpmu_opts {
	char *const *argv;
	const char *const *events; /* the model's events, by vPMU table name */
	size_t n_events;
	size_t k;                  /* programmable counters */
	double freq_ghz;           /* 0: the machine's fastest P-state */
	uint64_t interval;         /* instructions; 0: 100M */
	uint64_t period;           /* conditional branches per sample; 0: default */
	const char *machine;       /* NULL: SL_VPMU_MACHINE */
} sl_vpmu_opts;

/* NULL with sl_error(): valgrind absent (names the package), the tool not
 * built, a bad event name, a bad frequency, the program not found. */
sl_backend *sl_vpmu_backend_new(const sl_vpmu_opts *o);

/* The vPMU's event table (VPMU_N_EVENTS names). */
const char *const *sl_vpmu_event_names(void);

/* Whether the vPMU runs here: runs a trivial program under the tool.  0, or
 * -1 with the reason and the fix in sl_error(). */
int sl_vpmu_probe(void);

#endif
