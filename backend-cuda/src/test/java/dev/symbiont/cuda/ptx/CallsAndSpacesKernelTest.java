package dev.symbiont.cuda.ptx;

import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.driver.KernelArgs;
import dev.symbiont.cuda.driver.ModuleImage;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * nvcc's PTX for a kernel calling a non-inlined device function ({@code .func}, {@code call} with
 * {@code .param} arguments and a return value), a runtime-indexed local array, an initialised
 * {@code __constant__} table and a {@code __device__} counter that keeps its value across launches
 * ({@code calls_and_spaces.cu}).
 */
class CallsAndSpacesKernelTest {
    private static final float[] WEIGHTS = {0.5f, -1f, 2f, 4f};

    @Test
    void theDeviceFunctionLocalArrayAndModuleVariablesComputeAsInJava() {
        int n = 50, rank = 5;
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = i % 9 - 4;
        PtxHarness h = new PtxHarness();
        Driver.Module module = h.driver.load(new ModuleImage("calls", NvccKernelsTest.resource("calls_and_spaces.ptx"), new byte[0]));
        Driver.Function f = h.driver.function(module, "calls_and_spaces");
        long in = h.floats(x), out = h.floats(new float[n]), counter = h.ints(0);
        h.launch(f, 2, 32, KernelArgs.of().pointer(out).pointer(counter).pointer(in).i32(n).i32(rank));
        assertArrayEquals(new int[] {7}, h.ints(counter, 1), "the initialised __device__ counter");
        h.launch(f, 2, 32, KernelArgs.of().pointer(out).pointer(counter).pointer(in).i32(n).i32(rank));
        assertArrayEquals(new int[] {8}, h.ints(counter, 1), "the counter keeps its value across launches");
        float[] expected = new float[n];
        for (int i = 0; i < n; i++) {
            float[] local = new float[8];
            for (int d = 0; d < 8; d++) local[d] = x[(i + d) % n];
            float s = local[(rank - 1 - i % rank + 8) % 8];
            for (int j = 0; j < rank; j++) s += local[j] * WEIGHTS[j & 3]; // small integers and halves: exact in any order
            expected[i] = s;
        }
        assertArrayEquals(expected, h.floats(out, n));
    }
}
