package dev.symbiont.core.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;

import java.util.Arrays;

/** Argument checks shared by ops; each message names the op and what disagrees. */
public final class Checks {
    private Checks() {}

    /** All tensors live on the first one's backend. */
    public static void sameBackend(String op, Tensor... tensors) {
        Tensor first = null;
        for (Tensor t : tensors) {
            if (t == null) continue;
            if (first == null) { first = t; continue; }
            if (t.backend() != first.backend()) throw differentBackends(op, first, t);
        }
    }

    /** Names both devices; two instances of one device (made outside Backends) can only be told apart by the caller. */
    private static IllegalArgumentException differentBackends(String op, Tensor first, Tensor other) {
        String a = first.device().toString(), b = other.device().toString();
        boolean sameName = a.equals(b);
        String where = sameName
                ? "two instances of " + a + ": " + Arrays.toString(first.shape()) + " and " + Arrays.toString(other.shape())
                : a + " " + Arrays.toString(first.shape()) + " and " + b + " " + Arrays.toString(other.shape());
        String hint = sameName ? "tensor.to(backend)" : "tensor.to(\"" + a + "\")";
        return new IllegalArgumentException(op + ": tensors are on different backends (" + where + "); move one with " + hint);
    }

    /** Compute ops run on float32; storage types must be converted first. */
    public static void float32(String op, Tensor... tensors) {
        for (Tensor t : tensors) {
            if (t != null && t.dtype() != DType.FLOAT32) {
                throw new IllegalArgumentException(op + ": expected float32 but got " + t.dtype() + " tensor of shape "
                        + Arrays.toString(t.shape()) + "; convert it with to(DType.FLOAT32)");
            }
        }
    }

    public static void integer(String op, String what, Tensor t) {
        if (!t.dtype().isInteger()) {
            throw new IllegalArgumentException(op + ": " + what + " must be int32 or int64, got " + t.dtype()
                    + " of shape " + Arrays.toString(t.shape()));
        }
    }

    public static void rank(String op, String what, Tensor t, int rank) {
        if (t.dim() != rank) {
            throw new IllegalArgumentException(op + ": " + what + " must be " + rank + "-D, got shape " + Arrays.toString(t.shape()));
        }
    }

    /** numpy broadcasting of two shapes. */
    public static int[] broadcast(String op, int[] a, int[] b) {
        int rank = Math.max(a.length, b.length);
        int[] out = new int[rank];
        for (int i = 0; i < rank; i++) {
            int da = i - (rank - a.length) >= 0 ? a[i - (rank - a.length)] : 1;
            int db = i - (rank - b.length) >= 0 ? b[i - (rank - b.length)] : 1;
            if (da != db && da != 1 && db != 1) {
                throw new IllegalArgumentException(op + ": shapes " + Arrays.toString(a) + " and " + Arrays.toString(b)
                        + " cannot broadcast (dim " + i + ": " + da + " vs " + db + ")");
            }
            out[i] = da == 1 ? db : da;
        }
        Layout.numel(op, out);
        return out;
    }

    /** Sorted, distinct, normalised dims; null means all dims. */
    public static int[] dims(String op, int[] dims, int[] shape) {
        if (dims == null) {
            int[] all = new int[shape.length];
            for (int i = 0; i < all.length; i++) all[i] = i;
            return all;
        }
        int[] norm = new int[dims.length];
        for (int i = 0; i < dims.length; i++) norm[i] = dev.symbiont.core.Layout.normalizeDim(op, dims[i], shape.length, shape);
        Arrays.sort(norm);
        for (int i = 1; i < norm.length; i++) {
            if (norm[i] == norm[i - 1]) {
                throw new IllegalArgumentException(op + ": dim " + norm[i] + " repeated in " + Arrays.toString(dims));
            }
        }
        return norm;
    }
}
