package dev.symbiont.core.profile;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.memory.MemoryMeasure;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Who waits for an asynchronous backend, and when: the profiler after each op's kernel while a
 * session records (never with profiling off), and the memory measurements before they read.
 * The test backend logs calls in order, so no clock is involved.
 */
class SynchronizeTest {

    /** A reference backend that logs its matmul, binary and synchronize calls in order. */
    static class RecordingBackend extends ReferenceBackend {
        final List<String> calls = new ArrayList<>();

        @Override public String name() { return "recording"; }

        @Override
        public Storage matmul(Storage a, Layout aLayout, Storage b, Layout bLayout) {
            calls.add("matmul");
            return super.matmul(a, aLayout, b, bLayout);
        }

        @Override
        public Storage binary(BinaryOp op, Storage a, Layout aLayout, Storage b, Layout bLayout) {
            calls.add("binary " + op);
            return super.binary(op, a, aLayout, b, bLayout);
        }

        @Override public void synchronize() { calls.add("synchronize"); }
    }

    private final RecordingBackend backend = new RecordingBackend();

    private Tensor randn(int... shape) { return Tensor.randn(new Generator(5), shape).to(backend); }

    @Test
    void should_never_synchronize_while_profiling_is_off() {
        Tensor a = randn(4, 3), b = randn(3, 2);
        backend.calls.clear();
        a.matmul(b).add(Tensor.zeros(4, 2).to(backend));
        assertEquals(List.of("matmul", "binary ADD"), backend.calls);
    }

    @Test
    void should_synchronize_each_op_before_its_scope_closes_during_a_session() {
        Tensor a = randn(4, 3), b = randn(3, 2), c = randn(4, 2);
        backend.calls.clear();
        try (ProfilerSession p = Profiler.start()) {
            a.matmul(b).add(c);
        }
        assertEquals(List.of("matmul", "synchronize", "binary ADD", "synchronize"), backend.calls);
    }

    @Test
    void should_synchronize_before_the_memory_report_reads_the_counters() {
        Tensor a = randn(4, 3), b = randn(3, 2);
        backend.calls.clear();
        try (var scope = Backends.use(backend)) {
            MemoryMeasure.peakAbove(backend, () -> a.matmul(b));
            MemoryMeasure.retainedBy(backend, () -> a.matmul(b));
        }
        assertEquals(List.of("synchronize", "matmul", "synchronize", "synchronize", "matmul", "synchronize"), backend.calls);
    }

    @Test
    void should_record_and_pop_the_scope_even_when_the_wait_fails() {
        RecordingBackend failing = new RecordingBackend() {
            @Override public void synchronize() { throw new IllegalStateException("device lost"); }
        };
        Tensor a = Tensor.randn(new Generator(5), 4, 3).to(failing), b = Tensor.randn(new Generator(6), 3, 2).to(failing);
        try (ProfilerSession p = Profiler.start()) {
            var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> a.matmul(b));
            assertEquals("device lost", e.getMessage());
            Tensor.randn(new Generator(7), 2, 2).add(Tensor.randn(new Generator(8), 2, 2));
            ProfileReport r = p.report();
            assertEquals(1, r.op("matmul").orElseThrow().calls());
            assertEquals(r.op("matmul").orElseThrow().totalNanos() + r.op("add").orElseThrow().totalNanos()
                    + r.op("randn").map(ProfileReport.OpRow::totalNanos).orElse(0L), r.selfNanos(),
                    "the op after the failure is a root scope, not nested in the failed one");
        }
    }
}
