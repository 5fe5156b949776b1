/*
 * vPMU benchmark: a small bytecode interpreter (indirect branches, a
 * dispatch loop).  Stages: compile a program to bytecode, run it (a loop
 * computing a sum of a polynomial with a conditional), run a second
 * program (a sieve over an array).  Deterministic.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { PUSH, LOAD, STORE, ADD, SUB, MUL, MOD, JNZ, JMP, LT, DUP, POP, HALT, SLOAD, SSTORE };

typedef struct {
	int op, arg;
} ins;

static ins prog_a[64], prog_b[64];
static int64_t vars[8];
static int64_t mem[1 << 16];

static int emit(ins *p, int n, int op, int arg)
{
	p[n].op = op;
	p[n].arg = arg;
	return n + 1;
}

void in_compile(void)
{
	int n = 0;
	/* v0 = 600000; v1 = 0; do { v1 += (v0*v0 % 7 < 3) ? v0 : 1; } while (--v0) */
	n = emit(prog_a, n, PUSH, 600000); n = emit(prog_a, n, STORE, 0);
	n = emit(prog_a, n, PUSH, 0); n = emit(prog_a, n, STORE, 1);
	int top = n;
	n = emit(prog_a, n, LOAD, 0); n = emit(prog_a, n, DUP, 0); n = emit(prog_a, n, MUL, 0);
	n = emit(prog_a, n, PUSH, 7); n = emit(prog_a, n, MOD, 0); n = emit(prog_a, n, PUSH, 3);
	n = emit(prog_a, n, LT, 0);
	int jz = n;
	n = emit(prog_a, n, JNZ, 0);
	n = emit(prog_a, n, PUSH, 1); n = emit(prog_a, n, JMP, 0);
	int add_v0 = n;
	n = emit(prog_a, n, LOAD, 0);
	int join = n;
	n = emit(prog_a, n, LOAD, 1); n = emit(prog_a, n, ADD, 0); n = emit(prog_a, n, STORE, 1);
	n = emit(prog_a, n, LOAD, 0); n = emit(prog_a, n, PUSH, 1); n = emit(prog_a, n, SUB, 0);
	n = emit(prog_a, n, DUP, 0); n = emit(prog_a, n, STORE, 0);
	n = emit(prog_a, n, JNZ, top);
	n = emit(prog_a, n, HALT, 0);
	prog_a[jz].arg = add_v0;
	prog_a[add_v0 - 1].arg = join;
	/* sieve: for i in 2..N: if !mem[i]: for j = 2i; j < N; j += i: mem[j] = 1 */
	n = 0;
	n = emit(prog_b, n, PUSH, 2); n = emit(prog_b, n, STORE, 0);
	int outer = n;
	n = emit(prog_b, n, LOAD, 0); n = emit(prog_b, n, SLOAD, 0);
	int skip = n;
	n = emit(prog_b, n, JNZ, 0);
	n = emit(prog_b, n, LOAD, 0); n = emit(prog_b, n, DUP, 0); n = emit(prog_b, n, ADD, 0);
	n = emit(prog_b, n, STORE, 1);
	int inner = n;
	n = emit(prog_b, n, LOAD, 1); n = emit(prog_b, n, PUSH, 1 << 16); n = emit(prog_b, n, LT, 0);
	int inner_end = n;
	n = emit(prog_b, n, JNZ, 0);
	n = emit(prog_b, n, JMP, 0);
	int body = n;
	n = emit(prog_b, n, PUSH, 1); n = emit(prog_b, n, LOAD, 1); n = emit(prog_b, n, SSTORE, 0);
	n = emit(prog_b, n, LOAD, 1); n = emit(prog_b, n, LOAD, 0); n = emit(prog_b, n, ADD, 0);
	n = emit(prog_b, n, STORE, 1); n = emit(prog_b, n, JMP, inner);
	int next = n;
	n = emit(prog_b, n, LOAD, 0); n = emit(prog_b, n, PUSH, 1); n = emit(prog_b, n, ADD, 0);
	n = emit(prog_b, n, DUP, 0); n = emit(prog_b, n, STORE, 0);
	n = emit(prog_b, n, PUSH, 1 << 16); n = emit(prog_b, n, LT, 0); n = emit(prog_b, n, JNZ, outer);
	n = emit(prog_b, n, HALT, 0);
	prog_b[skip].arg = next;
	prog_b[inner_end].arg = body;
	prog_b[inner_end + 1].arg = next;
}

int64_t in_run(const ins *p)
{
	int64_t st[64];
	int sp = 0, pc = 0;
	for (;;) {
		const ins *i = &p[pc++];
		switch (i->op) {
		case PUSH: st[sp++] = i->arg; break;
		case LOAD: st[sp++] = vars[i->arg]; break;
		case STORE: vars[i->arg] = st[--sp]; break;
		case ADD: sp--; st[sp - 1] += st[sp]; break;
		case SUB: sp--; st[sp - 1] -= st[sp]; break;
		case MUL: sp--; st[sp - 1] *= st[sp]; break;
		case MOD: sp--; st[sp - 1] %= st[sp]; break;
		case LT: sp--; st[sp - 1] = st[sp - 1] < st[sp]; break;
		case DUP: st[sp] = st[sp - 1]; sp++; break;
		case POP: sp--; break;
		case JNZ: if (st[--sp]) pc = i->arg; break;
		case JMP: pc = i->arg; break;
		case SLOAD: st[sp - 1] = mem[st[sp - 1]]; break;
		case SSTORE: sp -= 2; mem[st[sp + 1]] = st[sp]; break;
		case HALT: return vars[1];
		}
	}
}

int main(void)
{
	in_compile();
	int64_t a = in_run(prog_a);
	in_run(prog_b);
	int64_t primes = 0;
	for (int i = 2; i < (1 << 16); i++)
		primes += !mem[i];
	printf("%lld %lld\n", (long long)a, (long long)primes);
	return 0;
}
