package dev.symbiont.cuda.ptx;

import dev.symbiont.cuda.driver.CudaException;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.driver.KernelArgs;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The interpreter on hand-written PTX programs whose results are known, and on the faults it must report. */
class InterpreterTest {
    private final PtxHarness h = new PtxHarness();

    /** out[i] = in[i] * 3 + i for i < n, one thread each, guarded by a predicate. */
    static final String AFFINE = """
            .visible .entry affine(.param .u64 out, .param .u64 in, .param .u32 n)
            {
                .reg .pred %p<2>;
                .reg .b32 %r<8>;
                .reg .b64 %rd<6>;
                ld.param.u64 %rd1, [out];
                ld.param.u64 %rd2, [in];
                ld.param.u32 %r1, [n];
                mov.u32 %r2, %ctaid.x;
                mov.u32 %r3, %ntid.x;
                mov.u32 %r4, %tid.x;
                mad.lo.s32 %r5, %r2, %r3, %r4;
                setp.ge.u32 %p1, %r5, %r1;
                @%p1 bra $L_done;
                mul.wide.u32 %rd3, %r5, 4;
                add.s64 %rd4, %rd2, %rd3;
                ld.global.u32 %r6, [%rd4];
                mad.lo.s32 %r7, %r6, 3, %r5;
                add.s64 %rd5, %rd1, %rd3;
                st.global.u32 [%rd5], %r7;
            $L_done:
                ret;
            }
            """;

    @Test
    void predicatedArithmeticOverSeveralBlocks() {
        Driver.Function f = h.kernel(AFFINE, "affine");
        int[] in = new int[70];
        for (int i = 0; i < in.length; i++) in[i] = i * i - 50;
        long src = h.ints(in), dst = h.ints(new int[70]);
        h.launch(f, 3, 32, KernelArgs.of().pointer(dst).pointer(src).i32(70));
        int[] out = h.ints(dst, 70);
        for (int i = 0; i < 70; i++) assertEquals(in[i] * 3 + i, out[i], "element " + i);
        assertTrue(h.driver.instructions() > 70 * 10, "instructions counted: " + h.driver.instructions());
    }

    @Test
    void aWriteOneElementPastTheAllocationIsReportedWithTheAllocation() {
        Driver.Function f = h.kernel(AFFINE, "affine");
        long src = h.ints(new int[33]), dst = h.ints(new int[32]);
        var e = assertThrows(PtxException.class, () -> h.launch(f, 2, 32, KernelArgs.of().pointer(dst).pointer(src).i32(33)));
        assertTrue(e.getMessage().contains("out-of-bounds global write of 4 bytes"), e.getMessage());
        assertTrue(e.getMessage().contains("0 bytes past the end of the allocation at 0x" + Long.toHexString(dst) + " of 128 bytes"), e.getMessage());
        assertTrue(e.getMessage().contains("affine, line") && e.getMessage().contains("block (1, 0, 0), thread (0, 0, 0)"), e.getMessage());
    }

    @Test
    void argumentsAreCheckedAgainstTheDeclaredParameters() {
        Driver.Function f = h.kernel(AFFINE, "affine");
        var count = assertThrows(CudaException.class, () -> h.launch(f, 1, 1, KernelArgs.of().pointer(0)));
        assertTrue(count.getMessage().contains("affine takes 3 parameters, the launch passed 1"), count.getMessage());
        var size = assertThrows(CudaException.class, () -> h.launch(f, 1, 1, KernelArgs.of().pointer(0).pointer(0).i64(3)));
        assertTrue(size.getMessage().contains("parameter 2 (n) is 4 bytes, the launch passed 8"), size.getMessage());
    }

