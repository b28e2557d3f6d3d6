package dev.symbiont.cuda.models;

import dev.symbiont.core.Tensor;
import dev.symbiont.models.CausalLM;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.Optimizer;

/** A few AdamW steps of a language model on fixed ids, the losses returned: the training tests' common loop. */
final class AdamWSteps {
    private AdamWSteps() {}

    /**
     * {@code steps} steps (lr 3e-3, weight decay 0.01) on (batch, seq) ids whose targets are the ids
     * shifted by 5 modulo the vocabulary, its auxiliary loss added when it has one, on the backend current
     * in the caller's scope.
     */
    static float[] losses(CausalLM model, int batch, int seq, int steps) {
        int vocab = model.vocab();
        Optimizer opt = new AdamW(model.parameterGroups(0.01), AdamW.options(3e-3));
        long[] ids = new long[batch * seq], targets = new long[batch * seq];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = (i * 5 + 3) % vocab;
            targets[i] = (i * 5 + 8) % vocab;
        }
        return TrainingSteps.losses(steps, opt, () -> {
            Tensor loss = model.loss(Tensor.fromArray(ids, batch, seq), Tensor.fromArray(targets, batch, seq));
            Tensor aux = model.auxiliaryLoss();                          // an MoE model's balancing terms
            return aux == null ? loss : loss.add(aux);
        });
    }
}
