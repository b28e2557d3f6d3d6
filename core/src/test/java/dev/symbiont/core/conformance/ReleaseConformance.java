package dev.symbiont.core.conformance;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.heap.HeapMemory;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.backend.ReduceOp;
import dev.symbiont.core.heap.ReleaseCheck;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.backend.UnaryOp;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Explicit release is checkable: with {@link ReleaseCheck} poisoning, every primitive of the
 * backend (and a fused kernel) handed a released storage throws naming itself, and the buffer
 * reads as NaN. Only for backends that declare {@link HeapMemory}: the poison is written into
 * heap arrays; a device backend checks its own releases.
 */
public abstract class ReleaseConformance extends ConformanceBase {

    @BeforeEach
    void onlyForHeapMemory() {
        assumeTrue(backend() instanceof HeapMemory, backend().name() + " does not keep its storages on the heap");
    }

    /** Each primitive, by the name its error must start with, applied to one released operand x (a 4×6 float32). */
    private Map<String, Function<Tensor, Object>> primitives(Backend be, Tensor other, Tensor index) {
        Storage o = other.storage();
        Layout l = other.layout(), idx = index.layout();
        Map<String, Function<Tensor, Object>> p = new LinkedHashMap<>();
        p.put("download", x -> be.download(x.storage(), x.layout()));
        p.put("contiguous", x -> be.contiguous(x.storage(), x.layout().transpose(0, 1)));
        p.put("copyFrom", x -> be.copyFrom(x.storage(), x.layout().transpose(0, 1)));
        p.put("copyInto", x -> { be.copyInto(o, l, x.storage(), x.layout()); return null; });
        p.put("copyInto ", x -> { be.copyInto(x.storage(), x.layout(), o, l); return null; });
        p.put("cast", x -> be.cast(x.storage(), x.layout(), DType.BFLOAT16));
        p.put("unary EXP", x -> be.unary(UnaryOp.EXP, x.storage(), x.layout()));
        p.put("binary ADD", x -> be.binary(BinaryOp.ADD, o, l, x.storage(), x.layout()));
        p.put("where", x -> be.where(o, l, o, l, x.storage(), x.layout()));
        p.put("reduce SUM", x -> be.reduce(ReduceOp.SUM, x.storage(), x.layout(), new int[] {1}));
        p.put("cumsum", x -> be.cumsum(x.storage(), x.layout(), 1));
        p.put("topk", x -> be.topk(x.storage(), x.layout(), 1, 2, true));
        p.put("matmul", x -> be.matmul(o, l, x.storage(), x.layout().transpose(0, 1)));
        p.put("indexSelect", x -> be.indexSelect(x.storage(), x.layout(), 0, index.storage(), idx));
        p.put("gather", x -> be.gather(x.storage(), x.layout(), 0, index.reshape(1, 1).storage(), new Layout(new int[] {1, 1}, new int[] {1, 1}, 0)));
        p.put("scatterAdd", x -> be.scatterAdd(o, l, 0, index.storage(), new Layout(new int[] {1, 1}, new int[] {1, 1}, 0),
                x.storage(), new Layout(new int[] {1, 1}, new int[] {1, 1}, 0)));
        return p;
    }

    @Test
    void everyPrimitiveRejectsAReleasedStorageNamingItself() {
        Backend be = backend();
        try (var use = Backends.use(be)) {
            Tensor other = Tensor.randn(new Generator(1), 4, 6);
            Tensor index = Tensor.fromArray(new long[] {2}, 1);
            for (var e : primitives(be, other, index).entrySet()) {
                String op = e.getKey().strip();
                Tensor x = released(Tensor.randn(new Generator(2), 4, 6));
                assertReleasedUse(op, () -> e.getValue().apply(x));
            }
            Tensor low = released(Tensor.randn(new Generator(3), 6, 4).to(DType.BFLOAT16));
            assertReleasedUse("matmul", () -> be.matmul(other.storage(), other.layout(), low.storage(), low.layout()));
        }
    }

    @Test
    void aFusedKernelRejectsAReleasedStorage() {
        try (var use = Backends.use(backend())) {
            Tensor x = released(Tensor.randn(new Generator(2), 4, 6));
            var e = assertThrows(IllegalStateException.class, () -> x.softmax(-1));
            assertTrue(e.getMessage().contains("storage used after release()"), e.getMessage());
        }
    }

    @Test
    void aPoisonedReleaseFillsTheBufferWithNaN() {
        try (var use = Backends.use(backend())) {
            Tensor x = released(Tensor.randn(new Generator(2), 4, 6));
            HeapStorage h = HeapStorage.of(x.storage());
            assertTrue(h.isReleased());
            for (float v : h.floats()) assertTrue(Float.isNaN(v));
            Tensor ids = released(Tensor.fromArray(new int[] {1, 2, 3}));
            for (int v : HeapStorage.of(ids.storage()).ints()) assertEquals(Integer.MIN_VALUE, v);
        }
    }

    @Test
    void aReleaseOutsideThePoisonModeMarksNothing() {
        if (ReleaseCheck.poisoning()) return; // the whole run is in the mode
        try (var use = Backends.use(backend())) {
            Tensor x = Tensor.randn(new Generator(2), 4, 6);
            x.storage().release();
            assertFalse(HeapStorage.of(x.storage()).isReleased());
        }
    }

    private static Tensor released(Tensor t) {
        try (var poison = ReleaseCheck.poison()) {
            t.storage().release();
        }
        return t;
    }

    private static void assertReleasedUse(String op, Executable use) {
        var e = assertThrows(IllegalStateException.class, use, op + " accepted a released storage");
        assertTrue(e.getMessage().startsWith(op + ": storage used after release()"), op + ": " + e.getMessage());
    }
}
