/*
 * The peer of MpiAllReduceReport: MPI_Allreduce of float32 sums timed the same way from C, so
 * the Java binding's overhead is a difference measured in one run. Sizes 8 B .. 64 MiB (doubling);
 * per size: warm-up, then ROUNDS rounds of (barrier, n iterations, the slowest rank's mean time);
 * prints the median round, which one stall of this process or its peer (a shared machine, a JIT
 * or GC thread on the Java side) does not move.
 * Argument: the largest size in bytes (default 64 MiB). Build and run: benchmarks/mpi-allreduce.sh
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 3

static int iterations(long bytes) {
    if (bytes <= 65536) return 1000;
    if (bytes <= 1 << 20) return 100;
    return 10;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, n, sizeof *v, compare);
    return v[n / 2];
}

int main(int argc, char **argv) {
    /* Argument 2 "serialized": initialise as the Java binding does (its MPI thread needs MPI_THREAD_SERIALIZED). */
    int provided, serialized = argc > 2 && strcmp(argv[2], "serialized") == 0;
    const char *impl = serialized ? "c-serialized" : "c";
    if (serialized) MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    else MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long max = argc > 1 ? atol(argv[1]) : 64L << 20;   /* the largest size, bytes */
    float *buf = malloc(max);
    for (long i = 0; i < max / 4; i++) buf[i] = 1.0f;
    for (long bytes = 8; bytes <= max; bytes *= 2) {
        int count = (int) (bytes / 4), n = iterations(bytes);
        for (int i = 0; i < n / 10 + 1; i++) MPI_Allreduce(MPI_IN_PLACE, buf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        double rounds[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double start = MPI_Wtime();
            for (int i = 0; i < n; i++) MPI_Allreduce(MPI_IN_PLACE, buf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            double mine = (MPI_Wtime() - start) / n;
            MPI_Reduce(&mine, &rounds[r], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        }
        double slowest = median(rounds, ROUNDS);
        if (rank == 0) printf("allreduce impl=%s ranks=%d bytes=%ld us=%.3f gbps=%.3f\n", impl, size, bytes, slowest * 1e6, bytes / slowest / 1e9);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
