package dev.symbiont.models.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.data.tasks.InductionHeadsTask;
import dev.symbiont.data.tasks.SelectiveCopyingTask;
import dev.symbiont.models.SequenceTaskTraining;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A 2-layer Mamba learns the two synthetic tasks of Mamba §4.1 with a fixed seed and step count.
 *
 * <p>Induction heads (§4.1.2): the answer is the token after the trigger's first copy, so the
 * model must select it by content and keep it in its fixed-size state across the gap. Chance is 1/15; vocab 16, seq 16,
 * d_model 32, N 16, batch 64, lr 3e-3: at 150 steps seeds 7 and 8 both reach 1.0 (at 100–120
 * steps some seeds are still below 0.9).
 */
class MambaLMLearningTest {
    /**
     * Selective copying (§4.1.1, Fig. 2): three data tokens (of six values) at random positions
     * among twelve, to be output in order after the delimiter — selecting by content, which an
     * LTI model cannot. Chance is 1/6; vocab 8, d_model 32, N 16, batch 64, lr 5e-3: at 300
     * steps seed 7 reaches 0.998 (0.93 at 175 steps, 0.98 at 200). Four tokens among sixteen
     * reach only 0.92 in 300 steps at lr 1e-2, which is past this test's time budget (it takes ~18 s).
     */
    @Test
    void should_learn_selective_copying() {
        var train = new SelectiveCopyingTask(8, 3, 12, 1_000_000, 1);
        var eval = new SelectiveCopyingTask(8, 3, 12, 512, 2);
        MambaLM model = new MambaLM(MambaLMConfig.of(8, 32, 2, 16, 4, 2), new Generator(7), 0.1);
        double accuracy = SequenceTaskTraining.train(model, train, eval, 300, 64, 5e-3);
        assertTrue(accuracy >= 0.95, "selective copying accuracy " + accuracy);
    }

    @Test
    void should_learn_induction_heads() {
        var train = new InductionHeadsTask(16, 16, 1_000_000, 1);
        var eval = new InductionHeadsTask(16, 16, 512, 2);
        MambaLM model = new MambaLM(MambaLMConfig.of(16, 32, 2, 16, 4, 2), new Generator(7), 0.1);
        double accuracy = SequenceTaskTraining.train(model, train, eval, 150, 64, 3e-3);
        assertTrue(accuracy >= 0.9, "induction heads accuracy " + accuracy);
    }
}
