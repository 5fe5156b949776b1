/*
 * A bounded single-producer, single-consumer queue of slot indices, for the
 * trace writer and reader threads (formats/trace.c).  The caller owns an
 * array of `cap` slots; the queue only says which slot the producer may fill
 * next and which one the consumer may read next, so slots (and the buffers
 * in them) are reused and nothing is allocated per item.
 *
 * One mutex and two condition variables; either side can stop the other:
 * the producer closes (no more items; the consumer still gets what is
 * queued), either side cancels (stop now; both sides' waits return -1).
 * Unlocking the mutex between filling and publishing a slot is what makes
 * the slot's contents visible to the other thread.
 *
 * A side waiting on a full (empty) queue is woken only once half of it is
 * free (filled) again, not for every slot: one thread is usually much
 * faster than the other, and a wake-up per item cost a context switch per
 * interval (15-30 % more CPU time to write or read a trace).
 */
#ifndef SLEUTH_SQUEUE_H
#define SLEUTH_SQUEUE_H

#include <pthread.h>
#include <stddef.h>

typedef struct sl_squeue {
	pthread_mutex_t mu;
	pthread_cond_t not_empty, not_full;
	size_t cap, head, count;
	size_t batch;  /* wake a waiting side when this many slots are ready */
	int closed;    /* the producer will put nothing more */
	int cancelled; /* stop: pending items are dropped */
} sl_squeue;

void sl_squeue_init(sl_squeue *q, size_t cap);
void sl_squeue_destroy(sl_squeue *q);

/* Producer: wait for a free slot and return its index, or -1 once the
 * queue is cancelled.  Fill the slot, then sl_squeue_put() publishes it. */
long sl_squeue_reserve(sl_squeue *q);
void sl_squeue_put(sl_squeue *q);
void sl_squeue_close(sl_squeue *q);

/* Consumer: wait for the oldest item and return its slot index, or -1 when
 * the queue is closed and empty, or cancelled.  The slot stays the
 * consumer's until sl_squeue_release() hands it back. */
long sl_squeue_take(sl_squeue *q);
void sl_squeue_release(sl_squeue *q);

/* Either side: stop the other (it returns -1 from its next wait). */
void sl_squeue_cancel(sl_squeue *q);

/* Start a worker thread with every signal blocked, so that signals meant
 * for the program keep going to the threads that expect them.  0 or -1. */
int sl_squeue_spawn(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