    /** A block-wide sum in shared memory: a tree with a barrier between levels. */
    private static String blockSum(boolean withBarrier) {
        return """
            .shared .align 4 .b8 partial[256];
            .visible .entry blocksum(.param .u64 out, .param .u64 in)
            {
                .reg .pred %p<3>;
                .reg .b32 %r<12>;
                .reg .b64 %rd<8>;
                ld.param.u64 %rd1, [out];
                ld.param.u64 %rd2, [in];
                mov.u32 %r1, %tid.x;
                mul.wide.u32 %rd3, %r1, 4;
                add.s64 %rd4, %rd2, %rd3;
                ld.global.u32 %r2, [%rd4];
                mov.u64 %rd5, partial;
                cvt.u32.u64 %r10, %rd5;
                shl.b32 %r3, %r1, 2;
                add.s32 %r4, %r10, %r3;
                st.shared.u32 [%r4], %r2;
                BARRIER
                mov.u32 %r5, 32;
            $L_loop:
                setp.ge.u32 %p1, %r1, %r5;
                @%p1 bra $L_skip;
                shl.b32 %r6, %r5, 2;
                add.s32 %r7, %r4, %r6;
                ld.shared.u32 %r8, [%r7];
                ld.shared.u32 %r9, [%r4];
                add.s32 %r9, %r9, %r8;
                st.shared.u32 [%r4], %r9;
            $L_skip:
                BARRIER
                shr.u32 %r5, %r5, 1;
                setp.ne.u32 %p2, %r5, 0;
                @%p2 bra $L_loop;
                setp.ne.u32 %p1, %r1, 0;
                @%p1 bra $L_end;
                ld.shared.u32 %r11, [%r10];
                st.global.u32 [%rd1], %r11;
            $L_end:
                ret;
            }
            """.replace("BARRIER", withBarrier ? "bar.sync 0;" : "");
    }

    @Test
    void aSharedMemoryTreeReductionWithBarriersSums() {
        Driver.Function f = h.kernel(blockSum(true), "blocksum");
        int[] in = new int[64];
        int sum = 0;
        for (int i = 0; i < 64; i++) sum += in[i] = 3 * i - 7;
        long src = h.ints(in), dst = h.ints(0);
        h.launch(f, 1, 64, KernelArgs.of().pointer(dst).pointer(src));
        assertEquals(sum, h.ints(dst, 1)[0]);
    }

    @Test
    void theSameReductionWithoutBarriersIsReportedAsASharedMemoryRace() {
        Driver.Function f = h.kernel(blockSum(false), "blocksum");
        long src = h.ints(new int[64]), dst = h.ints(0);
        var e = assertThrows(PtxException.class, () -> h.launch(f, 1, 64, KernelArgs.of().pointer(dst).pointer(src)));
        assertTrue(e.getMessage().contains("shared-memory race at shared address"), e.getMessage());
    }

    @Test
    void aBarrierOnlySomeThreadsReachIsBarrierDivergence() {
        String ptx = """
                .visible .entry diverge(.param .u64 out)
                {
                    .reg .pred %p<2>;
                    .reg .b32 %r<3>;
                    mov.u32 %r1, %tid.x;
                    setp.lt.u32 %p1, %r1, 16;
                    @%p1 bra $L_a;
                    bar.sync 0;
                    bra.uni $L_end;
                $L_a:
                    bar.sync 0;
                $L_end:
                    ret;
                }
                """;
        Driver.Function f = h.kernel(ptx, "diverge");
        var e = assertThrows(PtxException.class, () -> h.launch(f, 1, 32, KernelArgs.of().pointer(0)));
        assertTrue(e.getMessage().contains("barrier divergence"), e.getMessage());
    }

    @Test
    void anInstructionTheInterpreterDoesNotKnowFailsByName() {
        String ptx = """
                .visible .entry unknown(.param .u64 out)
                {
                    .reg .b32 %r<3>;
                    wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1}, [%r2];
                    ret;
                }
                """;
        var e = assertThrows(PtxException.class, () -> h.kernel(ptx, "unknown"));
        assertTrue(e.getMessage().contains("does not implement instruction wmma"), e.getMessage());
        assertTrue(e.getMessage().contains("line 7"), e.getMessage());
    }

