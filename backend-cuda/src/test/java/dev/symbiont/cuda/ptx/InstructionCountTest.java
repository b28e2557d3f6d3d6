package dev.symbiont.cuda.ptx;

import dev.symbiont.cuda.driver.KernelArgs;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The driver counts every instruction each thread executes, predicated-off ones included, as the speed figures assume. */
class InstructionCountTest {
    @Test
    void everyThreadsInstructionsAreCounted() {
        PtxHarness h = new PtxHarness();
        var f = h.kernel(InterpreterTest.AFFINE, "affine");
        int n = 40;
        long in = h.ints(new int[n]), out = h.ints(new int[n]);
        h.launch(f, 2, 32, KernelArgs.of().pointer(out).pointer(in).i32(n));
        // in range: 3 ld.param, 3 mov, mad, setp, the (not taken) bra, mul.wide, add, ld, mad, add, st, ret = 16;
        // past n: the first 9 of those (to the taken bra), then ret = 10
        assertEquals(n * 16L + (64 - n) * 10L, h.driver.instructions());
        assertEquals(1, h.driver.launches());
    }
}
