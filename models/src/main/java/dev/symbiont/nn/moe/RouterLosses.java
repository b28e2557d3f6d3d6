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
 * {@code load_balancing_loss_func}, {@link #acrossLayers}, counts f per choice and gives k).
 */
public final class RouterLosses {
    private RouterLosses() {}

    /** probs (T, E), expertIds (T, k) → the Switch load-balancing loss, a scalar. */
    public static Tensor loadBalancing(Tensor probs, Tensor expertIds) {
        return loadBalancingOfLoad(expertLoad(expertIds, probs.size(1)), probs);
    }

    /** expertLoad (E), the f of {@link #expertLoad}, and probs (T, E) → the Switch load-balancing loss, a scalar. */
    public static Tensor loadBalancingOfLoad(Tensor expertLoad, Tensor probs) {
        return loadBalancingOfMeans(expertLoad, probs.mean(0, false));
    }

    /** expertLoad (E) and the mean router probabilities P (E) → E · Σ f · P, a scalar. */
    public static Tensor loadBalancingOfMeans(Tensor expertLoad, Tensor meanProbs) {
        return expertLoad.mul(meanProbs).sum().mul(meanProbs.size(0));
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

    /**
     * Hugging Face's {@code load_balancing_loss_func} over a model's {@link MoeFeedForward}s from
     * their last forward ({@link LoadBalancing#ACROSS_LAYERS}): the layers' router rows taken as
     * one batch, k · E · Σ_e F_e · P_e with F the layers' expert loads and P their mean router
     * probabilities, each averaged over the layers (every layer routes the same tokens). A scalar
     * with autograd history to the routers; null when no MoE layer has run.
     */
    public static Tensor acrossLayers(Module model) {
        Tensor load = null, probs = null;
        int layers = 0, k = 0;
        for (Module m : model.modules()) {
            if (!(m instanceof MoeFeedForward moe) || moe.lastAux() == null) continue;
            MoeFeedForward.Aux aux = moe.lastAux();
            load = load == null ? aux.expertLoad() : load.add(aux.expertLoad());
            probs = probs == null ? aux.meanProbs() : probs.add(aux.meanProbs());
            layers++;
            k = moe.config().topK();
        }
        if (layers == 0) return null;
        return loadBalancingOfMeans(load.div(layers), probs.div(layers)).mul(k);
    }

    /**
     * {@code loadBalancingCoef · acrossLayers + zLossCoef · Σ zLoss} over a model's
     * {@link MoeFeedForward}s from their last forward: the auxiliary loss of a model trained as
     * Hugging Face trains Mixtral. A scalar with autograd history to the routers; null when no
     * MoE layer has run.
     */
    public static Tensor totalAcrossLayers(Module model, double loadBalancingCoef, double zLossCoef) {
        Tensor balancing = acrossLayers(model);
        if (balancing == null) return null;
        Tensor sum = balancing.mul(loadBalancingCoef);
        for (Module m : model.modules()) {
            if (m instanceof MoeFeedForward moe && moe.lastAux() != null) sum = sum.add(moe.lastAux().zLoss().mul(zLossCoef));
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
