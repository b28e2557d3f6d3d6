package dev.symbiont.cuda.ptx;

import dev.symbiont.cuda.driver.KernelArgs;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** setp with every unordered float comparison, a negated combining predicate, and set into integer and float values. */
class CompareAndSetTest {
    private static final String PTX = """
            .visible .entry compare(.param .u64 out, .param .u64 in)
            {
                .reg .pred %p<12>;
                .reg .f32 %f<4>;
                .reg .b32 %r<16>;
                .reg .b64 %rd<3>;
                ld.param.u64 %rd1, [out];
                ld.param.u64 %rd2, [in];
                ld.global.f32 %f1, [%rd2];
                ld.global.f32 %f2, [%rd2+4];
                setp.equ.f32 %p1, %f1, %f2;
                setp.neu.f32 %p2, %f1, %f2;
                setp.ltu.f32 %p3, %f1, %f2;
                setp.gtu.f32 %p4, %f1, %f2;
                setp.nan.f32 %p5, %f1, %f2;
                setp.num.f32 %p6, %f1, %f2;
                setp.ne.f32 %p7, %f1, %f2;
                setp.ge.f32 %p8, %f1, %f2;
                setp.lt.and.f32 %p9|%p10, %f1, %f2, !%p5;
                selp.u32 %r1, 1, 0, %p1;
                selp.u32 %r2, 1, 0, %p2;
                selp.u32 %r3, 1, 0, %p3;
                selp.u32 %r4, 1, 0, %p4;
                selp.u32 %r5, 1, 0, %p5;
                selp.u32 %r6, 1, 0, %p6;
                selp.u32 %r7, 1, 0, %p7;
                selp.u32 %r8, 1, 0, %p8;
                selp.u32 %r9, 1, 0, %p9;
                selp.u32 %r10, 1, 0, %p10;
                set.gtu.u32.f32 %r11, %f1, %f2;
                set.le.f32.f32 %r12, %f1, %f2;
                st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
                st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};
                st.global.v4.u32 [%rd1+32], {%r9, %r10, %r11, %r12};
                ret;
            }
            """;

    @Test
    void unorderedComparisonsAreTrueOnNanAndOrderedOnesFalse() {
        PtxHarness h = new PtxHarness();
        var f = h.kernel(PTX, "compare");
        float nan = Float.NaN;
        float[][] pairs = {{1, 2}, {2, 1}, {3, 3}, {nan, 1}, {1, nan}, {nan, nan}, {-0f, 0f}};
        for (float[] pair : pairs) {
            float a = pair[0], b = pair[1];
            boolean unordered = Float.isNaN(a) || Float.isNaN(b);
            long in = h.floats(a, b), out = h.ints(new int[12]);
            h.launch(f, 1, 1, KernelArgs.of().pointer(out).pointer(in));
            int[] o = h.ints(out, 12);
            String at = " of " + a + ", " + b;
            assertEquals(unordered || a == b ? 1 : 0, o[0], "equ" + at);
            assertEquals(unordered || a != b ? 1 : 0, o[1], "neu" + at);
            assertEquals(unordered || a < b ? 1 : 0, o[2], "ltu" + at);
            assertEquals(unordered || a > b ? 1 : 0, o[3], "gtu" + at);
            assertEquals(unordered ? 1 : 0, o[4], "nan" + at);
            assertEquals(unordered ? 0 : 1, o[5], "num" + at);
            assertEquals(!unordered && a != b ? 1 : 0, o[6], "ne" + at);
            assertEquals(a >= b ? 1 : 0, o[7], "ge" + at);
            assertEquals(a < b && !unordered ? 1 : 0, o[8], "lt.and !nan" + at);
            assertEquals(!(a < b) && !unordered ? 1 : 0, o[9], "the complement, and !nan" + at);
            assertEquals(unordered || a > b ? -1 : 0, o[10], "set.gtu.u32" + at);
            assertEquals(a <= b ? Float.floatToRawIntBits(1f) : 0, o[11], "set.le.f32" + at);
        }
    }
}
