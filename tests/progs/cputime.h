/* The process's CPU time in seconds, for test programs whose stages run
 * for a fixed amount of CPU (a busy machine stretches the run, not the
 * stages).  C and C++. */
#ifndef SLEUTH_TEST_CPUTIME_H
#define SLEUTH_TEST_CPUTIME_H

#include <time.h>

static inline double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif
