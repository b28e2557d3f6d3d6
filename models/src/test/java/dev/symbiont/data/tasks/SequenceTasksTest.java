package dev.symbiont.data.tasks;

import dev.symbiont.core.DType;
import dev.symbiont.data.DataLoader;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SequenceTasksTest {
    private static final long IGNORE = SequenceExample.IGNORE;

    @Test
    void copyingShouldAskForTheDataTokensAfterTheDelimiter() {
        var task = new CopyingTask(10, 5, 7, 100, 1);
        assertEquals(2 * 5 + 7, task.sequenceLength());
        for (int i = 0; i < task.size(); i++) {
            SequenceExample e = task.get(i);
            long[] in = e.input(), tg = e.target();
            int d = task.delimiterPosition();
            assertEquals(CopyingTask.DELIMITER, in[d]);
            for (int k = 0; k < 5; k++) {
                assertTrue(in[k] >= 2 && in[k] < 10, "data token in range");
                assertEquals(in[k], tg[d + k], "position " + (d + k) + " must output data token " + k);
            }
            for (int t = 5; t < d; t++) assertEquals(CopyingTask.BLANK, in[t]);
            for (int t = d + 1; t < in.length; t++) assertEquals(CopyingTask.BLANK, in[t], "no teacher forcing");
            for (int t = 0; t < d; t++) assertEquals(IGNORE, tg[t]);
            assertEquals(5, e.scoredCount());
        }
    }

    @Test
    void selectiveCopyingShouldAskForTheScatteredTokensInOrder() {
        var task = new SelectiveCopyingTask(8, 4, 16, 100, 2);
        assertEquals(20, task.sequenceLength());
        Set<List<Integer>> layouts = new HashSet<>();
        for (int i = 0; i < task.size(); i++) {
            SequenceExample e = task.get(i);
            long[] in = e.input(), tg = e.target();
            List<Long> data = new ArrayList<>();
            List<Integer> positions = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                if (in[t] != SelectiveCopyingTask.NOISE) {
                    data.add(in[t]);
                    positions.add(t);
                }
            }
            layouts.add(positions);
            assertEquals(4, data.size(), "exactly K data tokens among the noise");
            assertEquals(SelectiveCopyingTask.DELIMITER, in[16]);
            for (int k = 0; k < 4; k++) assertEquals(data.get(k), tg[16 + k]);
            assertEquals(4, e.scoredCount());
        }
        assertTrue(layouts.size() > 50, "positions should vary between examples: " + layouts.size());
    }

    @Test
    void associativeRecallShouldScoreEachQueriedKeyWithItsValue() {
        var task = new AssociativeRecallTask(65, 8, 4, 64, 100, 3);
        int firstValue = task.firstValue();
        for (int i = 0; i < task.size(); i++) {
            SequenceExample e = task.get(i);
            long[] in = e.input(), tg = e.target();
            java.util.Map<Long, Long> kv = new java.util.HashMap<>();
            for (int p = 0; p < 8; p++) {
                long k = in[2 * p], v = in[2 * p + 1];
                assertTrue(k >= 1 && k < firstValue, "key range");
                assertTrue(v >= firstValue && v < 65, "value range");
                assertEquals(null, kv.put(k, v), "keys are distinct");
            }
            Set<Long> queried = new HashSet<>();
            for (int t = 0; t < in.length; t++) {
                if (tg[t] == IGNORE) continue;
                assertTrue(t >= 16, "only the query region is scored");
                assertEquals(kv.get(in[t]), tg[t], "target at a query is the key's value");
                assertEquals(tg[t], in[t + 1], "the value follows its key in the input");
                queried.add(in[t]);
            }
            assertEquals(4, e.scoredCount());
            assertEquals(4, queried.size(), "queries are distinct keys");
        }
    }

    @Test
    void inductionHeadsShouldScoreTheTokenAfterTheFirstTrigger() {
        var task = new InductionHeadsTask(16, 32, 200, 4);
        Set<Integer> triggerPositions = new HashSet<>();
        for (int i = 0; i < task.size(); i++) {
            SequenceExample e = task.get(i);
            long[] in = e.input(), tg = e.target();
            int first = -1, triggers = 0;
            for (int t = 0; t < in.length; t++) {
                if (in[t] == InductionHeadsTask.TRIGGER) {
                    if (first < 0) first = t;
                    triggers++;
                }
            }
            assertEquals(2, triggers, "the trigger appears exactly twice");
            assertEquals(InductionHeadsTask.TRIGGER, in[31], "the sequence ends with the trigger");
            assertEquals(in[first + 1], tg[31]);
            assertEquals(1, e.scoredCount());
            triggerPositions.add(first);
        }
        assertTrue(triggerPositions.size() > 15, "trigger position should vary: " + triggerPositions.size());
    }

    @Test
    void examplesShouldBeAPureFunctionOfSeedAndIndex() {
        List<Function<Long, SequenceTask>> tasks = List.of(
                s -> new CopyingTask(10, 6, 4, 50, s),
                s -> new SelectiveCopyingTask(10, 4, 20, 50, s),
                s -> new AssociativeRecallTask(33, 6, 3, 40, 50, s),
                s -> new InductionHeadsTask(12, 24, 50, s));
        for (var make : tasks) {
            SequenceTask a = make.apply(11L), b = make.apply(11L), c = make.apply(12L);
            String name = a.getClass().getSimpleName();
            for (int i = 49; i >= 0; i--) assertEquals(a.get(i), b.get(i), name + " example " + i); // any order
            assertEquals(a.get(7), a.get(7), name + " repeatable");
            int differ = 0;
            for (int i = 0; i < 50; i++) if (!a.get(i).equals(c.get(i))) differ++;
            assertTrue(differ > 40, name + ": different seeds should give different examples, " + differ + " of 50 differ");
            assertNotEquals(a.get(0), a.get(1), name + ": different indices differ");
            for (int i = 0; i < 50; i++) {
                for (long t : a.get(i).input()) assertTrue(t >= 0 && t < a.vocabSize(), name + " token range");
                assertEquals(a.sequenceLength(), a.get(i).length());
            }
        }
    }

    @Test
    void collateShouldStackIntoInt64BatchBySeqTensors() {
        var task = new InductionHeadsTask(16, 10, 8, 5);
        var loader = DataLoader.builder(task, SequenceExample::collate).batchSize(4).build();
        SequenceBatch batch = loader.batch(0, 1);
        assertArrayEquals(new int[] {4, 10}, batch.input().shape());
        assertArrayEquals(new int[] {4, 10}, batch.target().shape());
        assertEquals(DType.INT64, batch.input().dtype());
        assertEquals(DType.INT64, batch.target().dtype());
        long[] in = batch.input().toLongArray(), tg = batch.target().toLongArray();
        for (int b = 0; b < 4; b++) {
            SequenceExample e = task.get(4 + b);
            assertArrayEquals(e.input(), java.util.Arrays.copyOfRange(in, b * 10, b * 10 + 10));
            assertArrayEquals(e.target(), java.util.Arrays.copyOfRange(tg, b * 10, b * 10 + 10));
        }
        var mixed = assertThrows(IllegalArgumentException.class, () -> SequenceExample.collate(List.of(
                new SequenceExample(new long[3], new long[3]), new SequenceExample(new long[4], new long[4]))));
        assertTrue(mixed.getMessage().contains("example 1"), mixed.getMessage());
    }

    @Test
    void badSettingsShouldBeRejectedNamingTheValue() {
        assertMessage("2", () -> new CopyingTask(2, 4, 4, 10, 0));
        assertMessage("0", () -> new CopyingTask(10, 0, 4, 10, 0));
        assertMessage("-1", () -> new CopyingTask(10, 4, -1, 10, 0));
        assertMessage("3", () -> new SelectiveCopyingTask(10, 4, 3, 10, 0));
        assertMessage("16", () -> new AssociativeRecallTask(16, 8, 4, 64, 10, 0)); // needs 17 for 8 distinct keys
        assertMessage("5", () -> new AssociativeRecallTask(65, 4, 5, 64, 10, 0));
        assertMessage("20", () -> new AssociativeRecallTask(65, 8, 4, 20, 10, 0));
        assertMessage("2", () -> new InductionHeadsTask(16, 2, 10, 0));
        assertMessage("-5", () -> new InductionHeadsTask(16, 8, -5, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> new InductionHeadsTask(16, 8, 10, 0).get(10));
    }

    private static void assertMessage(String value, org.junit.jupiter.api.function.Executable make) {
        var e = assertThrows(IllegalArgumentException.class, make);
        assertTrue(e.getMessage().contains(value), e.getMessage());
    }
}
