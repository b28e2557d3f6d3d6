package dev.symbiont.nn.conv;

import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import static dev.symbiont.nn.conv.ConvLayersTest.throwsMentioning;
import static org.junit.jupiter.api.Assertions.*;

class PoolLayersTest {
    /** 0, 1, ..., 15 as a (1, 1, 4, 4) image. */
    private static Tensor ramp() { return Tensor.arange(16).reshape(1, 1, 4, 4); }

    @Test
    void should_take_the_maximum_of_each_window() {
        assertArrayEquals(new float[] {5, 7, 13, 15}, new MaxPool2d(2).forward(ramp()).toFloatArray());
        // 3×3, stride 2, padding 1 (ResNet's stem): windows clipped at the border, -inf padding never wins.
        assertArrayEquals(new float[] {5, 7, 13, 15}, new MaxPool2d(3, 2, 1).forward(ramp()).toFloatArray());
        assertArrayEquals(new int[] {2, 3, 4, 4}, new MaxPool2d(3, 2, 1).forward(Tensor.zeros(2, 3, 8, 8)).shape());
        assertArrayEquals(new int[] {1, 1, 2, 2}, new MaxPool2d(2, 2, 0, 1, true).forward(Tensor.zeros(1, 1, 3, 3)).shape());
    }

    @Test
    void should_average_each_window_counting_padding_as_pytorch() {
        assertArrayEquals(new float[] {2.5f, 4.5f, 10.5f, 12.5f}, new AvgPool2d(2).forward(ramp()).toFloatArray());
        // The corner window with padding 1 holds 0, 1, 4, 5 and five padding zeros: /9 counted, /4 not.
        assertEquals(10f / 9, new AvgPool2d(3, 2, 1).forward(ramp()).toFloatArray()[0], 1e-6);
        assertEquals(10f / 4, new AvgPool2d(3, 2, 1, false, false).forward(ramp()).toFloatArray()[0], 1e-6);
    }

    @Test
    void should_average_globally_to_one_by_one() {
        Tensor y = new AdaptiveAvgPool2d(1).forward(ramp());
        assertArrayEquals(new int[] {1, 1, 1, 1}, y.shape());
        assertEquals(7.5f, y.item(), 1e-6);
        assertArrayEquals(new float[] {2.5f, 4.5f, 10.5f, 12.5f}, new AdaptiveAvgPool2d(2, 2).forward(ramp()).toFloatArray());
    }

    @Test
    void should_have_no_parameters() {
        assertTrue(new MaxPool2d(2).stateDict().isEmpty());
        assertTrue(new AvgPool2d(2).stateDict().isEmpty());
        assertTrue(new AdaptiveAvgPool2d(1).stateDict().isEmpty());
    }

    @Test
    void should_reject_bad_windows_naming_the_layer() {
        throwsMentioning(() -> new MaxPool2d(0), "MaxPool2d(kernel 0)", "kernel size must be at least 1");
        throwsMentioning(() -> new MaxPool2d(2, 0, 0), "stride must be at least 1");
        throwsMentioning(() -> new MaxPool2d(3, 2, 2), "padding must be in [0, kernel / 2] = [0, 1], got 2");
        throwsMentioning(() -> new MaxPool2d(3, 1, 0, 0, false), "dilation must be at least 1");
        throwsMentioning(() -> new AvgPool2d(2, 2, -1), "AvgPool2d(kernel 2)", "padding");
        throwsMentioning(() -> new AdaptiveAvgPool2d(0, 3), "AdaptiveAvgPool2d", "0×3");
        throwsMentioning(() -> new MaxPool2d(2).forward(Tensor.zeros(4, 4)), "max_pool2d", "[4, 4]");
    }
}
