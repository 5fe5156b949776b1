/*
 * A program whose work happens in a thread it creates, for the test that
 * the live backends follow the target's threads (inherited events): the
 * main thread only waits, so every sample in thread_work() proves the
 * thread was followed.  Runs ~0.3 s of CPU (THREADS_SECONDS to change).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static double thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

void *thread_work(void *arg)
{
	double end = thread_cpu() + *(double *)arg;
	uint64_t h = 1;
	while (thread_cpu() < end)
		for (int i = 0; i < 100000; i++)
			h = h * 6364136223846793005ull + 1442695040888963407ull;
	sink = h;
	return NULL;
}

int main(void)
{
	double secs = 0.3;
	const char *e = getenv("THREADS_SECONDS");
	if (e)
		secs = atof(e);
	pthread_t t;
	if (pthread_create(&t, NULL, thread_work, &secs))
		return 1;
	pthread_join(t, NULL);
	return 0;
}
