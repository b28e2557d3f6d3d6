package dev.symbiont.core;

import dev.symbiont.core.autograd.Autograd;
import dev.symbiont.core.autograd.GradFn;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.Device;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.fused.attention.Attention;
import dev.symbiont.core.fused.conv.Convolutions;
import dev.symbiont.core.fused.conv.Pooling;
import dev.symbiont.core.fused.norm.Normalization;
import dev.symbiont.core.ops.Comparisons;
import dev.symbiont.core.ops.Creation;
import dev.symbiont.core.ops.Elementwise;
import dev.symbiont.core.ops.Indexing;
import dev.symbiont.core.ops.Joining;
import dev.symbiont.core.ops.Linalg;
import dev.symbiont.core.ops.Losses;
import dev.symbiont.core.ops.Reductions;
import dev.symbiont.core.ops.Transfer;
import dev.symbiont.core.ops.Views;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * An n-dimensional array on a backend, with reverse-mode autograd. A tensor is a
 * {@link Storage} seen through a {@link Layout}; views share the storage.
 *
 * <p>Names and semantics follow PyTorch: numpy broadcasting, negative dims count from the end,
 * {@code softmax(dim)}, {@code sum(dims, keepdim)}. Comparisons take any two dtypes and give float32
 * masks of 0 and 1 where PyTorch gives bool ({@link Comparisons}).
 */
public final class Tensor {
    private final Storage storage;
    private final Layout layout;
    private boolean requiresGrad;
    private Tensor grad;
    /** Whether autograd made {@link #grad}'s storage and nobody else holds it, so it may add into it in place. */
    private boolean gradOwned;
    private GradFn gradFn;
    /** Run by the engine once this leaf's gradient of a pass is complete; null until one is registered. */
    private List<GradHook> postAccumulateGradHooks;

    /** Wraps a storage; used by ops and backends. The layout must lie inside the storage. */
    public Tensor(Storage storage, Layout layout) {
        if (layout.numel() > 0 && (layout.offset() < 0 || layout.maxIndex() >= storage.size())) {
            throw new IllegalArgumentException("tensor: " + layout + " reaches outside a storage of " + storage.size() + " elements");
        }
        this.storage = storage;
        this.layout = layout;
    }

    /** A contiguous tensor over a fresh storage. */
    public static Tensor of(Storage storage, int... shape) {
        return new Tensor(storage, Layout.contiguous(shape));
    }

    // ---- creation (on Backends.current()) ------------------------------------------------------

    public static Tensor zeros(int... shape) { return Creation.full(0, DType.FLOAT32, shape); }
    public static Tensor ones(int... shape) { return Creation.full(1, DType.FLOAT32, shape); }
    public static Tensor full(double value, int... shape) { return Creation.full(value, DType.FLOAT32, shape); }
    public static Tensor full(double value, DType dtype, int... shape) { return Creation.full(value, dtype, shape); }
    public static Tensor zerosLike(Tensor t) { return Creation.full(t.backend(), 0, t.dtype(), t.shape()); }
    public static Tensor onesLike(Tensor t) { return Creation.full(t.backend(), 1, t.dtype(), t.shape()); }
    public static Tensor scalar(float value) { return Creation.scalar(value); }
    /** 0, 1, ..., end-1 as float32. */
    public static Tensor arange(int end) { return Creation.arange(0, end, 1, DType.FLOAT32); }
    public static Tensor arange(double start, double end, double step, DType dtype) { return Creation.arange(start, end, step, dtype); }
    public static Tensor eye(int n) { return Creation.eye(n); }
    /** Uniform in [0, 1) from the generator; the same numbers on every backend. */
    public static Tensor rand(Generator generator, int... shape) { return Creation.rand(generator, shape); }
    /** Standard normal from the generator; the same numbers on every backend. */
    public static Tensor randn(Generator generator, int... shape) { return Creation.randn(generator, shape); }
    /** A 1-D tensor of the data. */
    public static Tensor fromArray(float[] data) { return Creation.fromArray(data, data.length); }
    public static Tensor fromArray(int[] data) { return Creation.fromArray(data, data.length); }
    public static Tensor fromArray(long[] data) { return Creation.fromArray(data, data.length); }
    /** The data in exactly the given shape; an empty shape makes a scalar of one value. */
    public static Tensor fromArray(float[] data, int... shape) { return Creation.fromArray(data, shape); }
    public static Tensor fromArray(int[] data, int... shape) { return Creation.fromArray(data, shape); }
    public static Tensor fromArray(long[] data, int... shape) { return Creation.fromArray(data, shape); }

