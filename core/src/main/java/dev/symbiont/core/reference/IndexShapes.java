package dev.symbiont.core.reference;

import dev.symbiont.core.Layout;

import java.util.Arrays;

/**
 * The shape rule gather and scatterAdd share on every backend: the index has the target's rank
 * and is no larger than it in every dim but the indexed one. Kept here so a device backend
 * refuses exactly what the reference refuses, with the same message.
 */
public final class IndexShapes {
    private IndexShapes() {}

    /** Throws naming {@code op}, both shapes and {@code dim} unless {@code index} fits {@code target} along {@code dim}. */
    public static void checkFits(String op, String indexName, Layout index, String targetName, Layout target, int dim) {
        boolean ok = index.rank() == target.rank();
        for (int d = 0; ok && d < index.rank(); d++) {
            if (d != dim && index.size(d) > target.size(d)) ok = false;
        }
        if (!ok) {
            throw new IllegalArgumentException(op + ": " + indexName + " shape " + Arrays.toString(index.shape())
                    + " does not fit " + targetName + " shape " + Arrays.toString(target.shape()) + " along dim " + dim);
        }
    }
}
