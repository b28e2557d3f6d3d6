package dev.symbiont.bench.compare;

import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MeasureContextTest {
    @Test
    void should_call_times_settled_only_when_they_stop_falling() {
        List<Double> falling = new ArrayList<>(), flat = new ArrayList<>();
        for (int i = 0; i < 10; i++) { falling.add(100.0 / (i + 1)); flat.add(i % 2 == 0 ? 10.0 : 10.5); }
        assertFalse(MeasureContext.settled(falling), "still compiling: each five faster than the five before");
        assertTrue(MeasureContext.settled(flat));
        assertFalse(MeasureContext.settled(flat.subList(0, 9)), "fewer than ten calls");
    }

    @Test
    void should_skip_a_size_whose_predicted_time_passes_the_cap() {
        CompareResults r = new CompareResults();
        MeasureContext c = new MeasureContext(new ReferenceBackend(), Sizes.quick(), r);    // cap 4 s
        r.put(Point.of(c.device(), TrainingSuite.SEQ, "gpt", 2048, Map.of("ms", 1500.0)));
        assertNull(c.tooSlow(TrainingSuite.SEQ, "gpt", 4096, 1), "1.5 s × 2 = 3 s is under the cap");
        String why = c.tooSlow(TrainingSuite.SEQ, "gpt", 4096, 2);
        assertTrue(why != null && why.contains("about 6.0 s") && why.contains("at 2048"), why);
        assertNull(c.tooSlow(TrainingSuite.SEQ, "mamba", 4096, 2), "nothing measured yet for that series");
        assertEquals(1, r.series(c.device(), TrainingSuite.SEQ, "gpt").size());
    }
}
