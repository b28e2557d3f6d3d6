package dev.symbiont.optim;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Parameter;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GradAccumulationTest {

    @Test
    void twoHalfBatchesWithTheLossHalvedGiveTheFullBatchGradient() {
        Generator gen = new Generator(7);
        Tensor x = Tensor.randn(gen, 8, 3), y = Tensor.randn(gen, 8, 2);

        TinyMlp full = new TinyMlp(3, 5, 2, 11);
        full.forward(x).mseLoss(y).backward();

        TinyMlp micro = new TinyMlp(3, 5, 2, 11);
        GradAccumulation accumulation = new GradAccumulation(2);
        assertFalse(accumulation.backward(micro.forward(x.narrow(0, 0, 4)).mseLoss(y.narrow(0, 0, 4))));
        assertEquals(1, accumulation.pending());
        assertTrue(accumulation.backward(micro.forward(x.narrow(0, 4, 4)).mseLoss(y.narrow(0, 4, 4))));
        assertEquals(0, accumulation.pending());

        List<Parameter> expected = new ArrayList<>(full.parameters()), actual = micro.parameters();
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i).grad().toFloatArray(), actual.get(i).grad().toFloatArray(), 1e-6f,
                    full.namedParameters().keySet().toArray()[i].toString());
        }
    }

    @Test
    void oneMicroBatchLeavesTheLossAsIs() {
        Tensor loss = Tensor.scalar(3f);
        assertTrue(new GradAccumulation(1).scale(loss) == loss);
        assertEquals(0.75f, new GradAccumulation(4).scale(loss).item());
    }
}
