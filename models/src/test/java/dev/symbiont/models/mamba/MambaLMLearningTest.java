package dev.symbiont.models.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.data.tasks.InductionHeadsTask;
import dev.symbiont.models.SequenceTaskTraining;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A 2-layer Mamba learns induction heads (Mamba §4.1.2) with a fixed seed and step count: the
 * answer is the token after the trigger's first copy, so the model must select it by content
 * and keep it in its fixed-size state across the gap. Chance is 1/15; vocab 16, seq 16,
 * d_model 32, N 16, batch 64, lr 3e-3: at 150 steps seeds 7 and 8 both reach 1.0 (at 100–120
 * steps some seeds are still below 0.9).
 */
class MambaLMLearningTest {
    @Test
    void should_learn_induction_heads() {
        var train = new InductionHeadsTask(16, 16, 1_000_000, 1);
        var eval = new InductionHeadsTask(16, 16, 512, 2);
        MambaLM model = new MambaLM(MambaLMConfig.of(16, 32, 2, 16, 4, 2), new Generator(7), 0.1);
        double accuracy = SequenceTaskTraining.train(model, train, eval, 150, 64, 3e-3);
        assertTrue(accuracy >= 0.9, "induction heads accuracy " + accuracy);
    }
}
