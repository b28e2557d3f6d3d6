package dev.symbiont.core.backend;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.TwinProvider.TwinBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Tensor.to(device): between two devices of one kind the target copies directly (no host
 * transfer, counted), between kinds the values pass the host; values and gradients arrive intact.
 */
class DeviceTransferTest {
    private Scope twins;
    private TwinBackend zero, one;

    @BeforeEach
    void registerTwins() {
        twins = TwinProvider.register();
        zero = TwinProvider.twin(0);
        one = TwinProvider.twin(1);
    }

    @AfterEach
    void forgetTwins() { twins.close(); }

    /** A (4, 3) leaf on twin:0 seen transposed, so the copy has a strided layout to walk. */
    private Tensor leafOnZero() {
        try (var on = Backends.use(zero)) {
            return Tensor.randn(new Generator(3), 4, 3).requiresGrad(true);
        }
    }

    @Test
    void should_copy_between_ordinals_of_one_kind_without_the_host_and_send_the_gradient_back() {
        Tensor x = leafOnZero();
        Tensor w;
        try (var on = Backends.use(one)) { w = Tensor.randn(new Generator(4), 3, 4); }
        zero.resetCounts();
        one.resetCounts();

        Tensor y = x.t().to("twin:1");
        y.mul(w).sum().backward();

        assertEquals(0, zero.hostTransfers() + one.hostTransfers(), "uploads/downloads on twin:0 and twin:1");
        assertSame(one, y.backend());
        assertEquals("twin:1", y.device().toString());
        assertSame(zero, x.grad().backend(), "the gradient comes back to x's device");
        assertArrayEquals(x.t().toFloatArray(), y.toFloatArray());
        assertArrayEquals(w.t().to(zero).toFloatArray(), x.grad().toFloatArray());
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void should_copy_every_dtype_between_ordinals_exactly(DType dtype) {
        Tensor x;
        try (var on = Backends.use(zero)) {
            x = Tensor.arange(0, 24, 1, DType.FLOAT32).mul(0.5).reshape(4, 6).to(dtype).slice(1, 1, 6, 2);
        }
        zero.resetCounts();
        Tensor y = x.to(new Device("twin", 1));
        assertEquals(0, zero.hostTransfers() + one.hostTransfers());
        assertEquals(dtype, y.dtype());
        assertArrayEquals(new int[] {4, 3}, y.shape());
        assertArrayEquals(x.toFloatArray(), y.toFloatArray());
    }

    @Test
    void should_go_through_the_host_between_kinds_and_still_send_the_gradient_back() {
        Tensor x = leafOnZero();
        Backend reference = Backends.get("reference");
        zero.resetCounts();
        one.resetCounts();

        Tensor onReference = x.t().to("reference");
        Tensor y = onReference.to("twin:1");
        y.mul(2).sum().backward();

        assertSame(reference, onReference.backend());
        assertEquals(1, zero.downloads, "twin:0 → reference downloads once");
        assertEquals(1, one.uploads, "reference → twin:1 uploads once");
        assertEquals(1, one.downloads, "the gradient leaves twin:1 through the host");
        assertEquals(1, zero.uploads, "and arrives on twin:0 through the host");
        assertArrayEquals(x.t().toFloatArray(), y.toFloatArray());
        float[] twos = new float[12];
        java.util.Arrays.fill(twos, 2f);
        assertArrayEquals(twos, x.grad().toFloatArray());
    }

    @Test
    void should_return_the_tensor_itself_when_it_is_on_the_device_already() {
        Tensor x = leafOnZero();
        assertSame(x, x.to("twin:0"));
        assertSame(x, x.to("twin"));
        assertSame(x, x.to(x.device()));
    }

    @Test
    void should_name_both_devices_and_the_move_when_an_op_mixes_them() {
        Tensor a = leafOnZero();
        Tensor b = a.detach().to("twin:1");
        Throws.mentioning(IllegalArgumentException.class, () -> a.add(b),
                "add: tensors are on different backends (twin:0 [4, 3] and twin:1 [4, 3])", "tensor.to(\"twin:0\")");
        assertArrayEquals(a.mul(2).toFloatArray(), a.add(b.to("twin:0")).toFloatArray());
    }

    @Test
    void should_reject_a_device_string_it_cannot_place_naming_it() {
        Tensor x = leafOnZero();
        Throws.mentioning(IllegalArgumentException.class, () -> x.to("twin:7"), "no device 'twin:7'", "2 devices");
        Throws.mentioning(IllegalArgumentException.class, () -> x.to("twin:-1"), "device 'twin:-1'", "name:ordinal");
    }
}
