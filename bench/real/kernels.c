/*
 * A numeric kernel sequence for bench/real-programs.sh: four kernels with
 * different code run one after the other (dense matrix multiply, a 2-D
 * Jacobi stencil, a sparse matrix-vector product over a random pattern,
 * and a scalar recurrence), each about SECONDS (argv[1], default 1.0) of
 * CPU.  Before each kernel it appends the wall-clock time to the file
 * $MARKS, so the benchmark knows where each stage begins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void mark(void)
{
	const char *path = getenv("MARKS");
	FILE *f = path ? fopen(path, "a") : NULL;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (f) {
		fprintf(f, "%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
		fclose(f);
	}
}

#define N 160
static double a[N][N], b[N][N], c[N][N];

static double matmul(double secs)
{
	double t0 = cpu_now(), s = 0;
	while (cpu_now() - t0 < secs) {
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++) {
				double x = 0;
				for (int k = 0; k < N; k++)
					x += a[i][k] * b[k][j];
				c[i][j] = x;
			}
		s += c[N / 2][N / 3];
	}
	return s;
}

#define G 512
static double u[G][G], v[G][G];

static double jacobi(double secs)
{
	double t0 = cpu_now();
	while (cpu_now() - t0 < secs) {
		for (int i = 1; i < G - 1; i++)
			for (int j = 1; j < G - 1; j++)
				v[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
		for (int i = 1; i < G - 1; i++)
			for (int j = 1; j < G - 1; j++)
				u[i][j] = v[i][j];
	}
	return u[G / 2][G / 2];
}

#define R 200000
#define NZ 8
static int col[R * NZ];
static double val[R * NZ], x[R], y[R];

static double spmv(double secs)
{
	double t0 = cpu_now(), s = 0;
	while (cpu_now() - t0 < secs) {
		for (int i = 0; i < R; i++) {
			double acc = 0;
			for (int k = 0; k < NZ; k++)
				acc += val[i * NZ + k] * x[col[i * NZ + k]];
			y[i] = acc;
		}
		s += y[R / 2];
	}
	return s;
}

static double recurrence(double secs)
{
	double t0 = cpu_now(), z = 0.5;
	while (cpu_now() - t0 < secs)
		for (int i = 0; i < 1000000; i++)
			z = 3.9 * z * (1 - z) + (z > 0.99 ? -0.5 : 0);
	return z;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	srand(1);
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			a[i][j] = rand() / (double)RAND_MAX;
			b[i][j] = rand() / (double)RAND_MAX;
		}
	for (int i = 0; i < G; i++)
		for (int j = 0; j < G; j++)
			u[i][j] = (i * 7 + j * 3) % 11;
	for (int i = 0; i < R * NZ; i++) {
		col[i] = rand() % R;
		val[i] = rand() / (double)RAND_MAX;
	}
	for (int i = 0; i < R; i++)
		x[i] = i % 13;
	double s = 0;
	mark();
	s += matmul(secs);
	mark();
	s += jacobi(secs);
	mark();
	s += spmv(secs);
	mark();
	s += recurrence(secs);
	printf("%g\n", s);
	return 0;
}
