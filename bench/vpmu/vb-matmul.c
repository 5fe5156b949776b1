/*
 * vPMU benchmark: dense matrix multiply (compute kernel).  Stages: fill the
 * matrices, a naive i-k-j product (cache friendly), a transposed-access
 * product (strided, cache hostile), a checksum.  Deterministic.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 160

static double a[N][N], b[N][N], c[N][N];

void mm_fill(void)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			a[i][j] = (i * 31 + j * 17) % 97 * 0.01;
			b[i][j] = (i * 13 + j * 7) % 89 * 0.02;
		}
}

void mm_ikj(void)
{
	for (int i = 0; i < N; i++)
		for (int k = 0; k < N; k++) {
			double r = a[i][k];
			for (int j = 0; j < N; j++)
				c[i][j] += r * b[k][j];
		}
}

void mm_strided(void)
{
	for (int j = 0; j < N; j++)
		for (int i = 0; i < N; i++) {
			double s = 0;
			for (int k = 0; k < N; k++)
				s += a[i][k] * b[k][j];
			c[i][j] = s;
		}
}

int main(void)
{
	mm_fill();
	for (int r = 0; r < 2; r++) {
		mm_ikj();
		mm_strided();
	}
	double s = 0;
	for (int i = 0; i < N; i++)
		s += c[i][i];
	printf("%.3f\n", s);
	return 0;
}
