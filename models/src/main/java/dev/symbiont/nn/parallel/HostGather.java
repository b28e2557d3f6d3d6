package dev.symbiont.nn.parallel;

import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.Reduction;

/**
 * All-gathers of small host values built on the communicator's blocking host all-reduce: each rank
 * writes its values into its own slot of a zeroed array and the SUM leaves every slot's values
 * on every rank, exactly (a value plus zeros). For the agreements data parallelism needs outside
 * the gradient buckets: model signatures, which ranks missed which gradients, rank 0's bucket order.
 */
final class HostGather {
    private HostGather() {}

    /** Every rank's {@code mine}, by rank; {@code mine} must have the same length on every rank. */
    static double[][] gather(Communicator comm, double[] mine) {
        int n = mine.length, size = comm.size();
        double[] all = new double[n * size];
        System.arraycopy(mine, 0, all, comm.rank() * n, n);
        comm.allReduce(all, Reduction.SUM);
        double[][] out = new double[size][];
        for (int r = 0; r < size; r++) out[r] = java.util.Arrays.copyOfRange(all, r * n, (r + 1) * n);
        return out;
    }

    /** Rank {@code root}'s {@code values} on every rank (the others pass arrays of the same length). */
    static double[] broadcast(Communicator comm, double[] values, int root) {
        double[] all = comm.rank() == root ? values.clone() : new double[values.length];
        comm.allReduce(all, Reduction.SUM);
        return all;
    }

    /** Every rank's string, by rank: two exchanges, the lengths and then the characters. */
    static String[] strings(Communicator comm, String mine) {
        double[][] lengths = gather(comm, new double[] {mine.length()});
        int width = 1; // never an empty exchange
        for (double[] l : lengths) width = Math.max(width, (int) l[0]);
        double[] chars = new double[width];
        for (int i = 0; i < mine.length(); i++) chars[i] = mine.charAt(i);
        double[][] all = gather(comm, chars);
        String[] out = new String[all.length];
        for (int r = 0; r < all.length; r++) {
            StringBuilder s = new StringBuilder((int) lengths[r][0]);
            for (int i = 0; i < (int) lengths[r][0]; i++) s.append((char) all[r][i]);
            out[r] = s.toString();
        }
        return out;
    }
}
