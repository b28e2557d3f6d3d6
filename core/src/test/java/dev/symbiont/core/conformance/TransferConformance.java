package dev.symbiont.core.conformance;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.HostSegments;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.heap.HeapMemory;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Host transfers through {@link Backend#upload(DType, MemorySegment)} and
 * {@link Backend#download(Storage, Layout, MemorySegment)}: every dtype's raw bits survive a
 * round trip (NaN payloads and all), a strided view downloads row-major, the host side may be
 * off-heap, a heap array at any byte offset or a read-only mapping, the backend keeps no
 * reference to it, and bad sizes are errors naming the op. Expected bytes are computed here
 * from the layout, not by another backend.
 */
public abstract class TransferConformance {

    protected abstract Backend backend();

    /** Element counts: none, one, odd, and past a pooled buffer's minimum. */
    private static final int[] COUNTS = {0, 1, 7, 4099};

    /** Views over a 64-element storage: offset, transposed, every other, broadcast (stride 0), permuted 3-D, empty. */
    private static final List<Layout> VIEWS = List.of(
            new Layout(new int[] {3, 4}, new int[] {4, 1}, 7),
            new Layout(new int[] {5, 3}, new int[] {1, 5}, 2),
            new Layout(new int[] {6}, new int[] {2}, 1),
            new Layout(new int[] {3, 4}, new int[] {0, 1}, 5),
            new Layout(new int[] {2, 3, 4}, new int[] {1, 8, 2}, 3),
            new Layout(new int[] {0, 3}, new int[] {3, 1}, 0));
    private static final int VIEWED = 64;

    @Test
    void everyDtypeRoundTripsItsRawBitsThroughOffHeapMemory() {
        Backend be = backend();
        for (DType dtype : DType.values()) {
            for (int n : COUNTS) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment source = randomBytes(arena, (long) n * dtype.byteSize(), 31L * n + dtype.ordinal());
                    Storage s = be.upload(dtype, source);
                    assertEquals(n, s.size(), dtype + " x" + n + ": uploaded size");
                    assertEquals(dtype, s.dtype(), dtype + " x" + n + ": uploaded dtype");
                    MemorySegment back = arena.allocate(source.byteSize() + 1);
                    be.download(s, Layout.contiguous(n), back);
                    assertBytes(dtype + " x" + n, source.toArray(ValueLayout.JAVA_BYTE), back.asSlice(0, source.byteSize()));
                }
            }
        }
    }

    @Test
    void theArrayFormsAgreeWithTheSegmentForms() {
        Backend be = backend();
        for (DType dtype : DType.values()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment source = randomBytes(arena, 13L * dtype.byteSize(), dtype.ordinal());
                Object array = be.download(be.upload(dtype, source), Layout.contiguous(13));
                assertTrue(HostSegments.holds(dtype, array), dtype + ": downloaded a " + array.getClass().getSimpleName());
                assertBytes(dtype + " download as array", source.toArray(ValueLayout.JAVA_BYTE), HostSegments.ofArray("test", dtype, array));
                Storage fromArray = be.upload(dtype, array);
                MemorySegment back = arena.allocate(source.byteSize());
                be.download(fromArray, Layout.contiguous(13), back);
                assertBytes(dtype + " upload as array", source.toArray(ValueLayout.JAVA_BYTE), back);
            }
        }
    }

    @Test
    void aStridedViewDownloadsRowMajorIntoEveryKindOfTarget() {
        Backend be = backend();
        for (DType dtype : DType.values()) {
            try (Arena arena = Arena.ofConfined()) {
                int size = dtype.byteSize();
                MemorySegment source = randomBytes(arena, (long) VIEWED * size, 7 + dtype.ordinal());
                byte[] all = source.toArray(ValueLayout.JAVA_BYTE);
                Storage s = be.upload(dtype, source);
                for (Layout view : VIEWS) {
                    byte[] want = viewBytes(all, size, view);
                    String what = dtype + " " + view;
                    MemorySegment offHeap = arena.allocate(want.length);
                    be.download(s, view, offHeap);
                    assertBytes(what + " off-heap", want, offHeap);
                    // a byte[] at an odd offset: no element alignment at all
                    MemorySegment odd = MemorySegment.ofArray(new byte[want.length + 3]).asSlice(3);
                    be.download(s, view, odd);
                    assertBytes(what + " byte[] at offset 3", want, odd);
                    // an array of the dtype's own type, one element in (a backend may write it directly)
                    MemorySegment typed = HostSegments.ofArray("test", dtype, HostSegments.newArray(dtype, view.numel() + 1)).asSlice(size);
                    be.download(s, view, typed);
                    assertBytes(what + " typed array at element 1", want, typed);
                    assertBytes(what + " as array", want, HostSegments.ofArray("test", dtype, be.download(s, view)));
                }
            }
        }
    }

    @Test
    void aDownloadWritesOnlyItsOwnBytesAtTheStartOfTheTarget() {
        Backend be = backend();
        try (Arena arena = Arena.ofConfined()) {
            Storage s = be.upload(DType.INT32, HostSegments.ofArray("test", DType.INT32, new int[] {1, 2, 3, 4, 5, 6}));
            MemorySegment target = arena.allocate(ValueLayout.JAVA_INT, 10).fill((byte) 0x55);
            be.download(s, new Layout(new int[] {2, 2}, new int[] {1, 3}, 1), target.asSlice(4));
            int[] got = target.toArray(ValueLayout.JAVA_INT);
            assertArrayEquals(new int[] {0x55555555, 2, 5, 3, 6, 0x55555555, 0x55555555, 0x55555555, 0x55555555, 0x55555555}, got);
        }
    }

    @Test
    void anUnalignedSliceOfAReadOnlyMappingUploads(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("data.bin");
        float[] values = {1.5f, -2f, Float.MIN_VALUE, Float.NaN, 1e30f};
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bytes = arena.allocate(3 + values.length * 4L);
            MemorySegment.copy(values, 0, bytes, HostSegments.elementLayout(DType.FLOAT32), 3, values.length);
            java.nio.file.Files.write(file, bytes.toArray(ValueLayout.JAVA_BYTE));
        }
        Backend be = backend();
        Storage s;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ); Arena arena = Arena.ofConfined()) {
            MemorySegment mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            s = be.upload(DType.FLOAT32, mapped.asSlice(3));
        } // unmapped here: the storage must hold its own copy
        assertArrayEquals(values, (float[]) be.download(s, Layout.contiguous(values.length)));
    }

    @Test
    void theBackendKeepsNoReferenceToTheHostMemory() {
        Backend be = backend();
        Storage s;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment source = arena.allocate(ValueLayout.JAVA_LONG, 3);
            for (int i = 0; i < 3; i++) source.setAtIndex(ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN), i, 1L << (20 * i));
            s = be.upload(DType.INT64, source);
            source.fill((byte) 0);
        }
        assertArrayEquals(new long[] {1, 1L << 20, 1L << 40}, (long[]) be.download(s, Layout.contiguous(3)));
    }

    @Test
    void badSizesAreErrorsNamingTheOpAndTheSizes() {
        Backend be = backend();
        try (Arena arena = Arena.ofConfined()) {
            throwsMentioning(() -> be.upload(DType.FLOAT32, arena.allocate(10)), "upload", "10 bytes", "float32", "4 bytes");
            throwsMentioning(() -> be.upload(DType.INT64, arena.allocate(12)), "upload", "12 bytes", "int64");
            Storage s = be.upload(DType.FLOAT32, arena.allocate(24));
            throwsMentioning(() -> be.download(s, Layout.contiguous(2, 3), arena.allocate(23)), "download", "24", "23");
            MemorySegment readOnly = arena.allocate(24).asReadOnly();
            throwsMentioning(() -> be.download(s, Layout.contiguous(2, 3), readOnly), "download", "read-only");
            throwsMentioning(() -> be.upload(DType.INT32, new long[] {1}), "upload", "int32", "long[]");
        }
    }

    /**
     * A heap backend cannot hold more elements than a Java array: the upload fails before reading
     * anything, naming the op, dtype and count. The source is a sparse file mapped read-only, so
     * the test needs address space, not memory or disk.
     */
    @Test
    void aHeapBackendRejectsMoreElementsThanAnArrayHolds(@TempDir Path dir) throws Exception {
        Backend be = backend();
        assumeTrue(be instanceof HeapMemory, be.name() + " does not keep its storages in Java arrays");
        long count = ReferenceBackend.MAX_HEAP_ELEMENTS + 1L;
        Path file = dir.resolve("sparse.bin");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(count * 2);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ); Arena arena = Arena.ofConfined()) {
            MemorySegment huge = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            throwsMentioning(() -> be.upload(DType.BFLOAT16, huge), "upload", "bfloat16", Long.toString(count));
        }
    }

    // ---- the tensor-level API on this backend --------------------------------------------------

    @Test
    void fromSegmentAndCopyToMoveTensorsThroughHostMemory() {
        Backend be = backend();
        try (var use = Backends.use(be); Arena arena = Arena.ofConfined()) {
            MemorySegment source = arena.allocate(ValueLayout.JAVA_FLOAT, 6);
            for (int i = 0; i < 6; i++) source.setAtIndex(ValueLayout.JAVA_FLOAT.withOrder(ByteOrder.LITTLE_ENDIAN), i, i + 0.25f);
            Tensor t = Tensor.fromSegment(source, DType.FLOAT32, 2, 3);
            assertSame(be, t.backend());
            assertArrayEquals(new int[] {2, 3}, t.shape());
            assertArrayEquals(new float[] {0.25f, 1.25f, 2.25f, 3.25f, 4.25f, 5.25f}, t.toFloatArray());

            MemorySegment transposed = t.t().toSegment(arena);
            assertEquals(24, transposed.byteSize());
            assertArrayEquals(new float[] {0.25f, 3.25f, 1.25f, 4.25f, 2.25f, 5.25f}, transposed.toArray(ValueLayout.JAVA_FLOAT));

            Tensor halves = Tensor.fromSegment(MemorySegment.ofArray(new short[] {0x3F80, (short) 0xC000}), DType.BFLOAT16, 2);
            MemorySegment bits = arena.allocate(4);
            halves.copyTo(bits);
            assertArrayEquals(new short[] {0x3F80, (short) 0xC000}, bits.toArray(ValueLayout.JAVA_SHORT));
            assertArrayEquals(new float[] {1, -2}, halves.toFloatArray());

            throwsMentioning(() -> Tensor.fromSegment(source, DType.FLOAT32, 5), "fromSegment", "24 bytes", "6", "[5]");
            throwsMentioning(() -> Tensor.fromSegment(source.asSlice(1), DType.FLOAT32, 5), "fromSegment", "23 bytes");
            throwsMentioning(() -> t.copyTo(arena.allocate(20)), "copyTo", "24", "20");
        }
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** {@code n} bytes from a seeded stream: every bit pattern, NaN payloads included. */
    private static MemorySegment randomBytes(Arena arena, long n, long seed) {
        byte[] bytes = new byte[Math.toIntExact(n)];
        new SplittableRandom(seed).nextBytes(bytes);
        return arena.allocate(Math.max(n, 1)).asSlice(0, n).copyFrom(MemorySegment.ofArray(bytes));
    }

    /** The bytes of the elements {@code view} addresses in {@code all}, row-major. */
    private static byte[] viewBytes(byte[] all, int size, Layout view) {
        byte[] out = new byte[view.numel() * size];
        for (int i = 0; i < view.numel(); i++) System.arraycopy(all, view.offsetOf(i) * size, out, i * size, size);
        return out;
    }

    private static void assertBytes(String what, byte[] want, MemorySegment got) {
        byte[] have = got.asSlice(0, want.length).toArray(ValueLayout.JAVA_BYTE);
        if (!Arrays.equals(want, have)) {
            int i = Arrays.mismatch(want, have);
            throw new AssertionError(what + ": byte " + i + " is " + have[i] + ", expected " + want[i]);
        }
    }

    private static void throwsMentioning(Executable call, String... fragments) {
        var e = assertThrows(IllegalArgumentException.class, call);
        for (String f : fragments) assertTrue(e.getMessage().contains(f), "'" + f + "' missing from: " + e.getMessage());
    }
}