    /**
     * A copy on the current backend of host memory holding little-endian {@code dtype} elements
     * in row-major order (PyTorch's {@code torch.frombuffer(...).clone()}): a heap or off-heap
     * segment, or a slice of a memory-mapped file, of exactly {@code numel(shape) * dtype.byteSize()}
     * bytes. The segment may be freed once this returns.
     */
    public static Tensor fromSegment(MemorySegment source, DType dtype, int... shape) {
        return Creation.fromSegment(Backends.current(), source, dtype, shape);
    }

    // ---- metadata -----------------------------------------------------------------------------

    public Storage storage() { return storage; }
    public Layout layout() { return layout; }
    public Backend backend() { return storage.backend(); }
    /** The device the tensor lives on ({@code cpu}, {@code cuda:1}): its backend's. */
    public Device device() { return backend().device(); }
    public DType dtype() { return storage.dtype(); }
    public int[] shape() { return layout.shape().clone(); }
    public int size(int dim) { return layout.size(layout.dim("size", dim)); }
    public int[] strides() { return layout.strides().clone(); }
    public int dim() { return layout.rank(); }
    public int numel() { return layout.numel(); }
    public boolean isContiguous() { return layout.isContiguous(); }

    // ---- autograd -----------------------------------------------------------------------------

    public boolean requiresGrad() { return requiresGrad; }

    /** Marks a leaf as needing a gradient; returns this for chaining. */
    public Tensor requiresGrad(boolean on) {
        if (gradFn != null && !on) {
            throw new IllegalStateException("requiresGrad: cannot turn off on a non-leaf tensor (" + gradFn
                    + "); use detach()");
        }
        if (on && !dtype().isFloating()) {
            throw new IllegalArgumentException("requiresGrad: only floating tensors can require grad, got " + dtype());
        }
        this.requiresGrad = on;
        return this;
    }

    /** The accumulated gradient of a leaf, or null. */
    public Tensor grad() { return grad; }

    public void zeroGrad() {
        grad = null;
        gradOwned = false;
    }

    /**
     * Sets the gradient (e.g. by an optimizer); null clears it. The next backward adds to it
     * out of place, so a tensor the caller also holds is never changed by autograd.
     */
    public void setGrad(Tensor g) {
        grad = g;
        gradOwned = false;
    }

    /** The op that produced this tensor, or null for a leaf. */
    public GradFn gradFn() { return gradFn; }

    public boolean isLeaf() { return gradFn == null; }

    /** Used by {@link Autograd#record}: makes this the output of a recorded op. */
    public void attach(GradFn fn) {
        this.gradFn = fn;
        this.requiresGrad = true;
    }

    /** Adds {@code g} to this leaf's gradient, copying it first: {@code g} may share storage with other tensors. */
    public void accumulateGrad(Tensor g) { accumulateGrad(g, false); }

    /**
     * Used by the autograd engine: adds {@code g} to this leaf's gradient. The first gradient is
     * kept as it is when {@code exclusive} (made during this backward and reached by nothing
     * else) and dense, else copied; later ones are added in place into a gradient autograd made,
     * as PyTorch's AccumulateGrad does (a {@code grad()} taken earlier sees the sum), and out of
     * place into one set by {@link #setGrad}.
     */
    public void accumulateGrad(Tensor g, boolean exclusive) {
        if (!requiresGrad) return;
        if (grad == null) {
            grad = exclusive && dense(g) ? g : g.clone();
        } else if (gradOwned && grad.dtype() == DType.FLOAT32 && g.dtype() == DType.FLOAT32 && dense(grad)) {
            grad.backend().addInto(grad.storage, grad.layout, g.storage, g.layout);
            return;
        } else {
            grad = grad.add(g);
        }
        gradOwned = dense(grad);
    }

