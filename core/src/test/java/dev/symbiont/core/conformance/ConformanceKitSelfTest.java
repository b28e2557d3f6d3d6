package dev.symbiont.core.conformance;

import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

import static org.junit.jupiter.api.Assertions.assertThrows;

/** The kit must fail a backend that is wrong, not only pass one that is right. */
class ConformanceKitSelfTest {

    /** A backend whose exp is slightly off and whose matmul ignores the strides of b. */
    static final class BrokenBackend extends ReferenceBackend {
        @Override public String name() { return "broken"; }

        @Override
        public Storage unary(UnaryOp op, Storage x, Layout xLayout) {
            Storage y = super.unary(op, x, xLayout);
            if (op != UnaryOp.EXP) return y;
            return super.binary(dev.symbiont.core.backend.BinaryOp.MUL, y, Layout.contiguous(xLayout.shape()),
                    upload(dev.symbiont.core.DType.FLOAT32, new float[] {1.001f}), new Layout(xLayout.shape(), new int[xLayout.rank()], 0));
        }

        @Override
        public Storage matmul(Storage a, Layout aLayout, Storage b, Layout bLayout) {
            return super.matmul(a, aLayout, b, Layout.contiguous(bLayout.shape()));
        }
    }

    private static final class Kit extends ConformanceBase {
        private final Backend backend = new BrokenBackend();
        @Override protected Backend backend() { return backend; }
    }

    @Test
    void kitFailsABackendWithAWrongForward() {
        Kit kit = new Kit();
        assertThrows(AssertionFailedError.class, () -> kit.assertMatchesReference("exp", in -> in.randn(3, 4).exp(), ConformanceBase.ELEMENTWISE));
    }

    @Test
    void kitFailsABackendThatMishandlesNonContiguousOperands() {
        Kit kit = new Kit();
        kit.assertMatchesReference("contiguous matmul", in -> in.constant(3, 4).matmul(in.constant(4, 5)), ConformanceBase.matmulTolerance(4));
        assertThrows(AssertionFailedError.class,
                () -> kit.assertMatchesReference("transposed matmul", in -> in.randn(3, 4).matmul(in.transposed(4, 5)), ConformanceBase.matmulTolerance(4)));
    }

    @Test
    void kitFailsABackendWhoseGradientIsWrongEvenWhenTheForwardIsRight() {
        Kit kit = new Kit();
        // The forward matmul a @ b is fine for contiguous b, but its backward a^T @ g reads a transposed: wrong.
        assertThrows(AssertionFailedError.class,
                () -> kit.assertMatchesReference("matmul grads", in -> in.randn(3, 4).matmul(in.randn(4, 5).detach()).sum(), ConformanceBase.matmulTolerance(4)));
    }

    /** A backend whose direct copy from another instance reads the source as if it were contiguous. */
    static final class StridelessCopies extends ReferenceBackend {
        @Override
        public Storage copyFrom(Storage source, Layout layout) {
            return super.copyFrom(source, Layout.contiguous(layout.shape()));
        }
    }

    private static final class TransferKit extends DeviceCopyConformance {
        @Override protected Backend backend() { return new StridelessCopies(); }
    }

    @Test
    void kitFailsABackendWhoseDirectCopyIgnoresTheSourceLayout() {
        TransferKit kit = new TransferKit();
        kit.movesToAnotherInstanceAndBackKeepValuesAndGradients("contiguous");
        assertThrows(AssertionFailedError.class, () -> kit.movesToAnotherInstanceAndBackKeepValuesAndGradients("transposed"));
        assertThrows(AssertionFailedError.class, kit::copyFromGivesNullOrAContiguousCopyOfTheViewOnItsOwnBackend);
    }

    @Test
    void kitRunsEachSideOnItsOwnBackend() {
        Kit kit = new Kit();
        var outcome = kit.run(kit.backend(), in -> Tensor.ones(2).add(in.randn(2)));
        org.junit.jupiter.api.Assertions.assertEquals(2, outcome.values().length);
    }
}
