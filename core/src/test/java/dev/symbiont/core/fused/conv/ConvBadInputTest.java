package dev.symbiont.core.fused.conv;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Convolutions and pools reject bad arguments with messages naming the op and the shapes. */
class ConvBadInputTest {
    private final Generator gen = new Generator(3);

    private Tensor randn(int... shape) { return Tensor.randn(gen, shape); }

    private static void throwsMentioning(Executable body, String... fragments) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, body);
        String msg = e.getMessage().toLowerCase(Locale.ROOT);
        for (String f : fragments) {
            assertTrue(msg.contains(f.toLowerCase(Locale.ROOT)), "message '" + e.getMessage() + "' does not mention '" + f + "'");
        }
    }

    private static final int[] ONE = {1}, ZERO = {0};

    @Test
    void channelsDisagreeingWithTheWeight() {
        throwsMentioning(() -> Convolutions.conv2d(randn(1, 3, 5, 5), randn(4, 2, 3, 3), null),
                "conv2d", "3 channels", "[1, 3, 5, 5]", "[4, 2, 3, 3]");
        throwsMentioning(() -> Convolutions.conv1d(randn(1, 3, 5), randn(4, 2, 3), null), "conv1d", "[1, 3, 5]", "[4, 2, 3]");
    }

    @Test
    void groupsThatDoNotDivideTheChannels() {
        throwsMentioning(() -> Convolutions.conv2d(randn(1, 4, 5, 5), randn(6, 2, 3, 3), null, 1, 0, 1, 3),
                "conv2d", "groups = 3", "4 channels");
        throwsMentioning(() -> Convolutions.conv2d(randn(1, 4, 5, 5), randn(3, 2, 3, 3), null, 1, 0, 1, 2),
                "conv2d", "groups = 2", "3 output channels");
        throwsMentioning(() -> Convolutions.conv2d(randn(1, 4, 5, 5), randn(4, 4, 3, 3), null, 1, 0, 1, 0), "conv2d", "groups");
    }

    @Test
    void aKernelLargerThanThePaddedInput() {
        throwsMentioning(() -> Convolutions.conv2d(randn(1, 1, 4, 4), randn(1, 1, 5, 5), null, 1, 0, 1, 1),
                "conv2d", "larger than the padded input", "[4, 4]", "[1, 1, 5, 5]");
        throwsMentioning(() -> Convolutions.conv2d(randn(1, 1, 4, 4), randn(1, 1, 3, 3), null, 1, 0, 2, 1),
                "conv2d", "dilation [2, 2]", "larger");
        throwsMentioning(() -> Pooling.maxPool2d(randn(1, 1, 2, 2), 3), "max_pool2d", "larger", "[1, 1, 2, 2]");
    }

    @Test
    void negativePaddingAndZeroStrideOrDilation() {
        throwsMentioning(() -> Convolutions.conv2d(randn(1, 1, 4, 4), randn(1, 1, 3, 3), null, 1, -1, 1, 1),
                "conv2d", "padding must be non-negative", "[-1]");
        throwsMentioning(() -> Convolutions.conv2d(randn(1, 1, 4, 4), randn(1, 1, 3, 3), null, 0, 0, 1, 1),
                "conv2d", "stride must be at least 1");
        throwsMentioning(() -> Convolutions.conv2d(randn(1, 1, 4, 4), randn(1, 1, 3, 3), null, 1, 0, 0, 1),
                "conv2d", "dilation must be at least 1");
        throwsMentioning(() -> Convolutions.conv2d(randn(1, 1, 4, 4), randn(1, 1, 3, 3), null,
                new int[] {1, 1, 1}, ZERO, ONE, 1), "conv2d", "stride must have 1 or 2 values");
        throwsMentioning(() -> Pooling.maxPool2d(randn(1, 1, 4, 4), 2, 0, 0), "max_pool2d", "stride");
        throwsMentioning(() -> Pooling.avgPool2d(randn(1, 1, 4, 4), 2, 2, -1), "avg_pool2d", "padding");
    }

    @Test
    void wrongRanksAreRejected() {
        throwsMentioning(() -> Convolutions.conv2d(randn(3, 5, 5), randn(4, 3, 3, 3), null),
                "conv2d", "4-D input", "[3, 5, 5]");
        throwsMentioning(() -> Convolutions.conv2d(randn(1, 3, 5, 5), randn(4, 3, 3), null), "conv2d", "4-D weight");
        throwsMentioning(() -> Convolutions.conv1d(randn(1, 3, 5, 5), randn(4, 3, 3), null), "conv1d", "3-D input");
        throwsMentioning(() -> Pooling.maxPool2d(randn(3, 5, 5), 2), "max_pool2d", "4-D", "[3, 5, 5]");
        throwsMentioning(() -> Pooling.adaptiveAvgPool2d(randn(5, 5), 1), "adaptive_avg_pool2d", "4-D", "[5, 5]");
    }

    @Test
    void aBiasOfTheWrongLength() {
        throwsMentioning(() -> Convolutions.conv2d(randn(1, 3, 5, 5), randn(4, 3, 3, 3), randn(3)),
                "conv2d", "bias must be (out_channels) = (4)", "bias [3]");
    }

    @Test
    void samePaddingNeedsStrideOneAndPaddingNamesAreChecked() {
        throwsMentioning(() -> Convolutions.conv2d(randn(1, 1, 6, 6), randn(1, 1, 3, 3), null, new int[] {2}, "same", ONE, 1),
                "conv2d", "same", "stride 1");
        throwsMentioning(() -> Convolutions.conv2d(randn(1, 1, 6, 6), randn(1, 1, 3, 3), null, ONE, "full", ONE, 1),
                "conv2d", "'full'");
    }

    @Test
    void poolingPaddingOverHalfTheKernel() {
        throwsMentioning(() -> Pooling.maxPool2d(randn(1, 1, 8, 8), 3, 1, 2), "max_pool2d", "half the kernel", "[2, 2]", "[3, 3]");
        throwsMentioning(() -> Pooling.avgPool2d(randn(1, 1, 8, 8), 2, 2, 2), "avg_pool2d", "half the kernel");
    }

    @Test
    void adaptiveOutputSizeAndDtypes() {
        throwsMentioning(() -> Pooling.adaptiveAvgPool2d(randn(1, 1, 4, 4), 0, 2), "adaptive_avg_pool2d", "at least 1");
        throwsMentioning(() -> Convolutions.conv2d(randn(1, 1, 4, 4).to(DType.INT32), randn(1, 1, 3, 3), null),
                "conv2d", "float32");
    }
}
