package dev.symbiont.nn;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.linear.Linears;

/**
 * y = x Wᵀ + b, with W: (out, in) and b: (out) as in torch.nn.Linear, initialised the same
 * way: W ~ kaiming_uniform(a = √5), i.e. U(±1/√in), and b ~ U(±1/√in). Runs as one fused
 * {@link Linears#linear} (the bias added in the GEMM's epilogue).
 *
 * <p>An attached {@link LinearAdapter} (LoRA) adds its term to every output: the fused paths
 * ({@link #forwardGelu}, {@link #forwardSwiglu}, {@link #forwardSplit}, {@link #forwardRows}) then
 * compute the same values from {@link #forward} and the adapter, unfused, until it is merged or detached.
 */
public final class Linear extends Layer {
    private final int in, out;
    private final Parameter weight;
    private final Parameter bias;
    private LinearAdapter adapter;

    public Linear(int in, int out) { this(in, out, true, Seed.generator()); }

    public Linear(int in, int out, boolean bias, Generator g) {
        if (in <= 0 || out <= 0) throw new IllegalArgumentException("Linear: sizes must be positive, got in=" + in + ", out=" + out);
        this.in = in;
        this.out = out;
        this.weight = parameter("weight", Init.kaimingUniform(g, Math.sqrt(5), out, in));
        double bound = 1 / Math.sqrt(in);
        this.bias = bias ? parameter("bias", Init.uniform(g, -bound, bound, out)) : null;
    }

    /** x: (..., in) → (..., out). */
    @Override
    public Tensor forward(Tensor x) {
        checkInput(x);
        Tensor y = Linears.linear(x, weight.value(), bias == null ? null : bias.value());
        return adapted() ? y.add(adapter.delta(x)) : y;
    }

    /**
     * GELU(x Wᵀ + b) (erf form) as one fused {@link Linears#linearGelu}: the same values as
     * {@code forward(x).gelu()}, with backward keeping GELU′ instead of the pre-activation.
     *
     * <p>x: (..., in) → (..., out).
     */
    public Tensor forwardGelu(Tensor x) {
        checkInput(x);
        if (adapted()) return forward(x).gelu();
        return Linears.linearGelu(x, weight.value(), bias == null ? null : bias.value());
    }

    /**
     * SwiGLU's gate with {@code up}: SiLU(this(x)) ⊙ up(x) as one {@link Linears#linearSwiglu}
     * (both projections bias-free, of one shape) — the values of {@code forward(x).silu().mul(up.forward(x))}.
     *
     * @throws IllegalArgumentException when either has a bias or their shapes differ
     */
    public Tensor forwardSwiglu(Linear up, Tensor x) {
        checkInput(x);
        if (bias != null || up.bias != null || up.in != in || up.out != out) {
            throw new IllegalArgumentException("Linear(" + in + " → " + out + ").forwardSwiglu: the up projection must be a bias-free Linear("
                    + in + " → " + out + ") like this one, got Linear(" + up.in + " → " + up.out + (up.bias != null ? ", bias" : "") + ")"
                    + (bias != null ? " and this one has a bias" : ""));
        }
        if (adapted() || up.adapted()) return forward(x).silu().mul(up.forward(x));
        return Linears.linearSwiglu(x, weight.value(), up.weight.value());
    }

    /**
     * The output cut into groups of output features, torch's {@code linear(x).split(sizes, -1)}, as
     * one {@link Linears#linearSplit}: one product, and a backward that writes each group's weight
     * gradient into its rows instead of padding it to the whole weight (attention's fused qkv).
     *
     * <p>x: (..., in) → one (..., sizes[i]) view per group, sizes adding up to out.
     */
    public Tensor[] forwardSplit(Tensor x, int... sizes) {
        checkInput(x);
        if (adapted()) return split(forward(x), sizes);
        return Linears.linearSplit(x, weight.value(), bias == null ? null : bias.value(), sizes);
    }

    /**
     * Output features [from, from + count) only: x W[from:from+count]ᵀ + b[from:from+count].
     * A fused projection split this way (Mamba's in_proj and x_proj) back-propagates into slices
     * of the small weight instead of padding the large output's gradient; {@link #forwardSplit}
     * does without the padding too, in one product.
     *
     * <p>x: (..., in) → (..., count).
     */
    public Tensor forwardRows(Tensor x, int from, int count) {
        if (from < 0 || count <= 0 || from + count > out) {
            throw new IllegalArgumentException("Linear(" + in + " → " + out + ").forwardRows: rows [" + from + ", " + (from + count)
                    + ") are not inside [0, " + out + ")");
        }
        checkInput(x);
        Tensor y = Linears.linear(x, weight.value().narrow(0, from, count), bias == null ? null : bias.value().narrow(0, from, count));
        if (!adapted()) return y;
        Tensor delta = adapter.delta(x);
        return y.add(delta.narrow(delta.dim() - 1, from, count));
    }

    /** {@code y} cut along its last dim into parts of {@code sizes}, which must add up to out (as {@link Linears#linearSplit} checks). */
    private Tensor[] split(Tensor y, int... sizes) {
        int total = 0;
        for (int s : sizes) {
            if (s <= 0) throw new IllegalArgumentException("Linear(" + in + " → " + out + ").forwardSplit: sizes must be positive, got "
                    + java.util.Arrays.toString(sizes));
            total += s;
        }
        if (total != out) {
            throw new IllegalArgumentException("Linear(" + in + " → " + out + ").forwardSplit: sizes " + java.util.Arrays.toString(sizes)
                    + " add up to " + total + ", not " + out);
        }
        Tensor[] parts = new Tensor[sizes.length];
        for (int i = 0, at = 0; i < sizes.length; at += sizes[i++]) parts[i] = y.narrow(y.dim() - 1, at, sizes[i]);
        return parts;
    }

    /**
     * Attaches {@code adapter}, whose term every forward adds from now on; its parameters are
     * named under this Linear's key ({@code q_proj.lora_A.weight}).
     *
     * @throws IllegalStateException when an adapter is attached already
     */
    public void attach(LinearAdapter adapter) {
        if (this.adapter != null) {
            throw new IllegalStateException("Linear(" + in + " → " + out + ").attach: an adapter is attached already; detach it first");
        }
        this.adapter = wrap(adapter);
    }

    /** Removes the attached adapter and returns it (null when none was attached); the weight keeps whatever was merged into it. */
    public LinearAdapter detach() {
        LinearAdapter a = adapter;
        if (a != null) unwrap();
        adapter = null;
        return a;
    }

    /** The attached adapter, or null. */
    public LinearAdapter adapter() { return adapter; }

    /** Whether an attached adapter's term is added to the output (attached and not merged). */
    private boolean adapted() { return adapter != null && !adapter.merged(); }

    private void checkInput(Tensor x) {
        if (x.dim() == 0 || x.size(-1) != in) {
            throw new IllegalArgumentException("Linear(" + in + " → " + out + "): input's last dim must be " + in + ", got shape "
                    + java.util.Arrays.toString(x.shape()));
        }
    }

    public Parameter weight() { return weight; }

    /** The input size, torch's {@code in_features}. */
    public int inFeatures() { return in; }

    /** The output size, torch's {@code out_features}. */
    public int outFeatures() { return out; }

    /** The bias, or null when built without one. */
    public Parameter bias() { return bias; }

    @Override
    protected String extraRepr() { return "in=" + in + ", out=" + out + ", bias=" + (bias != null) + (adapter != null ? ", adapted" : ""); }
}
