package dev.symbiont.amp;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.HostTransfer;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.nn.Parameter;
import dev.symbiont.optim.Optimizer;
import dev.symbiont.optim.StateDictException;
import dev.symbiont.optim.StateScalars;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Dynamic loss scaling for float16 training, with torch.cuda.amp.GradScaler's semantics.
 * Small gradients underflow to 0 in float16; multiplying the loss by a large scale S moves
 * them into range, and dividing the gradients by S before the step undoes it. When S is too
 * large some gradient overflows to inf: that step is skipped and S halves; after
 * {@code growthInterval} clean steps in a row S doubles, so it tracks the largest safe value.
 * <pre>
 *   scaler.scale(loss).backward();
 *   scaler.unscale(optimizer);                  // optional: to clip the true gradients
 *   GradClip.clipGlobalNorm(optimizer.parameters().values(), 1.0);
 *   scaler.step(optimizer);                     // skipped when a gradient is inf or NaN
 *   scaler.update();
 *   optimizer.zeroGrad();
 * </pre>
 * The scale is kept in float32 like PyTorch's; with the default factors it stays a power of
 * two, so scaling and unscaling are exact.
 */
public final class GradScaler {
    private final boolean enabled;
    private final float growthFactor, backoffFactor;
    private final int growthInterval;
    private float scale;
    private long growthTracker;
    /** Optimizers unscaled since the last update, each with whether it found a non-finite gradient. */
    private final Map<Optimizer, Boolean> foundInf = new IdentityHashMap<>();
    private final Set<Optimizer> stepped = Collections.newSetFromMap(new IdentityHashMap<>());

    /** PyTorch's defaults: scale 2^16, growth 2 every 2000 clean steps, backoff 0.5. */
    public GradScaler() {
        this(65536.0, 2.0, 0.5, 2000);
    }

    public GradScaler(double initScale, double growthFactor, double backoffFactor, int growthInterval) {
        this(true, initScale, growthFactor, backoffFactor, growthInterval);
    }

    private GradScaler(boolean enabled, double initScale, double growthFactor, double backoffFactor, int growthInterval) {
        if (!(initScale > 0 && initScale <= Float.MAX_VALUE)) {
            throw new IllegalArgumentException("GradScaler: initial scale must be a finite float32 > 0, got " + initScale);
        }
        if (!(growthFactor > 1) || Double.isInfinite(growthFactor)) {
            throw new IllegalArgumentException("GradScaler: growth factor must be a finite value > 1, got " + growthFactor);
        }
        if (!(backoffFactor > 0 && backoffFactor < 1)) {
            throw new IllegalArgumentException("GradScaler: backoff factor must be in (0, 1), got " + backoffFactor);
        }
        if (growthInterval < 1) throw new IllegalArgumentException("GradScaler: growth interval must be >= 1, got " + growthInterval);
        this.enabled = enabled;
        this.scale = (float) initScale;
        this.growthFactor = (float) growthFactor;
        this.backoffFactor = (float) backoffFactor;
        this.growthInterval = growthInterval;
    }

    /** A scaler that does nothing (float32 or bfloat16 training): the same loop runs with or without scaling. */
    public static GradScaler disabled() {
        return new GradScaler(false, 1.0, 2.0, 0.5, 2000);
    }

    public boolean isEnabled() { return enabled; }

    /** The current scale S. */
    public double currentScale() { return scale; }

    /** Clean steps since the scale last changed. */
    public long growthTracker() { return growthTracker; }

    /** {@code loss · S}: back-propagate this instead of the loss. */
    public Tensor scale(Tensor loss) {
        return enabled ? loss.mul(scale) : loss;
    }

