package dev.symbiont.core.ops;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.Autograd;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.FusedOps;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

import java.util.Arrays;

/**
 * softmax, log_softmax, layer_norm and rms_norm through the backend's fused tier. FLOP
 * estimates count the element passes of the reference composition (max, subtract, exp, sum,
 * divide for softmax), so a fused kernel and the default it replaces report the same work.
 */
public final class Normalization {
    private Normalization() {}

    public static Tensor softmax(Tensor x, int dim) {
        Checks.float32("softmax", x);
        int d = x.layout().dim("softmax", dim);
        try (var p = Profiled.pass("softmax", OpCategory.NORMALIZATION, x, 5)) {
            Backend be = x.backend();
            Tensor y;
            try (var scope = GradMode.disabled()) { y = be.softmax(x.detach(), d); }
            return Autograd.record("softmax", y, g -> new Tensor[] {be.softmaxBackward(y, g, d)}, x);
        }
    }

    public static Tensor logSoftmax(Tensor x, int dim) {
        Checks.float32("log_softmax", x);
        int d = x.layout().dim("log_softmax", dim);
        try (var p = Profiled.pass("log_softmax", OpCategory.NORMALIZATION, x, 5)) {
            Backend be = x.backend();
            Tensor y;
            try (var scope = GradMode.disabled()) { y = be.logSoftmax(x.detach(), d); }
            return Autograd.record("log_softmax", y, g -> new Tensor[] {be.logSoftmaxBackward(y, g, d)}, x);
        }
    }

    /** Normalises over the trailing {@code normalizedShape} dims; weight and bias have that shape or are null. */
    public static Tensor layerNorm(Tensor x, int[] normalizedShape, Tensor weight, Tensor bias, double eps) {
        Checks.float32("layer_norm", x, weight, bias);
        Checks.sameBackend("layer_norm", x, weight, bias);
        int cols = trailing("layer_norm", x, normalizedShape, weight, bias);
        int rows = x.numel() / Math.max(cols, 1);
        // mean, subtract, square, mean, scale: 5 passes; weight and bias one more each.
        long passes = 5 + (weight == null ? 0 : 1) + (bias == null ? 0 : 1);
        try (var p = Profiler.op("layer_norm", OpCategory.NORMALIZATION, passes * x.numel(),
                2 * Profiled.bytes(x) + Profiled.bytes(weight) + Profiled.bytes(bias))) {
            Backend be = x.backend();
            Tensor x2 = x.detach().reshape(rows, cols);
            Tensor w = weight == null ? null : weight.detach().reshape(cols);
            Tensor b = bias == null ? null : bias.detach().reshape(cols);
            FusedOps.NormResult r;
            try (var scope = GradMode.disabled()) { r = be.layerNorm(x2, w, b, eps); }
            Tensor y = r.output().reshape(x.shape());
            // Save the statistics, not the result record: that would keep the output alive too.
            Tensor mean = r.mean(), rstd = r.rstd();
            return Autograd.record("layer_norm", y, g -> {
                FusedOps.NormGrads gr = be.layerNormBackward(g.reshape(rows, cols), x2, w, b, mean, rstd);
                return new Tensor[] {gr.input().reshape(x.shape()),
                        gr.weight() == null ? null : gr.weight().reshape(weight.shape()),
                        gr.bias() == null ? null : gr.bias().reshape(bias.shape())};
            }, x, weight, bias);
        }
    }

    public static Tensor rmsNorm(Tensor x, int[] normalizedShape, Tensor weight, double eps) {
        Checks.float32("rms_norm", x, weight);
        Checks.sameBackend("rms_norm", x, weight);
        int cols = trailing("rms_norm", x, normalizedShape, weight, null);
        int rows = x.numel() / Math.max(cols, 1);
        // square, mean, scale: 3 passes; the weight one more.
        long passes = 3 + (weight == null ? 0 : 1);
        try (var p = Profiler.op("rms_norm", OpCategory.NORMALIZATION, passes * x.numel(), 2 * Profiled.bytes(x) + Profiled.bytes(weight))) {
            Backend be = x.backend();
            Tensor x2 = x.detach().reshape(rows, cols);
            Tensor w = weight == null ? null : weight.detach().reshape(cols);
            FusedOps.NormResult r;
            try (var scope = GradMode.disabled()) { r = be.rmsNorm(x2, w, eps); }
            Tensor y = r.output().reshape(x.shape());
            Tensor rstd = r.rstd();
            return Autograd.record("rms_norm", y, g -> {
                FusedOps.NormGrads gr = be.rmsNormBackward(g.reshape(rows, cols), x2, w, rstd);
                return new Tensor[] {gr.input().reshape(x.shape()), gr.weight() == null ? null : gr.weight().reshape(weight.shape())};
            }, x, weight);
        }
    }

    /** Checks that x ends with normalizedShape and the parameters have it; returns its element count. */
    private static int trailing(String op, Tensor x, int[] normalizedShape, Tensor weight, Tensor bias) {
        int[] shape = x.shape();
        int lead = shape.length - normalizedShape.length;
        boolean ok = lead >= 0 && normalizedShape.length > 0;
        for (int i = 0; ok && i < normalizedShape.length; i++) ok = shape[lead + i] == normalizedShape[i];
        if (!ok) {
            throw new IllegalArgumentException(op + ": normalized shape " + Arrays.toString(normalizedShape)
                    + " does not match the trailing dims of input shape " + Arrays.toString(shape));
        }
        for (Tensor p : new Tensor[] {weight, bias}) {
            if (p != null && !Arrays.equals(p.shape(), normalizedShape)) {
                throw new IllegalArgumentException(op + ": parameter shape " + Arrays.toString(p.shape())
                        + " differs from normalized shape " + Arrays.toString(normalizedShape));
            }
        }
        int n = 1;
        for (int d : normalizedShape) n *= d;
        return n;
    }
}
