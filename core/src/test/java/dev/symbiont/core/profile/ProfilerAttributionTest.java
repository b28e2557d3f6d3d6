package dev.symbiont.core.profile;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where time and work are charged: exact matmul FLOPs, self time of nested ops, backward rows. */
class ProfilerAttributionTest {
    private static final long MATMUL_FLOPS = 2L * 64 * 32 * 16;

    private static Tensor randn(int... shape) { return Tensor.randn(new Generator(3), shape); }

    @Test
    void matmulReportsExactlyTwoMnkFlopsAndItsOperandBytes() {
        Tensor a = randn(64, 32), b = randn(32, 16);
        try (ProfilerSession p = Profiler.start()) {
            a.matmul(b);
            ProfileReport r = p.report();
            ProfileReport.OpRow row = r.op("matmul").orElseThrow();
            assertEquals(1, row.calls());
            assertEquals(OpCategory.MATMUL, row.category());
            assertEquals(MATMUL_FLOPS, row.flops());
            assertEquals(MATMUL_FLOPS, row.selfFlops());
            assertEquals(4L * (64 * 32 + 32 * 16 + 64 * 16), row.bytes());
            assertEquals(MATMUL_FLOPS, r.category(OpCategory.MATMUL).flops());
            assertEquals(MATMUL_FLOPS, r.flops());
        }
    }

    @Test
    void batchedMatmulCountsEveryBatch() {
        Tensor a = randn(3, 5, 7), b = randn(7, 2);
        try (ProfilerSession p = Profiler.start()) {
            a.matmul(b);
            assertEquals(2L * 3 * 5 * 2 * 7, p.report().op("matmul").orElseThrow().flops());
        }
    }

    @Test
    void nestedOpsKeepTheirNamesAndSelfTimesDoNotDoubleCount() {
        Tensor logits = randn(8, 10);
        Tensor targets = Tensor.fromArray(new long[] {0, 1, 2, 3, 4, 5, 6, 7}, 8);
        try (ProfilerSession p = Profiler.start()) {
            logits.crossEntropy(targets);
            ProfileReport r = p.report();
            ProfileReport.OpRow loss = r.op("cross_entropy").orElseThrow();
            ProfileReport.OpRow logSoftmax = r.op("log_softmax").orElseThrow();
            assertEquals(OpCategory.LOSS, loss.category());
            assertEquals(1, loss.calls());
            assertEquals(OpCategory.NORMALIZATION, logSoftmax.category());
            assertEquals(1, logSoftmax.calls());
            assertEquals(1, r.op("gather").orElseThrow().calls());
            assertTrue(loss.selfNanos() < loss.totalNanos(), "the inner ops' time is not the loss's own");
            assertTrue(loss.totalNanos() >= logSoftmax.totalNanos() + r.op("gather").orElseThrow().totalNanos());
            // cross_entropy is the only root scope: every self time in the report lies inside it, once.
            assertEquals(loss.totalNanos(), r.selfNanos());
            // The reference log_softmax is composed of primitives, which report the work: the fused
            // op keeps its estimate as inclusive FLOPs but none as its own.
            assertEquals(5L * 80, logSoftmax.flops());
            assertEquals(0, logSoftmax.selfFlops());
            assertEquals(1, r.op("exp").orElseThrow().calls());
            assertEquals(0, loss.selfFlops());
            long leafFlops = r.ops().stream().mapToLong(ProfileReport.OpRow::selfFlops).sum();
            assertEquals(leafFlops, r.flops());
            assertTrue(r.flops() > 0);
        }
    }

    @Test
    void selfTimeIsTimeMinusNestedScopesAndSumsToTheRoot() throws InterruptedException {
        try (ProfilerSession p = Profiler.start()) {
            try (var outer = Profiler.op("outer", OpCategory.OTHER)) {
                Thread.sleep(10);
                try (var inner = Profiler.op("inner", OpCategory.DATA)) {
                    Thread.sleep(20);
                }
            }
            ProfileReport r = p.report();
            ProfileReport.OpRow outer = r.op("outer").orElseThrow(), inner = r.op("inner").orElseThrow();
            assertEquals(inner.totalNanos(), inner.selfNanos());
            assertEquals(outer.totalNanos(), outer.selfNanos() + inner.selfNanos());
            assertTrue(outer.selfNanos() >= 10_000_000, "outer slept 10 ms itself: " + outer.selfNanos());
            assertTrue(inner.selfNanos() >= 20_000_000, "inner slept 20 ms itself: " + inner.selfNanos());
            assertTrue(r.selfNanos() <= r.wallNanos());
        }
    }

    @Test
    void selfTimesOfAWorkloadSumToAtMostTheWallTimeAndCategoriesSumToTheOps() {
        Tensor x = randn(16, 32).requiresGrad(true), w = randn(32, 8).requiresGrad(true);
        Tensor wn = randn(8);
        try (ProfilerSession p = Profiler.start()) {
            Tensor h = x.matmul(w).relu().layerNorm(new int[] {8}, wn, null, 1e-5);
            h.softmax(-1).sum().backward();
            ProfileReport r = p.report();
            assertTrue(r.selfNanos() <= r.wallNanos(), r.selfNanos() + " > wall " + r.wallNanos());
            long categorySelf = r.categories().stream().mapToLong(ProfileReport.CategoryRow::selfNanos).sum();
            long categoryCalls = r.categories().stream().mapToLong(ProfileReport.CategoryRow::calls).sum();
            long categoryFlops = r.categories().stream().mapToLong(ProfileReport.CategoryRow::flops).sum();
            assertEquals(r.selfNanos(), categorySelf);
            assertEquals(r.ops().stream().mapToLong(ProfileReport.OpRow::calls).sum(), categoryCalls);
            assertEquals(r.flops(), categoryFlops);
            for (ProfileReport.OpRow row : r.ops()) {
                assertTrue(row.selfNanos() <= row.totalNanos(), row.toString());
                assertTrue(row.selfFlops() <= row.flops(), row.toString());
            }
        }
    }

    @Test
    void backwardRulesAppearUnderTheForwardOpsCategoryAndTheirOpsUnderTheirOwnNames() {
        Tensor a = randn(64, 32).requiresGrad(true), b = randn(32, 16).requiresGrad(true);
        try (ProfilerSession p = Profiler.start()) {
            a.matmul(b).sum().backward();
            ProfileReport r = p.report();
            ProfileReport.OpRow rule = r.op("matmul.backward").orElseThrow();
            assertEquals(1, rule.calls());
            assertEquals(OpCategory.MATMUL, rule.category());
            assertEquals(0, rule.selfFlops(), "the rule's own code is glue");
            assertEquals(2 * MATMUL_FLOPS, rule.flops(), "its two gradient matmuls, counted inclusively");
            ProfileReport.OpRow matmul = r.op("matmul").orElseThrow();
            assertEquals(3, matmul.calls(), "forward plus one per operand gradient");
            assertEquals(3 * MATMUL_FLOPS, matmul.flops());
            assertEquals(3 * MATMUL_FLOPS, r.category(OpCategory.MATMUL).flops(), "no double counting through the rule");
            assertEquals(OpCategory.REDUCTION, r.op("sum.backward").orElseThrow().category());
            ProfileReport.OpRow engine = r.op("autograd.backward").orElseThrow();
            assertEquals(1, engine.calls());
            assertTrue(engine.totalNanos() >= rule.totalNanos());
        }
    }
}
