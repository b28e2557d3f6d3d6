package dev.symbiont.nn.moe;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Layer;

import java.util.ArrayList;
import java.util.List;

/**
 * The per-token reference of an {@link MoeFeedForward}: the same router and experts, but each
 * token goes through each of its k experts' SwiGLU on its own, with plain differentiable ops,
 *
 * <pre>
 *   y_t = Σ_{i &lt; k, slot kept} g_ti · w2_{e_ti}(SiLU(w1_{e_ti} x_t) ⊙ w3_{e_ti} x_t) + Σ_s shared_s(x_t)
 * </pre>
 * — the loop the moe family's permute, grouped GEMM and combine replace (Hugging Face's
 * {@code MixtralSparseMoeBlock} loops over experts with {@code index_add_}; this goes one step
 * further, one token at a time). With a capacity, an expert keeps its first slots in token
 * order, as {@link dev.symbiont.core.fused.moe.Moe#permute} does. It owns no weights of its own:
 * gradients reach the wrapped layer's parameters, so it serves to check that layer and as the
 * slow end of its benchmark. It leaves the wrapped layer's {@code lastAux} untouched.
 */
public final class PerTokenMoe extends Layer {
    private final MoeFeedForward moe;

    public PerTokenMoe(MoeFeedForward moe) {
        this.moe = module("moe", moe);
    }

    /** x: (..., dModel) → (..., dModel), one token and one expert at a time. */
    @Override
    public Tensor forward(Tensor x) {
        MoeConfig c = moe.config();
        int d = c.dModel(), tokens = x.numel() / d, k = c.topK();
        Tensor flat = x.reshape(tokens, d);
        TopKRouter.Routing r = moe.gate().route(flat);
        long[] ids = r.expertIds().toLongArray();
        int capacity = c.dispatch().capacity(tokens, k, c.experts());
        int[] taken = new int[c.experts()];
        List<Tensor> rows = new ArrayList<>(tokens);
        for (int t = 0; t < tokens; t++) {
            Tensor xt = flat.narrow(0, t, 1), yt = Tensor.zerosLike(xt);
            for (int i = 0; i < k; i++) {
                int e = (int) ids[t * k + i];
                if (taken[e]++ >= capacity) continue;   // dropped: beyond its expert's capacity
                yt = yt.add(moe.expert(e).forward(xt).mul(r.weights().narrow(0, t, 1).narrow(1, i, 1)));
            }
            for (int s = 0; s < c.shared(); s++) yt = yt.add(moe.sharedExpert(s).forward(xt));
            rows.add(yt);
        }
        return Tensor.cat(rows, 0).reshape(x.shape());
    }

    /** The layer whose router and experts this runs. */
    public MoeFeedForward moe() { return moe; }
}
