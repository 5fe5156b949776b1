/*
 * Internals of the RAPL reader (collect/rapl.c) that tests check directly:
 * which PAPI energy events are summed.
 */
#ifndef SLEUTH_COLLECT_RAPL_H
#define SLEUTH_COLLECT_RAPL_H

/* Whether PAPI event `event` of component comp ("powercap" or "rapl") is
 * one sleuth sums: a package's energy or its DRAM subzone's.  zone_name
 * is the powercap zone's name ("package-0", "dram", "psys", "core"; NULL
 * when unknown, which excludes a powercap event). */
int sl_rapl_papi_wanted(const char *comp, const char *event, const char *zone_name);

#endif
