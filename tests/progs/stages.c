/*
 * A real program with three stage functions for the vPMU's tests: integer
 * and floating-point compute on registers, a stream over an array larger
 * than the L2, and a pointer chase through a list larger than the LLC.
 * Each runs a fixed amount of work (deterministic: same instructions every
 * run), the three in turn, twice.  Usage: stages [SCALE] [exit N | crash].
 * SCALE (default 1) multiplies every stage's work.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STREAM_N (1u << 20)  /* 8 MiB of doubles */
#define CHASE_N (1u << 21)   /* 2M nodes of 16 bytes: 32 MiB */

struct node {
	struct node *next;
	uint64_t pad;
};

static double *arr;
static struct node *nodes;

uint64_t stage_compute(unsigned scale)
{
	uint64_t h = 1469598103934665603ull;
	double x = 1.0;
	for (unsigned r = 0; r < 2000000u * scale; r++) {
		h ^= r;
		h *= 1099511628211ull;
		if (h & 4)
			x = x * 1.0000001 + 0.5;
		else
			x -= 0.25;
	}
	return h + (uint64_t)x;
}

double stage_stream(unsigned scale)
{
	double s = 0;
	for (unsigned r = 0; r < 2 * scale; r++)
		for (unsigned i = 0; i < STREAM_N; i++) {
			arr[i] = arr[i] * 0.999 + 1.0;
			s += arr[i];
		}
	return s;
}

uint64_t stage_chase(unsigned scale)
{
	struct node *p = &nodes[0];
	uint64_t n = 0;
	for (unsigned i = 0; i < 1000000u * scale; i++) {
		p = p->next;
		n += p->pad;
	}
	return n;
}

static void setup(void)
{
	arr = malloc(STREAM_N * sizeof *arr);
	nodes = malloc(CHASE_N * sizeof *nodes);
	uint32_t *perm = malloc(CHASE_N * sizeof *perm);
	if (!arr || !nodes || !perm) {
		fprintf(stderr, "stages: out of memory\n");
		exit(1);
	}
	for (unsigned i = 0; i < STREAM_N; i++)
		arr[i] = i;
	/* one random cycle through all nodes (Sattolo), fixed seed */
	uint64_t st = 88172645463325252ull;
	for (unsigned i = 0; i < CHASE_N; i++)
		perm[i] = i;
	for (unsigned i = CHASE_N - 1; i > 0; i--) {
		st ^= st << 13;
		st ^= st >> 7;
		st ^= st << 17;
		unsigned j = (unsigned)(st % i);
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (unsigned i = 0; i < CHASE_N; i++) {
		nodes[perm[i]].next = &nodes[perm[(i + 1) % CHASE_N]];
		nodes[i].pad = i & 7;
	}
	free(perm);
}

int main(int argc, char **argv)
{
	unsigned scale = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
	const char *mode = argc > 2 ? argv[2] : "";
	if (!scale)
		scale = 1;
	setup();
	uint64_t acc = 0;
	for (int rep = 0; rep < 2; rep++) {
		acc += stage_compute(scale);
		acc += (uint64_t)stage_stream(scale);
		if (!strcmp(mode, "crash") && rep == 1)
			*(volatile int *)0 = 1;
		acc += stage_chase(scale);
	}
	printf("%llu\n", (unsigned long long)(acc & 0xffff));
	free(arr);
	free(nodes);
	return !strcmp(mode, "exit") && argc > 3 ? atoi(argv[3]) : 0;
}