    /**
     * Runs {@code hook} with this leaf each time a backward pass has finished accumulating this
     * leaf's gradient, as PyTorch's {@code register_post_accumulate_grad_hook}: once per pass that
     * reaches the leaf, with {@link #grad()} complete for that pass (every path summed), on the
     * thread running backward with grad mode off, in the order the pass completes its leaves. A
     * pass that sends the leaf no gradient does not call it. Hooks of one leaf run in registration
     * order; closing the returned scope removes this one (closing twice does nothing).
     */
    public Scope registerPostAccumulateGradHook(Consumer<Tensor> hook) {
        if (hook == null) throw new IllegalArgumentException("registerPostAccumulateGradHook: hook is null");
        if (gradFn != null) {
            throw new IllegalStateException("registerPostAccumulateGradHook: only leaf tensors accumulate gradients; this one is the output of "
                    + gradFn);
        }
        if (!requiresGrad) {
            throw new IllegalStateException("registerPostAccumulateGradHook: tensor of shape " + java.util.Arrays.toString(layout.shape())
                    + " does not require grad, so it never accumulates one");
        }
        if (postAccumulateGradHooks == null) postAccumulateGradHooks = new CopyOnWriteArrayList<>();
        GradHook registered = new GradHook(hook);
        postAccumulateGradHooks.add(registered);
        List<GradHook> hooks = postAccumulateGradHooks;
        return () -> hooks.remove(registered);
    }

    /** Used by the autograd engine once this leaf's gradient of the pass is complete: runs its hooks. */
    public void runPostAccumulateGradHooks() {
        if (postAccumulateGradHooks == null || !requiresGrad) return;
        for (GradHook h : postAccumulateGradHooks) h.hook.accept(this);
    }

    /** One registration: removed by identity, so a hook registered twice is removed one at a time. */
    private static final class GradHook {
        final Consumer<Tensor> hook;

        GradHook(Consumer<Tensor> hook) { this.hook = hook; }
    }

    /** Contiguous over the whole of its storage: nothing else can be a view of the rest of it. */
    private static boolean dense(Tensor t) {
        return t.layout.coversWhole(t.storage.size());
    }

    /** Back-propagates from this single-element tensor. */
    public void backward() { Autograd.backward(this, null); }

    /** Back-propagates with an explicit gradient of this tensor's shape. */
    public void backward(Tensor gradient) { Autograd.backward(this, gradient); }

    /**
     * Back-propagates with an explicit gradient (null for a single-element tensor); with
     * {@code retainGraph} the graph keeps its saved tensors for another backward (PyTorch's
     * {@code retain_graph}), else they are freed as each op's backward runs.
     */
    public void backward(Tensor gradient, boolean retainGraph) { Autograd.backward(this, gradient, retainGraph); }

    /** The same values, cut from the graph. */
    public Tensor detach() { return new Tensor(storage, layout); }

    // ---- conversion ---------------------------------------------------------------------------

    /** This tensor on another backend (a copy; gradients flow back). */
    public Tensor to(Backend target) { return Transfer.toBackend(this, target); }

    /**
     * This tensor on the device a string names ({@code "cpu"}, {@code "cuda:1"}; see
     * {@link Backends#get(String)}): a copy, or this tensor when it is there already; gradients flow back.
     */
    public Tensor to(String device) { return Transfer.toBackend(this, Backends.get(device)); }

    /** This tensor on {@code device}'s backend (e.g. {@code x.to(y.device())}); gradients flow back. */
    public Tensor to(Device device) { return Transfer.toBackend(this, Backends.get(device)); }

    /** This tensor converted to another dtype (gradients flow back for floating types). */
    public Tensor to(DType target) { return Transfer.toDType(this, target); }

