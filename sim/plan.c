/*
 * A frequency plan for `simulate --schedule`: the P-state each interval of
 * the simulated run executes at, when every phase runs at its own frequency.
 * The phases are those a profile *detected* (not the simulator's true
 * labels), because that is what a schedule is made of and what a runtime
 * applying it would see; the profile's intervals are the simulated run's
 * intervals one to one.  Kept apart from the physics so that the plan can
 * be built and checked before anything is simulated.
 */
#include "sleuth/sim.h"

#include "sleuth/common.h"

/*
 * Fill pstate_of[0..n) for a run whose interval i belongs to phase[i].
 * phase_ghz[p] (p < n_phase_ghz) is phase p's frequency, 0 when it has none.
 * Instances (runs of one phase) whose time -- the sum of time_s over their
 * intervals -- is below min_instance_s do not get their own frequency: they
 * stay at that of the instance before them, or at base_ghz at the start of
 * the run (the rule of `schedule --min-instance-ms`, docs/schedule.md).
 * time_s may be NULL when min_instance_s is 0.  0, or -1 with sl_error()
 * for a phase without a frequency or a frequency that is not a P-state.
 */
int sl_sim_plan(const sl_sim_machine *m, const uint32_t *phase, const double *time_s,
		size_t n, const double *phase_ghz, size_t n_phase_ghz, double base_ghz,
		double min_instance_s, int *pstate_of)
{
	int cur = sl_sim_machine_pstate(m, base_ghz);
	if (cur < 0) {
		sl_error_prefix("baseline frequency: ");
		return -1;
	}
	for (size_t i = 0; i < n;) {
		uint32_t p = phase[i];
		double ghz = p < n_phase_ghz ? phase_ghz[p] : 0;
		if (!(ghz > 0)) {
			sl_error_set("phase %u (interval %zu) has no frequency in the schedule; "
				     "make the schedule from the same profile", p, i);
			return -1;
		}
		int ps = sl_sim_machine_pstate(m, ghz);
		if (ps < 0) {
			sl_error_prefix("phase %u: ", p);
			return -1;
		}
		size_t j = i;
		double t = 0;
		for (; j < n && phase[j] == p; j++)
			t += time_s ? time_s[j] : 0;
		if (!(min_instance_s > 0) || t >= min_instance_s)
			cur = ps;
		for (; i < j; i++)
			pstate_of[i] = cur;
	}
	return 0;
}
