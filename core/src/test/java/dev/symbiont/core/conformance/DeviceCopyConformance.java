package dev.symbiont.core.conformance;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Moving tensors between two instances of the backend under test (two devices of one kind,
 * where {@link Backend#copyFrom} may copy directly) and out to the reference: every layout and
 * dtype arrives exactly, and gradients flow back through the moves. {@link #backend()} is asked
 * twice for the second instance; a backend that hands out one shared instance moves nothing here.
 */
public abstract class DeviceCopyConformance extends ConformanceBase {

    /** Another instance of {@code here}'s kind: a second reference for the reference run, else a second backend(). */
    private Backend sibling(Backend here) {
        return here == reference() ? new ReferenceBackend() : backend();
    }

    @ParameterizedTest(name = "{0} input")
    @ValueSource(strings = {"contiguous", "transposed", "permuted", "strided", "expanded"})
    void movesToAnotherInstanceAndBackKeepValuesAndGradients(String layout) {
        assertMatchesReference("to another instance, " + layout, in -> {
            Backend here = Backends.current(), there = sibling(here);
            Tensor moved = in.inLayout(layout, 4, 6, 5).to(there);
            assertSame(there, moved.backend(), "the moved tensor lives on the target");
            return moved.mul(3.0).to(here);
        }, EXACT);
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void movesKeepEveryDtypeExactly(DType dtype) {
        assertMatchesReference("to another instance, " + dtype, in -> {
            Backend here = Backends.current(), there = sibling(here);
            return in.constant(4, 7).mul(8.0).to(dtype).slice(1, 1, 7, 2).t().to(there).to(reference()).to(here);
        }, EXACT);
    }

    @Test
    void copyFromGivesNullOrAContiguousCopyOfTheViewOnItsOwnBackend() {
        Backend be = backend();
        for (Backend source : List.of(reference(), sibling(be))) {
            Tensor x;
            try (var on = Backends.use(source)) {
                x = Tensor.randn(new Generator(5), 5, 6, 4).permute(2, 0, 1).slice(2, 1, 6, 2);
            }
            Storage copy = be.copyFrom(x.storage(), x.layout());
            if (copy == null) continue; // this backend cannot read that storage: the caller goes through the host
            String what = be.name() + ".copyFrom(" + source.name() + ")";
            assertSame(be, copy.backend(), what + " lives on the backend that copied");
            assertEquals(x.dtype(), copy.dtype(), what);
            assertEquals(x.numel(), copy.size(), what + " holds exactly the view's elements");
            assertArrayEquals(x.toFloatArray(), Tensor.of(copy, x.shape()).toFloatArray(), what + " in row-major order");
        }
    }
}