    /** A contiguous copy with its own storage (torch.clone); gradients flow back. */
    @Override
    public Tensor clone() { return Views.copy(this); }

    /** A contiguous tensor with the same values: this one when already contiguous. */
    public Tensor contiguous() { return Views.contiguous(this); }

    /** The values as float32 in row-major order. */
    public float[] toFloatArray() { return Transfer.toFloatArray(this); }

    /** The values as int64 in row-major order (integer tensors, or floats truncated). */
    public long[] toLongArray() { return Transfer.toLongArray(this); }

    /**
     * Writes the values in row-major order, as little-endian bytes of this tensor's dtype, to the
     * start of {@code target}, which must be writable and hold {@code numel() * dtype().byteSize()} bytes.
     */
    public void copyTo(MemorySegment target) { Transfer.copyTo(this, target); }

    /** The values as {@link #copyTo} writes them, in a new segment allocated from {@code arena}. */
    public MemorySegment toSegment(Arena arena) { return Transfer.toSegment(this, arena); }

    /** The single value of a one-element tensor. */
    public float item() {
        if (numel() != 1) {
            throw new IllegalArgumentException("item: tensor of shape " + java.util.Arrays.toString(layout.shape())
                    + " has " + numel() + " elements, not 1");
        }
        return toFloatArray()[0];
    }

    // ---- views --------------------------------------------------------------------------------

    /** Reshape, copying only when the strides make a view impossible; one dim may be -1. */
    public Tensor reshape(int... shape) { return Views.reshape(this, shape); }
    /** Reshape that never copies; throws when the strides make a view impossible. */
    public Tensor view(int... shape) { return Views.view(this, shape); }
    public Tensor permute(int... dims) { return Views.permute(this, dims); }
    public Tensor transpose(int dim0, int dim1) { return Views.transpose(this, dim0, dim1); }
    /** Transpose of a 2-D tensor. */
    public Tensor t() { return Views.t(this); }
    public Tensor narrow(int dim, int start, int length) { return Views.narrow(this, dim, start, length); }
    /** Elements start, start+step, ... before end along dim (a view). */
    public Tensor slice(int dim, int start, int end, int step) { return Views.slice(this, dim, start, end, step); }
    public Tensor select(int dim, int index) { return Views.select(this, dim, index); }
    public Tensor expand(int... shape) { return Views.expand(this, shape); }
    public Tensor broadcastTo(int... shape) { return Views.expand(this, shape); }
    public Tensor squeeze() { return Views.squeeze(this); }
    public Tensor squeeze(int dim) { return Views.squeeze(this, dim); }
    public Tensor unsqueeze(int dim) { return Views.unsqueeze(this, dim); }
    public Tensor flatten() { return reshape(numel()); }
    /** Flattens dims start..end (inclusive) into one. */
    public Tensor flatten(int startDim, int endDim) { return Views.flatten(this, startDim, endDim); }

    // ---- elementwise --------------------------------------------------------------------------

    public Tensor neg() { return Elementwise.unary(UnaryOp.NEG, this); }
    public Tensor abs() { return Elementwise.unary(UnaryOp.ABS, this); }
    public Tensor exp() { return Elementwise.unary(UnaryOp.EXP, this); }
    public Tensor log() { return Elementwise.unary(UnaryOp.LOG, this); }
    public Tensor sqrt() { return Elementwise.unary(UnaryOp.SQRT, this); }
    public Tensor rsqrt() { return Elementwise.unary(UnaryOp.RSQRT, this); }
    public Tensor tanh() { return Elementwise.unary(UnaryOp.TANH, this); }
    public Tensor sigmoid() { return Elementwise.unary(UnaryOp.SIGMOID, this); }
    public Tensor relu() { return Elementwise.unary(UnaryOp.RELU, this); }
    /** GELU with the exact erf form. */
    public Tensor gelu() { return Elementwise.unary(UnaryOp.GELU_ERF, this); }
    /** GELU with the tanh approximation (PyTorch's approximate="tanh"). */
    public Tensor geluTanh() { return Elementwise.unary(UnaryOp.GELU_TANH, this); }
    public Tensor silu() { return Elementwise.unary(UnaryOp.SILU, this); }
    public Tensor softplus() { return Elementwise.unary(UnaryOp.SOFTPLUS, this); }
    public Tensor square() { return Elementwise.unary(UnaryOp.SQUARE, this); }
    public Tensor reciprocal() { return Elementwise.unary(UnaryOp.RECIPROCAL, this); }