    /**
     * Divides the optimizer's gradients by S and records whether any is inf or NaN. Call it at
     * most once per optimizer between updates, and only when the true gradients are needed
     * before the step (clipping); {@link #step} calls it otherwise.
     */
    public void unscale(Optimizer optimizer) {
        if (!enabled) return;
        if (foundInf.containsKey(optimizer)) {
            throw new IllegalStateException("GradScaler.unscale: already called for " + optimizer.name() + " since the last update()");
        }
        if (stepped.contains(optimizer)) {
            throw new IllegalStateException("GradScaler.unscale: called for " + optimizer.name() + " after step(); call update() first");
        }
        float inverse = (float) (1.0 / scale); // PyTorch: scale.double().reciprocal().float()
        try (var scope = GradMode.disabled()) {
            Tensor nonFinite = null;
            for (Parameter p : optimizer.parameters().values()) {
                Tensor g = p.grad();
                if (g == null) continue;
                Tensor unscaled = g.mul(inverse);
                p.value().setGrad(unscaled);
                // x·0 is 0 for finite x and NaN for inf or NaN: one sum per gradient flags any of them,
                // and a single read-back at the end answers for all.
                Tensor flag = unscaled.mul(0.0).sum();
                nonFinite = nonFinite == null ? flag : nonFinite.add(flag);
            }
            try (var read = HostTransfer.OVERFLOW_CHECK.allow()) {
                foundInf.put(optimizer, nonFinite != null && Float.isNaN(nonFinite.item()));
            }
        }
    }

    /**
     * Unscales the gradients if {@link #unscale} was not called, then steps the optimizer unless
     * a gradient was inf or NaN. Returns whether the optimizer stepped.
     */
    public boolean step(Optimizer optimizer) {
        if (!enabled) {
            optimizer.step();
            return true;
        }
        if (stepped.contains(optimizer)) {
            throw new IllegalStateException("GradScaler.step: already called for " + optimizer.name() + " since the last update()");
        }
        if (!foundInf.containsKey(optimizer)) unscale(optimizer);
        boolean skip = foundInf.get(optimizer);
        stepped.add(optimizer);
        if (!skip) optimizer.step();
        return !skip;
    }

    /**
     * Adjusts the scale for the next iteration (PyTorch's _amp_update_scale_):
     * <pre>
     *   overflow this iteration:  S = S · backoff, tracker = 0
     *   otherwise:                tracker += 1; when tracker = growthInterval, S = S · growth (if finite), tracker = 0
     * </pre>
     */
    public void update() {
        if (!enabled) return;
        if (foundInf.isEmpty()) {
            throw new IllegalStateException("GradScaler.update: no unscale() or step() since the last update()");
        }
        if (foundInf.containsValue(true)) {
            scale *= backoffFactor;
            growthTracker = 0;
        } else if (++growthTracker == growthInterval) {
            float grown = scale * growthFactor;
            // Growth that would overflow float32 is dropped: the scale could never come back from inf.
            if (Float.isFinite(grown)) scale = grown;
            growthTracker = 0;
        }
        foundInf.clear();
        stepped.clear();
    }

    /** {@code scale} (float32 scalar) and {@code growth_tracker} (int64 scalar), as PyTorch saves them. */
    public Map<String, Tensor> stateDict() {
        Map<String, Tensor> out = new LinkedHashMap<>();
        out.put("scale", Tensor.fromArray(new float[] {scale}, new int[0]));
        out.put("growth_tracker", StateScalars.ofLong(growthTracker));
        return out;
    }

    /** Restores {@link #stateDict()}'s output; a {@link StateDictException} lists any key that does not fit. */
    public void loadStateDict(Map<String, Tensor> dict) {
        Map<String, StateDictException.Expected> expected = new LinkedHashMap<>();
        expected.put("scale", new StateDictException.Expected(DType.FLOAT32, new int[0]));
        expected.put("growth_tracker", StateScalars.SPEC);
        StateDictException.requireMatch("GradScaler", expected, dict);
        float loadedScale = dict.get("scale").item();
        long loadedTracker = StateScalars.toLong(dict.get("growth_tracker"));
        if (!(loadedScale > 0 && Float.isFinite(loadedScale)) || loadedTracker < 0) {
            throw new IllegalArgumentException("GradScaler.loadStateDict: scale must be finite and > 0 and growth_tracker >= 0, got "
                    + loadedScale + " and " + loadedTracker);
        }
        scale = loadedScale;
        growthTracker = loadedTracker;
    }

    @Override
    public String toString() {
        return enabled ? "GradScaler(scale=" + scale + ", growth_tracker=" + growthTracker + ")" : "GradScaler(disabled)";
    }
}
