package dev.symbiont.bench;

import dev.symbiont.cpu.kernels.Parallel;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Ways of walking a linear scan's backward over contiguous (outer, len, inner) arrays from
 * h_{−1} = 0 — gh_t = g_t + a_{t+1}·gh_{t+1}, db = gh, da_t = gh_t·h_{t−1} — that were tried and
 * not kept, measured by {@link LinearScanProfile} against the kernel kept ({@code LinearRecurrence}:
 * whole rows on the Vector API, the carry read from db's previous row): the scalar loops it
 * replaced, narrower channel blocks, several rows per step, and a narrow block walked over all of
 * L with its carry in registers. inner must be a multiple of the block and of the vector length.
 */
final class AdjointCandidates {
    private AdjointCandidates() {}

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();

    enum Kind {
        THREE_LOOPS("scalar, three loops per row (before)", 0),
        VECTOR_256("vector, 256-channel blocks", 256),
        VECTOR_FOUR_ROWS("vector, four rows per step, carry in registers", 0),
        VECTOR_REGS("vector, four vectors of channels walked whole, carry in registers", 4 * L);

        private final String label;
        private final int block;

        Kind(String label, int block) {
            this.label = label;
            this.block = block;
        }

        String label() { return label; }
    }

    static void run(Kind k, int outer, int len, int inner, float[] a, float[] g, float[] h, float[] da, float[] db) {
        int block = k.block == 0 ? inner : k.block, perRow = inner / block;
        Parallel.forRange(outer * perRow, 1, (from, to) -> {
            for (int item = from; item < to; item++) {
                int o = item / perRow, i0 = (item % perRow) * block, i1 = i0 + block, base = o * len * inner;
                switch (k) {
                    case THREE_LOOPS -> threeLoops(len, inner, base, i0, i1, a, g, h, da, db);
                    case VECTOR_256 -> vectorRow(len, inner, base, i0, i1, a, g, h, da, db);
                    case VECTOR_FOUR_ROWS -> vectorFourRows(len, inner, base, i0, i1, a, g, h, da, db);
                    case VECTOR_REGS -> vectorRegs(len, inner, base, i0, a, g, h, da, db);
                }
            }
        });
    }

    private static void threeLoops(int len, int inner, int base, int i0, int i1, float[] av, float[] gv, float[] hv, float[] da, float[] db) {
        int width = i1 - i0;
        float[] gh = new float[width];
        for (int t = len - 1; t >= 0; t--) {
            int row = base + t * inner + i0;
            if (t == len - 1) {
                System.arraycopy(gv, row, gh, 0, width);
            } else {
                int ar = row + inner;
                for (int i = 0; i < width; i++) gh[i] = gv[row + i] + av[ar + i] * gh[i];
            }
            System.arraycopy(gh, 0, db, row, width);
            if (t > 0) {
                int hr = row - inner;
                for (int i = 0; i < width; i++) da[row + i] = gh[i] * hv[hr + i];
            }
        }
        java.util.Arrays.fill(da, base + i0, base + i1, 0f);
    }

    private static void vectorRow(int len, int inner, int base, int i0, int i1, float[] a, float[] g, float[] h, float[] da, float[] db) {
        int last = base + (len - 1) * inner;
        for (int i = i0; i < i1; i += L) {
            FloatVector gh = FloatVector.fromArray(S, g, last + i);
            gh.intoArray(db, last + i);
            if (len > 1) gh.mul(FloatVector.fromArray(S, h, last - inner + i)).intoArray(da, last + i);
        }
        for (int t = len - 2; t >= 0; t--) {
            int row = base + t * inner, next = row + inner, hr = row - inner;
            for (int i = i0; i < i1; i += L) {
                FloatVector gh = FloatVector.fromArray(S, a, next + i).fma(FloatVector.fromArray(S, db, next + i), FloatVector.fromArray(S, g, row + i));
                gh.intoArray(db, row + i);
                if (t > 0) gh.mul(FloatVector.fromArray(S, h, hr + i)).intoArray(da, row + i);
            }
        }
        java.util.Arrays.fill(da, base + i0, base + i1, 0f);
    }

    private static void vectorFourRows(int len, int inner, int base, int i0, int i1, float[] a, float[] g, float[] h, float[] da, float[] db) {
        // the carry of one vector of channels through four rows per inner step, a row-block at a time
        int rowsPerBlock = 4;
        float[] carry = new float[i1 - i0];
        int t = len - 1;
        while (t >= 0) {
            int rows = Math.min(rowsPerBlock, t + 1);
            for (int i = i0; i < i1; i += L) {
                FloatVector gh = FloatVector.fromArray(S, carry, i - i0);
                for (int k = 0; k < rows; k++) {
                    int tt = t - k, row = base + tt * inner + i;
                    FloatVector gg = FloatVector.fromArray(S, g, row);
                    gh = tt == len - 1 ? gg : FloatVector.fromArray(S, a, row + inner).fma(gh, gg);
                    gh.intoArray(db, row);
                    if (tt > 0) gh.mul(FloatVector.fromArray(S, h, row - inner)).intoArray(da, row);
                }
                gh.intoArray(carry, i - i0);
            }
            t -= rows;
        }
        java.util.Arrays.fill(da, base + i0, base + i1, 0f);
    }

    private static void vectorRegs(int len, int inner, int base, int i0, float[] a, float[] g, float[] h, float[] da, float[] db) {
        int last = base + (len - 1) * inner + i0;
        FloatVector g0 = FloatVector.fromArray(S, g, last), g1 = FloatVector.fromArray(S, g, last + L),
                g2 = FloatVector.fromArray(S, g, last + 2 * L), g3 = FloatVector.fromArray(S, g, last + 3 * L);
        for (int t = len - 1; t >= 0; t--) {
            int row = base + t * inner + i0;
            if (t < len - 1) {
                int next = row + inner;
                g0 = FloatVector.fromArray(S, a, next).fma(g0, FloatVector.fromArray(S, g, row));
                g1 = FloatVector.fromArray(S, a, next + L).fma(g1, FloatVector.fromArray(S, g, row + L));
                g2 = FloatVector.fromArray(S, a, next + 2 * L).fma(g2, FloatVector.fromArray(S, g, row + 2 * L));
                g3 = FloatVector.fromArray(S, a, next + 3 * L).fma(g3, FloatVector.fromArray(S, g, row + 3 * L));
            }
            g0.intoArray(db, row);
            g1.intoArray(db, row + L);
            g2.intoArray(db, row + 2 * L);
            g3.intoArray(db, row + 3 * L);
            if (t > 0) {
                int hr = row - inner;
                g0.mul(FloatVector.fromArray(S, h, hr)).intoArray(da, row);
                g1.mul(FloatVector.fromArray(S, h, hr + L)).intoArray(da, row + L);
                g2.mul(FloatVector.fromArray(S, h, hr + 2 * L)).intoArray(da, row + 2 * L);
                g3.mul(FloatVector.fromArray(S, h, hr + 3 * L)).intoArray(da, row + 3 * L);
            } else {
                FloatVector z = FloatVector.zero(S);
                z.intoArray(da, row);
                z.intoArray(da, row + L);
                z.intoArray(da, row + 2 * L);
                z.intoArray(da, row + 3 * L);
            }
        }
    }
}