    public Tensor add(Tensor other) { return Elementwise.binary(BinaryOp.ADD, this, other); }
    public Tensor sub(Tensor other) { return Elementwise.binary(BinaryOp.SUB, this, other); }
    public Tensor mul(Tensor other) { return Elementwise.binary(BinaryOp.MUL, this, other); }
    public Tensor div(Tensor other) { return Elementwise.binary(BinaryOp.DIV, this, other); }
    public Tensor pow(Tensor exponent) { return Elementwise.binary(BinaryOp.POW, this, exponent); }
    public Tensor maximum(Tensor other) { return Elementwise.binary(BinaryOp.MAXIMUM, this, other); }
    public Tensor minimum(Tensor other) { return Elementwise.binary(BinaryOp.MINIMUM, this, other); }
    public Tensor add(double s) { return Elementwise.binaryScalar(BinaryOp.ADD, this, s); }
    public Tensor sub(double s) { return Elementwise.binaryScalar(BinaryOp.SUB, this, s); }
    public Tensor mul(double s) { return Elementwise.binaryScalar(BinaryOp.MUL, this, s); }
    public Tensor div(double s) { return Elementwise.binaryScalar(BinaryOp.DIV, this, s); }
    public Tensor pow(double exponent) { return Elementwise.binaryScalar(BinaryOp.POW, this, exponent); }
    public Tensor clamp(double min, double max) { return Elementwise.clamp(this, min, max); }

    // Comparisons of any two dtypes, promoted as PyTorch does; a float32 mask of 1 and 0 (PyTorch's bool),
    // outside autograd. Two integer operands compare exactly. See Comparisons.
    public Tensor eq(Tensor other) { return Comparisons.compare(BinaryOp.EQ, this, other); }
    public Tensor ne(Tensor other) { return Comparisons.compare(BinaryOp.NE, this, other); }
    public Tensor lt(Tensor other) { return Comparisons.compare(BinaryOp.LT, this, other); }
    public Tensor le(Tensor other) { return Comparisons.compare(BinaryOp.LE, this, other); }
    public Tensor gt(Tensor other) { return Comparisons.compare(BinaryOp.GT, this, other); }
    public Tensor ge(Tensor other) { return Comparisons.compare(BinaryOp.GE, this, other); }
    /** Against a floating scalar: integer tensors compare in float32, floating ones in their dtype. */
    public Tensor eq(double s) { return Comparisons.compare(BinaryOp.EQ, this, s); }
    public Tensor ne(double s) { return Comparisons.compare(BinaryOp.NE, this, s); }
    public Tensor lt(double s) { return Comparisons.compare(BinaryOp.LT, this, s); }
    public Tensor le(double s) { return Comparisons.compare(BinaryOp.LE, this, s); }
    public Tensor gt(double s) { return Comparisons.compare(BinaryOp.GT, this, s); }
    public Tensor ge(double s) { return Comparisons.compare(BinaryOp.GE, this, s); }
    /** Against an integer scalar: integer tensors compare exactly, floating ones in their dtype. */
    public Tensor eq(long s) { return Comparisons.compare(BinaryOp.EQ, this, s); }
    public Tensor ne(long s) { return Comparisons.compare(BinaryOp.NE, this, s); }
    public Tensor lt(long s) { return Comparisons.compare(BinaryOp.LT, this, s); }
    public Tensor le(long s) { return Comparisons.compare(BinaryOp.LE, this, s); }
    public Tensor gt(long s) { return Comparisons.compare(BinaryOp.GT, this, s); }
    public Tensor ge(long s) { return Comparisons.compare(BinaryOp.GE, this, s); }

