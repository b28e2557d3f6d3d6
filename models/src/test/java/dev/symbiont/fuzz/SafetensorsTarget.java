package dev.symbiont.fuzz;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.SafetensorsFile;
import dev.symbiont.io.SafetensorsFormatException;
import dev.symbiont.io.SafetensorsHeader;
import dev.symbiont.io.TensorInfo;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link Safetensors#read} on the reference backend (heap arrays, so the allocation is measured).
 * A load is consistent when the tensors are the header's entries, in order, with its dtypes and
 * shapes, each holding exactly the bytes of its range, and the ranges tile the data section.
 */
final class SafetensorsTarget implements FuzzTarget {
    @Override public String name() { return "safetensors"; }

    @Override public String suffix() { return ".safetensors"; }

    @Override public Class<? extends Exception> failure() { return SafetensorsFormatException.class; }

    @Override
    public Object load(Path file) throws Exception {
        return Safetensors.read(file, new ReferenceBackend());
    }

    @Override
    public void check(Object loaded, Path file, byte[] bytes) throws Exception {
        SafetensorsFile read = (SafetensorsFile) loaded;
        SafetensorsHeader header = Safetensors.header(file);
        assertEquals(new ArrayList<>(header.tensors().keySet()), new ArrayList<>(read.tensors().keySet()));
        assertEquals(header.metadata(), read.metadata());
        ByteBuffer data = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(bytes.length, header.dataStart() + header.dataLength());
        assertEquals(prefix(bytes) + 8, header.dataStart());
        long covered = 0;
        List<TensorInfo> byOffset = new ArrayList<>(header.tensors().values());
        byOffset.sort((a, b) -> Long.compare(a.begin(), b.begin()));
        for (TensorInfo info : byOffset) {
            assertEquals(covered, info.begin(), info.name());
            covered = info.end();
            Tensor t = read.tensors().get(info.name());
            assertEquals(info.dtype(), t.dtype());
            assertArrayEquals(info.shape(), t.shape());
            assertEquals(info.byteLength(), (long) info.numel() * info.dtype().byteSize());
            Object host = t.storage().backend().download(t.storage(), t.layout());
            int at = Math.toIntExact(header.dataStart() + info.begin());
            for (int i = 0; i < info.numel(); i++) {
                long expected, actual;
                switch (host) {
                    case float[] f -> { expected = data.getInt(at + 4 * i); actual = Float.floatToRawIntBits(f[i]); }
                    case int[] n -> { expected = data.getInt(at + 4 * i); actual = n[i]; }
                    case long[] n -> { expected = data.getLong(at + 8 * i); actual = n[i]; }
                    case short[] h -> { expected = data.getShort(at + 2 * i); actual = h[i]; }
                    default -> throw new AssertionError("unexpected host array " + host.getClass());
                }
                if (expected != actual) throw new AssertionError(info.name() + "[" + i + "] is " + actual + ", the file holds " + expected);
            }
        }
        assertEquals(header.dataLength(), covered);
    }

    private static long prefix(byte[] bytes) {
        return ByteBuffer.wrap(bytes, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** Header-length edits, and edits of the header alone with the length kept in step. */
    @Override
    public List<Mutation> formatMutations(Mutation generic) {
        return List.of(SafetensorsTarget::editLength, (in, rng) -> editHeader(in, rng, generic));
    }

    private static byte[] editLength(byte[] in, Random rng) {
        if (in.length < 8) return in;
        long length = prefix(in);
        long[] choices = {0, 1, 2, length - 1, length + 1, length + rng.nextInt(64) - 32, in.length - 8, in.length - 7,
                100_000_000L, 100_000_001L, 1L << 31, 1L << 32, Long.MAX_VALUE, -1, Long.MIN_VALUE, rng.nextLong()};
        byte[] out = in.clone();
        ByteBuffer.wrap(out, 0, 8).order(ByteOrder.LITTLE_ENDIAN).putLong(choices[rng.nextInt(choices.length)]);
        return out;
    }

    static byte[] editHeader(byte[] in, Random rng, Mutation generic) {
        if (in.length < 8) return in;
        long length = prefix(in);
        if (length < 0 || length > in.length - 8) return in;
        byte[] header = generic.apply(Arrays.copyOfRange(in, 8, 8 + (int) length), rng);
        byte[] out = Mutator.concat(new byte[8], header, Arrays.copyOfRange(in, 8 + (int) length, in.length));
        ByteBuffer.wrap(out, 0, 8).order(ByteOrder.LITTLE_ENDIAN).putLong(header.length);
        return out;
    }
}
