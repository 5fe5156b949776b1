/*
 * vPMU benchmark: an open-addressing hash table of 1M slots (16 MiB, random
 * accesses beyond the LLC).  Stages: insert, lookup hits, lookup misses.
 * Deterministic.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS (1u << 20)
#define KEYS (SLOTS / 2)

struct slot {
	uint64_t key, val;
};

static struct slot *tab;

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

void ht_insert(void)
{
	for (uint64_t i = 1; i <= KEYS; i++) {
		uint64_t h = mix(i) & (SLOTS - 1);
		while (tab[h].key)
			h = (h + 1) & (SLOTS - 1);
		tab[h].key = i;
		tab[h].val = i * 3;
	}
}

uint64_t ht_lookup(uint64_t first, uint64_t n)
{
	uint64_t sum = 0;
	for (uint64_t i = first; i < first + n; i++) {
		uint64_t h = mix(i) & (SLOTS - 1);
		while (tab[h].key && tab[h].key != i)
			h = (h + 1) & (SLOTS - 1);
		sum += tab[h].val;
	}
	return sum;
}

int main(void)
{
	tab = calloc(SLOTS, sizeof *tab);
	if (!tab)
		return 1;
	ht_insert();
	uint64_t s = ht_lookup(1, KEYS / 2) + ht_lookup(KEYS + 1, KEYS / 2);
	printf("%llu\n", (unsigned long long)(s & 0xffff));
	free(tab);
	return 0;
}
