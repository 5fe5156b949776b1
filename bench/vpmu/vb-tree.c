/*
 * vPMU benchmark, a training program for the power fit: a binary search
 * tree of 512K 32-byte nodes (16 MiB, twice the LLC) in insertion order,
 * so that a node's children lie anywhere in the pool.  Every step down the
 * tree is a load whose address is the previous load's value and a branch
 * on a random key: latency-bound code whose core sits stalled on memory
 * most of its time, the kind of program the other training programs
 * (matmul, stream, sort, interp) lack.  Stages: insert random keys, look
 * random keys up (the deep levels miss the LLC, the top ones hit it), and
 * sum the keys in order (a recursive walk of the same scattered nodes,
 * without the mispredicted branches).  Deterministic.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NODES (1u << 19)
#define LOOKUPS (1u << 19)

struct tnode {
	uint64_t key, val;
	struct tnode *left, *right;
};

static struct tnode *pool, *root;
static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next_key(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

void tr_insert(void)
{
	for (uint32_t i = 0; i < NODES; i++) {
		struct tnode *n = &pool[i];
		n->key = next_key() >> 8;
		n->val = i;
		n->left = n->right = NULL;
		struct tnode **at = &root;
		while (*at)
			at = n->key < (*at)->key ? &(*at)->left : &(*at)->right;
		*at = n;
	}
}

uint64_t tr_lookup(void)
{
	uint64_t found = 0;
	for (uint32_t i = 0; i < LOOKUPS; i++) {
		/* every other key is one inserted (a node picked by a
		 * multiplicative hash of i), the others fresh from the generator
		 * (almost never in the tree: a walk to a leaf) */
		uint64_t k = (i & 1) ? pool[(i * 2654435761u) & (NODES - 1)].key : next_key() >> 8;
		const struct tnode *p = root;
		while (p && p->key != k)
			p = k < p->key ? p->left : p->right;
		if (p)
			found += p->val;
	}
	return found;
}

static uint64_t sum_in_order(const struct tnode *p)
{
	uint64_t s = 0;
	while (p) {
		s += sum_in_order(p->left) + (p->key & 0xff);
		p = p->right;
	}
	return s;
}

uint64_t tr_sum(void)
{
	return sum_in_order(root);
}

int main(void)
{
	pool = malloc((size_t)NODES * sizeof *pool);
	if (!pool)
		return 1;
	tr_insert();
	uint64_t n = tr_lookup() + tr_sum();
	printf("%llu\n", (unsigned long long)(n & 0xffff));
	free(pool);
	return 0;
}