    /** Elements of a where this (a mask) is non-zero, else of b. */
    public Tensor where(Tensor a, Tensor b) { return Elementwise.where(this, a, b); }
    public static Tensor where(Tensor condition, Tensor a, Tensor b) { return Elementwise.where(condition, a, b); }

    // ---- reductions ---------------------------------------------------------------------------

    public Tensor sum() { return Reductions.sum(this, null, false); }
    public Tensor sum(int dim, boolean keepdim) { return Reductions.sum(this, new int[] {dim}, keepdim); }
    public Tensor sum(int[] dims, boolean keepdim) { return Reductions.sum(this, dims, keepdim); }
    public Tensor mean() { return Reductions.mean(this, null, false); }
    public Tensor mean(int dim, boolean keepdim) { return Reductions.mean(this, new int[] {dim}, keepdim); }
    public Tensor mean(int[] dims, boolean keepdim) { return Reductions.mean(this, dims, keepdim); }
    /** Variance with Bessel's correction (unbiased), like torch.var. */
    public Tensor var(int[] dims, boolean keepdim) { return Reductions.var(this, dims, 1, keepdim); }
    public Tensor var(int[] dims, int correction, boolean keepdim) { return Reductions.var(this, dims, correction, keepdim); }
    public Tensor max() { return Reductions.max(this, null, false); }
    public Tensor max(int dim, boolean keepdim) { return Reductions.max(this, new int[] {dim}, keepdim); }
    public Tensor amax(int[] dims, boolean keepdim) { return Reductions.max(this, dims, keepdim); }
    public Tensor min() { return Reductions.min(this, null, false); }
    public Tensor min(int dim, boolean keepdim) { return Reductions.min(this, new int[] {dim}, keepdim); }
    public Tensor amin(int[] dims, boolean keepdim) { return Reductions.min(this, dims, keepdim); }
    /** log(sum(exp(x))) along dim, max-shifted so large values do not overflow (torch.logsumexp). */
    public Tensor logsumexp(int dim, boolean keepdim) { return Reductions.logsumexp(this, new int[] {dim}, keepdim); }
    public Tensor logsumexp(int[] dims, boolean keepdim) { return Reductions.logsumexp(this, dims, keepdim); }
    /** Index (int64) of the largest value along dim; first one on ties. */
    public Tensor argmax(int dim, boolean keepdim) { return Reductions.argmax(this, dim, keepdim); }
    public Tensor argmin(int dim, boolean keepdim) { return Reductions.argmin(this, dim, keepdim); }
    public Tensor cumsum(int dim) { return Reductions.cumsum(this, dim); }

    // ---- linear algebra, normalisation, losses ------------------------------------------------

    /** torch.matmul: batched and broadcast over leading dims; 1-D operands are promoted. */
    public Tensor matmul(Tensor other) { return Linalg.matmul(this, other); }
    public Tensor softmax(int dim) { return Normalization.softmax(this, dim); }
    public Tensor logSoftmax(int dim) { return Normalization.logSoftmax(this, dim); }
    public Tensor tril(int diagonal) { return Linalg.tril(this, diagonal); }
    public Tensor triu(int diagonal) { return Linalg.triu(this, diagonal); }
    public Tensor layerNorm(int[] normalizedShape, Tensor weight, Tensor bias, double eps) {
        return Normalization.layerNorm(this, normalizedShape, weight, bias, eps);
    }
    public Tensor rmsNorm(int[] normalizedShape, Tensor weight, double eps) {
        return Normalization.rmsNorm(this, normalizedShape, weight, eps);
    }
    /**
     * softmax(q·kᵀ/√d + mask) · v: q (batch, heads, sq, d), k and v (batch, kvHeads, sk, d) with
     * heads % kvHeads == 0; mask null or additive, broadcastable to (batch, heads, sq, sk);
     * causal keeps key j ≤ i + (sk − sq) for query i (bottom-right aligned). See {@link Attention}.
     */
    public static Tensor scaledDotProductAttention(Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal) {
        return Attention.scaledDotProductAttention(q, k, v, mask, causal);
    }
    /** As {@link #scaledDotProductAttention(Tensor, Tensor, Tensor, Tensor, boolean)} with the scores multiplied by {@code scale}. */
    public static Tensor scaledDotProductAttention(Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal, double scale) {
        return Attention.scaledDotProductAttention(q, k, v, mask, causal, scale);
    }
    /** Mean cross-entropy of these logits (..., classes) against integer targets (...); -100 is ignored. */
    public Tensor crossEntropy(Tensor targets) { return Losses.crossEntropy(this, targets, -100); }
    public Tensor crossEntropy(Tensor targets, long ignoreIndex) { return Losses.crossEntropy(this, targets, ignoreIndex); }
    public Tensor mseLoss(Tensor target) { return Losses.mseLoss(this, target); }

