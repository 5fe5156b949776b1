/*
 * vPMU benchmark: a 2-D five-point Jacobi stencil on a 1024x1024 grid
 * (16 MiB for two grids: streaming with reuse), then a reduction.
 * Deterministic.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 1024

static double (*g0)[N], (*g1)[N];

void sc_init(void)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			g0[i][j] = (i == 0 || j == 0) ? 1.0 : 0.0;
}

void sc_sweep(double (*in)[N], double (*out)[N])
{
	for (int i = 1; i < N - 1; i++)
		for (int j = 1; j < N - 1; j++)
			out[i][j] = 0.25 * (in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
}

double sc_norm(double (*g)[N])
{
	double s = 0;
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			s += g[i][j] * g[i][j];
	return s;
}

int main(void)
{
	g0 = calloc(N, sizeof *g0);
	g1 = calloc(N, sizeof *g1);
	if (!g0 || !g1)
		return 1;
	sc_init();
	for (int it = 0; it < 6; it++) {
		sc_sweep(g0, g1);
		sc_sweep(g1, g0);
	}
	printf("%.6f\n", sc_norm(g0));
	free(g0);
	free(g1);
	return 0;
}
