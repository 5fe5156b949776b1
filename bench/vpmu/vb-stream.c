/*
 * vPMU benchmark: STREAM-like kernels over arrays far larger than the LLC
 * (bandwidth bound).  Stages: copy, scale, triad.  Deterministic.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1u << 21) /* 16 MiB per array */

static double *x, *y, *z;

void st_copy(void)
{
	for (unsigned i = 0; i < N; i++)
		y[i] = x[i];
}

void st_scale(double k)
{
	for (unsigned i = 0; i < N; i++)
		z[i] = k * y[i];
}

void st_triad(double k)
{
	for (unsigned i = 0; i < N; i++)
		x[i] = y[i] + k * z[i];
}

int main(void)
{
	x = malloc(N * sizeof *x);
	y = malloc(N * sizeof *y);
	z = malloc(N * sizeof *z);
	if (!x || !y || !z)
		return 1;
	for (unsigned i = 0; i < N; i++)
		x[i] = i * 0.5;
	for (int r = 0; r < 2; r++) {
		st_copy();
		st_scale(1.5);
		st_triad(0.5);
	}
	printf("%.1f\n", x[N / 2]);
	free(x);
	free(y);
	free(z);
	return 0;
}
