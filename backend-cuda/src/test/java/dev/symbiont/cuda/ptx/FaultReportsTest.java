package dev.symbiont.cuda.ptx;

import dev.symbiont.cuda.driver.KernelArgs;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the interpreter reports where compute-sanitizer would: the kernel, the PTX line, the block and thread, the bytes. */
class FaultReportsTest {
    private final PtxHarness h = new PtxHarness();

    /** A kernel's own .shared array: thread 1 reads what thread 0 wrote, with {@code sync} (a barrier, or nothing) between. */
    private static String handOff(String sync) {
        return """
                .visible .entry handoff(.param .u64 out)
                {
                    .shared .align 4 .b8 slot[8];
                    .reg .pred %p<3>;
                    .reg .b32 %r<4>;
                    .reg .b64 %rd<3>;
                    ld.param.u64 %rd1, [out];
                    mov.u32 %r1, %tid.x;
                    setp.ne.u32 %p1, %r1, 0;
                    @%p1 bra $L_skip;
                    st.shared.u32 [slot+4], 42;
                $L_skip:
                    BARRIER
                    setp.ne.u32 %p2, %r1, 1;
                    @%p2 bra $L_end;
                    ld.shared.u32 %r2, [slot+4];
                    st.global.u32 [%rd1], %r2;
                $L_end:
                    ret;
                }
                """.replace("BARRIER", sync);
    }

    @Test
    void aHandOffThroughAKernelsOwnSharedArrayNeedsItsBarrier() {
        long out = h.ints(0);
        h.launch(h.kernel(handOff("bar.sync 0;"), "handoff"), 1, 32, KernelArgs.of().pointer(out));
        assertArrayEquals(new int[] {42}, h.ints(out, 1));
        var e = assertThrows(PtxException.class, () -> h.launch(h.kernel(handOff(""), "handoff"), 1, 32, KernelArgs.of().pointer(out)));
        String m = e.getMessage();
        assertTrue(m.startsWith("handoff, line 19 (ld.shared.u32 %r2, [slot+4]), block (0, 0, 0), thread (1, 0, 0)"), m);
        assertTrue(m.contains("shared-memory race at shared address 4: thread 1 reads (line 19) a byte thread 0 wrote (line 14)"), m);
    }

    @Test
    void withinAWarpASyncwarpOrdersTheHandOffButNotAcrossWarps() {
        long out = h.ints(0);
        h.launch(h.kernel(handOff("bar.warp.sync -1;"), "handoff"), 1, 32, KernelArgs.of().pointer(out));
        assertArrayEquals(new int[] {42}, h.ints(out, 1));
        // thread 32 (the second warp) reads: __syncwarp orders nothing across warps
        String acrossWarps = handOff("bar.warp.sync -1;").replace("setp.ne.u32 %p2, %r1, 1;", "setp.ne.u32 %p2, %r1, 32;");
        var e = assertThrows(PtxException.class, () -> h.launch(h.kernel(acrossWarps, "handoff"), 1, 64, KernelArgs.of().pointer(out)));
        assertTrue(e.getMessage().contains("shared-memory race at shared address 4: thread 32 reads"), e.getMessage());
    }

    @Test
    void aSharedReadPastTheBlocksSharedMemoryIsOutOfBounds() {
        String ptx = """
                .visible .entry overrun(.param .u64 out)
                {
                    .shared .align 4 .b8 tile[16];
                    .reg .b32 %r<4>;
                    .reg .b64 %rd<3>;
                    mov.u32 %r1, %tid.x;
                    shl.b32 %r2, %r1, 2;
                    mov.u32 %r3, tile;
                    add.u32 %r3, %r3, %r2;
                    ld.shared.u32 %r2, [%r3];
                    ret;
                }
                """;
        var e = assertThrows(PtxException.class, () -> h.launch(h.kernel(ptx, "overrun"), 1, 8, KernelArgs.of().pointer(0)));
        String m = e.getMessage();
        assertTrue(m.contains("block (0, 0, 0), thread (4, 0, 0)") && m.contains("out-of-bounds shared read of 4 bytes at shared address 16")
                && m.contains("16 bytes of shared memory"), m);
    }

    @Test
    void aWarpCollectiveWhoseMaskNamesExitedLanesIsReported() {
        String ptx = """
                .visible .entry lonely(.param .u64 out)
                {
                    .reg .pred %p<3>;
                    .reg .b32 %r<3>;
                    mov.u32 %r1, %tid.x;
                    setp.ne.u32 %p1, %r1, 0;
                    @%p1 bra $L_end;
                    setp.gt.u32 %p2, %r1, 5;
                    vote.sync.all.pred %p2, %p2, 0xffffffff;
                $L_end:
                    ret;
                }
                """;
        var e = assertThrows(PtxException.class, () -> h.launch(h.kernel(ptx, "lonely"), 1, 32, KernelArgs.of().pointer(0)));
        assertTrue(e.getMessage().contains("warp collective at line 12 names lane 1 in its member mask 0xffffffff, which has exited"),
                e.getMessage());
    }

    @Test
    void aGlobalReadInNoAllocationNamesTheNearestOne() {
        String ptx = """
                .visible .entry wild(.param .u64 p)
                {
                    .reg .b32 %r<2>;
                    .reg .b64 %rd<2>;
                    ld.param.u64 %rd1, [p];
                    ld.global.u32 %r1, [%rd1+-64];
                    ret;
                }
                """;
        long a = h.ints(1, 2, 3);
        var e = assertThrows(PtxException.class, () -> h.launch(h.kernel(ptx, "wild"), 1, 1, KernelArgs.of().pointer(a)));
        String m = e.getMessage();
        assertTrue(m.startsWith("wild, line 9") && m.contains("out-of-bounds global read of 4 bytes at 0x" + Long.toHexString(a - 64))
                && m.contains("64 bytes before the allocation at 0x" + Long.toHexString(a)), m);
    }
}
