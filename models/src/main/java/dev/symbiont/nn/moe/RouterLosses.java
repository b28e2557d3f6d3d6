package dev.symbiont.nn.moe;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.ops.Creation;
import dev.symbiont.nn.Module;

/**
 * The auxiliary losses a router trains with, each a scalar with autograd history to the router.
 * <pre>
 *   load balancing (Switch, Fedus et al. 2022, eq. 4):  E · Σ_i f_i · P_i
 *       f_i = fraction of the T·k routed slots that go to expert i   (counted, no gradient)
 *       P_i = mean over tokens of the router probability of expert i
 *   z-loss (ST-MoE, Zoph et al. 2022, eq. 5):            mean_t (logsumexp_i h_ti)²
 * </pre>
 * A uniform router gives a balancing loss of 1 whatever k is (Hugging Face's
 * {@code load_balancing_loss_func} counts f per choice and gives k).
 */
public final class RouterLosses {
    private RouterLosses() {}

    /** probs (T, E), expertIds (T, k) → the Switch load-balancing loss, a scalar. */
    public static Tensor loadBalancing(Tensor probs, Tensor expertIds) {
        return loadBalancingOfLoad(expertLoad(expertIds, probs.size(1)), probs);
    }

    /** expertLoad (E), the f of {@link #expertLoad}, and probs (T, E) → the Switch load-balancing loss, a scalar. */
    public static Tensor loadBalancingOfLoad(Tensor expertLoad, Tensor probs) {
        return expertLoad.mul(probs.mean(0, false)).sum().mul(probs.size(1));
    }

    /** logits (T, E) → the router z-loss, a scalar. */
    public static Tensor zLoss(Tensor logits) {
        Tensor m = logits.amax(new int[] {1}, true).detach();
        return zLossOfLogsumexp(logits.sub(m).exp().sum(1, true).log().add(m));
    }

    /** logsumexp of each token's logits (T), as the router gives it → the router z-loss, a scalar. */
    public static Tensor zLossOfLogsumexp(Tensor logsumexp) {
        return logsumexp.square().mean();
    }

    /**
     * The auxiliary loss of a model: Σ over its {@link MoeFeedForward}s of
     * {@code loadBalancingCoef · loadBalancing + zLossCoef · zLoss} from their last forward, a
     * scalar with autograd history to the routers; null when the model has no MoE layer or none
     * has run.
     */
    public static Tensor total(Module model, double loadBalancingCoef, double zLossCoef) {
        Tensor sum = null;
        for (Module m : model.modules()) {
            if (!(m instanceof MoeFeedForward moe) || moe.lastAux() == null) continue;
            MoeFeedForward.Aux aux = moe.lastAux();
            Tensor term = aux.loadBalancing().mul(loadBalancingCoef).add(aux.zLoss().mul(zLossCoef));
            sum = sum == null ? term : sum.add(term);
        }
        return sum;
    }

    /** expertIds (T, k) → (E) float32, the fraction of the slots routed to each expert (counted on the device). */
    public static Tensor expertLoad(Tensor expertIds, int experts) {
        int slots = expertIds.numel();
        Tensor ones = Creation.full(expertIds.backend(), 1.0 / Math.max(1, slots), DType.FLOAT32, slots);
        return Creation.full(expertIds.backend(), 0, DType.FLOAT32, experts).scatterAdd(0, expertIds.reshape(slots), ones);
    }
}
