package dev.symbiont.cpu.kernels;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class HeadRowsTest {

    /** (batch 2, seq 5, heads 3, d 4) seen as (batch, heads, seq, d), after an offset of 7: what splitHeads makes. */
    private static HeadRows splitHeads(float[] data) {
        int seq = 5, heads = 3, d = 4;
        return new HeadRows(data, 7, seq * heads * d, d, heads * d, 1);
    }

    private static float[] counting(int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = i;
        return x;
    }

    @Test
    void packedHoldsEveryElementOfAHeadSplitInContiguousOrder() {
        HeadRows split = splitHeads(counting(7 + 2 * 5 * 3 * 4));
        assertFalse(split.isPacked(3, 5, 4));
        HeadRows packed = split.packed(2, 3, 5, 4);
        assertTrue(packed.isPacked(3, 5, 4));
        for (int b = 0; b < 2; b++) {
            for (int h = 0; h < 3; h++) {
                for (int i = 0; i < 5; i++) {
                    for (int c = 0; c < 4; c++) {
                        assertEquals(split.data()[split.row(b, h, i) + c], packed.data()[packed.row(b, h, i) + c],
                                "element (" + b + ", " + h + ", " + i + ", " + c + ")");
                    }
                }
            }
        }
    }

    @Test
    void packedReadsStridedColumns() {
        // (1, 1, 3, 2) with columns 3 apart: x[i][c] = data[i + 3c]
        HeadRows columns = new HeadRows(counting(6), 0, 6, 6, 1, 3);
        assertArrayEquals(new float[] {0, 3, 1, 4, 2, 5}, columns.packed(1, 1, 3, 2).data());
    }

    @Test
    void contiguousRowsAreNotCopied() {
        HeadRows rows = HeadRows.contiguous(counting(2 * 3 * 5 * 4), 3, 5, 4);
        assertSame(rows, rows.packed(2, 3, 5, 4));
    }
}