    @Test
    void warpShufflesVotesAndAtomics() {
        String ptx = """
                .visible .entry warp(.param .u64 out, .param .u64 counter)
                {
                    .reg .pred %p<3>;
                    .reg .b32 %r<12>;
                    .reg .b64 %rd<6>;
                    ld.param.u64 %rd1, [out];
                    ld.param.u64 %rd2, [counter];
                    mov.u32 %r1, %tid.x;
                    mov.u32 %r2, %r1;
                    shfl.sync.down.b32 %r3|%p1, %r2, 16, 31, -1;
                    add.s32 %r2, %r2, %r3;
                    shfl.sync.bfly.b32 %r3, %r2, 8, 31, -1;
                    add.s32 %r2, %r2, %r3;
                    shfl.sync.bfly.b32 %r3, %r2, 4, 31, -1;
                    add.s32 %r2, %r2, %r3;
                    shfl.sync.bfly.b32 %r3, %r2, 2, 31, -1;
                    add.s32 %r2, %r2, %r3;
                    shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;
                    add.s32 %r2, %r2, %r3;
                    setp.lt.u32 %p2, %r1, 5;
                    vote.sync.ballot.b32 %r4, %p2, -1;
                    shfl.sync.idx.b32 %r5, %r1, 7, 31, -1;
                    atom.global.add.u32 %r6, [%rd2], 1;
                    mul.wide.u32 %rd3, %r1, 16;
                    add.s64 %rd4, %rd1, %rd3;
                    st.global.v4.u32 [%rd4], {%r2, %r4, %r5, %r6};
                    ret;
                }
                """;
        Driver.Function f = h.kernel(ptx, "warp");
        long out = h.ints(new int[32 * 4]), counter = h.ints(0);
        h.launch(f, 1, 32, KernelArgs.of().pointer(out).pointer(counter));
        int[] o = h.ints(out, 128);
        // lanes 0..15 add lane+16 after the down-shuffle, the others keep their own value; then a butterfly over 16
        int expectedLow = 0;
        for (int lane = 0; lane < 16; lane++) expectedLow += lane + lane + 16;
        assertEquals(expectedLow, o[0], "butterfly sum in lane 0");
        assertEquals(0b11111, o[1], "ballot of lanes < 5");
        assertEquals(7, o[2], "idx shuffle from lane 7");
        assertEquals(32, h.ints(counter, 1)[0], "every lane added 1");
        java.util.Set<Integer> old = new java.util.TreeSet<>();
        for (int lane = 0; lane < 32; lane++) old.add(o[4 * lane + 3]);
        assertEquals(32, old.size(), "each atomic returned a distinct old value");
    }

    @Test
    void conversionsRoundAsTheIsaSays() {
        String ptx = """
                .visible .entry convert(.param .u64 out, .param .u64 in)
                {
                    .reg .f32 %f<3>;
                    .reg .b16 %rs<3>;
                    .reg .b32 %r<8>;
                    .reg .b64 %rd<4>;
                    ld.param.u64 %rd1, [out];
                    ld.param.u64 %rd2, [in];
                    ld.global.f32 %f1, [%rd2];
                    cvt.rn.bf16.f32 %rs1, %f1;
                    cvt.rn.f16.f32 %rs2, %f1;
                    cvt.u32.u16 %r1, %rs1;
                    cvt.u32.u16 %r2, %rs2;
                    cvt.rni.s32.f32 %r3, %f1;
                    cvt.rzi.s32.f32 %r4, %f1;
                    cvt.rmi.s32.f32 %r5, %f1;
                    cvt.rpi.s32.f32 %r6, %f1;
                    st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
                    st.global.v2.u32 [%rd1+16], {%r5, %r6};
                    ret;
                }
                """;
        Driver.Function f = h.kernel(ptx, "convert");
        for (float x : new float[] {2.5f, -2.5f, 1.00390625f, 1.01171875f, 65520f, -0.7f, Float.NaN}) {
            long in = h.floats(x), out = h.ints(new int[6]);
            h.launch(f, 1, 1, KernelArgs.of().pointer(out).pointer(in));
            int[] o = h.ints(out, 6);
            int bits = Float.floatToRawIntBits(x);
            int bf16 = Float.isNaN(x) ? 0x7FFF : ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16) & 0xFFFF;
            assertEquals(bf16, o[0], "bf16 of " + x);
            assertEquals(Float.isNaN(x) ? 0x7FFF : Float.floatToFloat16(x) & 0xFFFF, o[1], "f16 of " + x);
            assertEquals(Float.isNaN(x) ? 0 : (int) Math.rint(x), o[2], "rni of " + x);
            assertEquals((int) x, o[3], "rzi of " + x);
            assertEquals(Float.isNaN(x) ? 0 : (int) Math.floor(x), o[4], "rmi of " + x);
            assertEquals(Float.isNaN(x) ? 0 : (int) Math.ceil(x), o[5], "rpi of " + x);
        }
    }
}
