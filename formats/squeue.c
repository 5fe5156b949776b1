/*
 * Bounded single-producer, single-consumer queue of slot indices: see
 * squeue.h for why it hands out indices rather than items.
 */
#include "squeue.h"

#include <malloc.h>
#include <signal.h>
#include <sys/resource.h>

void sl_squeue_init(sl_squeue *q, size_t cap)
{
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
	q->cap = cap;
	q->batch = cap / 2 ? cap / 2 : 1;
	q->head = q->count = 0;
	q->closed = q->cancelled = 0;
}

void sl_squeue_destroy(sl_squeue *q)
{
	pthread_cond_destroy(&q->not_full);
	pthread_cond_destroy(&q->not_empty);
	pthread_mutex_destroy(&q->mu);
}

long sl_squeue_reserve(sl_squeue *q)
{
	long slot = -1;
	pthread_mutex_lock(&q->mu);
	while (q->count == q->cap && !q->cancelled)
		pthread_cond_wait(&q->not_full, &q->mu);
	if (!q->cancelled)
		slot = (long)((q->head + q->count) % q->cap);
	pthread_mutex_unlock(&q->mu);
	return slot;
}

void sl_squeue_put(sl_squeue *q)
{
	pthread_mutex_lock(&q->mu);
	q->count++;
	if (q->count >= q->batch) /* cheap when nobody waits */
		pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->mu);
}

void sl_squeue_close(sl_squeue *q)
{
	pthread_mutex_lock(&q->mu);
	q->closed = 1;
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->mu);
}

long sl_squeue_take(sl_squeue *q)
{
	long slot = -1;
	pthread_mutex_lock(&q->mu);
	while (!q->count && !q->closed && !q->cancelled)
		pthread_cond_wait(&q->not_empty, &q->mu);
	if (q->count && !q->cancelled)
		slot = (long)q->head;
	pthread_mutex_unlock(&q->mu);
	return slot;
}

void sl_squeue_release(sl_squeue *q)
{
	pthread_mutex_lock(&q->mu);
	q->head = (q->head + 1) % q->cap;
	q->count--;
	if (q->cap - q->count >= q->batch)
		pthread_cond_signal(&q->not_full);
	pthread_mutex_unlock(&q->mu);
}

void sl_squeue_cancel(sl_squeue *q)
{
	pthread_mutex_lock(&q->mu);
	q->cancelled = 1;
	pthread_cond_broadcast(&q->not_empty);
	pthread_cond_broadcast(&q->not_full);
	pthread_mutex_unlock(&q->mu);
}

/*
 * Under an address-space limit (ulimit -v), glibc's per-thread malloc arena
 * (a 64 MB reservation) may not fit; glibc then retries the reservation on
 * every malloc of that thread, which made a replay 178x slower.  With a
 * limit, every thread shares the main arena instead (one arena is plenty for
 * one reader or writer thread beside the main one).
 */
static void one_arena_if_limited(void)
{
	static int done;
	struct rlimit as, data;
	if (done)
		return;
	done = 1;
	if ((getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) ||
	    (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY))
		mallopt(M_ARENA_MAX, 1);
}

int sl_squeue_spawn(pthread_t *t, void *(*fn)(void *), void *arg)
{
	one_arena_if_limited();
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc ? -1 : 0;
}
