package dev.symbiont.cuda.ptx;

import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.driver.KernelArgs;
import dev.symbiont.cuda.driver.ModuleImage;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Runs small hand-written PTX kernels on an {@link InterpretedDriver} for the interpreter's own tests. */
final class PtxHarness {
    static final String HEADER = ".version 7.0\n.target sm_80\n.address_size 64\n";

    final InterpretedDriver driver = new InterpretedDriver(1 << 20);
    final Driver.Stream stream = driver.createStream();

    /** Loads a module from a body of PTX (the header is added) and returns its kernel. */
    Driver.Function kernel(String body, String name) {
        return driver.function(driver.load(new ModuleImage("test", HEADER + body, new byte[0])), name);
    }

    long ints(int... values) {
        long a = driver.malloc(4L * values.length);
        driver.copyToDevice(a, MemorySegment.ofArray(values), stream);
        return a;
    }

    int[] ints(long address, int n) {
        int[] out = new int[n];
        driver.copyToHost(MemorySegment.ofArray(out), address, stream);
        return out;
    }

    float[] floats(long address, int n) {
        float[] out = new float[n];
        driver.copyToHost(MemorySegment.ofArray(out), address, stream);
        return out;
    }

    long floats(float... values) {
        long a = driver.malloc(4L * values.length);
        driver.copyToDevice(a, MemorySegment.ofArray(values), stream);
        return a;
    }

    long longs(long... values) {
        long a = driver.malloc(8L * values.length);
        driver.copyToDevice(a, MemorySegment.ofArray(values), stream);
        return a;
    }

    long[] longs(long address, int n) {
        long[] out = new long[n];
        driver.copyToHost(MemorySegment.ofArray(out), address, stream);
        return out;
    }

    void launch(Driver.Function f, int blocks, int threads, KernelArgs args) {
        driver.launch(f, Dim3.of(blocks), Dim3.of(threads), 0, stream, args);
    }

    static short[] shorts(MemorySegment m) { return m.toArray(ValueLayout.JAVA_SHORT); }
}