    // ---- convolution and pooling (full options in fused.conv.Convolutions and Pooling) ----------

    /** torch.nn.functional.conv2d of this (N, C, H, W) with weight (O, C/groups, kh, kw) and bias null or (O). */
    public Tensor conv2d(Tensor weight, Tensor bias, int stride, int padding, int dilation, int groups) {
        return Convolutions.conv2d(this, weight, bias, stride, padding, dilation, groups);
    }
    /** conv2d with padding "same" (stride 1) or "valid". */
    public Tensor conv2d(Tensor weight, Tensor bias, String padding) {
        return Convolutions.conv2d(this, weight, bias, new int[] {1}, padding, new int[] {1}, 1);
    }
    /** torch.nn.functional.conv1d of this (N, C, L) with weight (O, C/groups, k) and bias null or (O). */
    public Tensor conv1d(Tensor weight, Tensor bias, int stride, int padding, int dilation, int groups) {
        return Convolutions.conv1d(this, weight, bias, stride, padding, dilation, groups);
    }
    /** max_pool2d of this (N, C, H, W): square window, stride and padding. */
    public Tensor maxPool2d(int kernel, int stride, int padding) { return Pooling.maxPool2d(this, kernel, stride, padding); }
    /** avg_pool2d of this (N, C, H, W), padding counted in the divisor. */
    public Tensor avgPool2d(int kernel, int stride, int padding) { return Pooling.avgPool2d(this, kernel, stride, padding); }
    /** adaptive_avg_pool2d of this (N, C, H, W) to (N, C, outH, outW). */
    public Tensor adaptiveAvgPool2d(int outH, int outW) { return Pooling.adaptiveAvgPool2d(this, outH, outW); }

    // ---- indexing and joining -----------------------------------------------------------------

    public Tensor indexSelect(int dim, Tensor index) { return Indexing.indexSelect(this, dim, index); }
    public Tensor gather(int dim, Tensor index) { return Indexing.gather(this, dim, index); }
    /** A copy of this with src added at index along dim. */
    public Tensor scatterAdd(int dim, Tensor index, Tensor src) { return Indexing.scatterAdd(this, dim, index, src); }
    public Indexing.TopK topk(int k, int dim, boolean largest) { return Indexing.topk(this, k, dim, largest); }
    /** float32 one-hot rows (ids..., numClasses) of these integer ids. */
    public Tensor oneHot(int numClasses) { return Indexing.oneHot(this, numClasses); }
    /** Rows of weight (num, dim) picked by integer ids of any shape: (ids..., dim). */
    public static Tensor embedding(Tensor weight, Tensor ids) { return Indexing.embedding(weight, ids); }
    public List<Tensor> split(int splitSize, int dim) { return Joining.split(this, splitSize, dim); }
    public List<Tensor> chunk(int chunks, int dim) { return Joining.chunk(this, chunks, dim); }
    public static Tensor cat(List<Tensor> tensors, int dim) { return Joining.cat(tensors, dim); }
    public static Tensor stack(List<Tensor> tensors, int dim) { return Joining.stack(tensors, dim); }

    @Override
    public String toString() { return TensorFormatter.format(this); }
}
