/*
 * vPMU benchmark: pointer chasing through a random cycle larger than the
 * LLC (latency bound: each load's address is the previous load's value),
 * then a walk of the same nodes in address order (prefetchable).  Usage:
 * vb-chase [STEPS_MILLIONS] (default 1); bench/vpmu.sh runs it with two
 * step counts to measure the memory latency as a benchmark would.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NODES (1u << 19) /* 64-byte nodes: 32 MiB */

struct node {
	struct node *next;
	uint64_t v[7];
};

static struct node *nodes;

void ch_build(void)
{
	uint32_t *perm = malloc(NODES * sizeof *perm);
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (uint32_t i = 0; i < NODES; i++)
		perm[i] = i;
	for (uint32_t i = NODES - 1; i > 0; i--) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		uint32_t j = (uint32_t)(s % i), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (uint32_t i = 0; i < NODES; i++) {
		nodes[perm[i]].next = &nodes[perm[(i + 1) % NODES]];
		nodes[i].v[0] = i;
	}
	free(perm);
}

uint64_t ch_chase(unsigned long steps)
{
	struct node *p = nodes;
	uint64_t n = 0;
	for (unsigned long i = 0; i < steps; i++) {
		p = p->next;
		n += p->v[0];
	}
	return n;
}

uint64_t ch_walk(void)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < NODES; i++)
		n += nodes[i].v[0];
	return n;
}

int main(int argc, char **argv)
{
	unsigned long steps = (argc > 1 ? strtoul(argv[1], NULL, 10) : 1) * 1000000ul;
	nodes = malloc((size_t)NODES * sizeof *nodes);
	if (!nodes)
		return 1;
	ch_build();
	uint64_t n = ch_chase(steps) + ch_walk();
	printf("%llu\n", (unsigned long long)(n & 0xffff));
	free(nodes);
	return 0;
}
