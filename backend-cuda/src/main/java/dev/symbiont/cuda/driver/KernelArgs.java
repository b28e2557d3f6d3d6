package dev.symbiont.cuda.driver;

import java.util.ArrayList;
import java.util.List;

/**
 * A launch's arguments in the kernel's parameter order, each with its PTX size. Built fluently:
 * {@code KernelArgs.of().pointer(out).pointer(x).i64(n)}. A by-value struct (a layout's shape and
 * strides) goes in as {@link #struct} bytes, little-endian, laid out as the CUDA C struct is.
 */
public final class KernelArgs {

    /** The kinds of argument a kernel takes. */
    public enum Kind { POINTER, I32, I64, F32, F64, STRUCT }

    /**
     * One argument: {@code bits} holds a scalar's raw bits (a pointer's address, an int, a float's
     * {@code floatToRawIntBits}); {@code bytes} a struct's contents with its {@code align}ment.
     */
    public record Arg(Kind kind, long bits, byte[] bytes, int align) {
        /** Bytes the argument occupies in the kernel's parameter space. */
        public int size() {
            return switch (kind) {
                case I32, F32 -> 4;
                case POINTER, I64, F64 -> 8;
                case STRUCT -> bytes.length;
            };
        }
    }

    private final List<Arg> args = new ArrayList<>();

    private KernelArgs() {}

    public static KernelArgs of() { return new KernelArgs(); }

    public KernelArgs pointer(long address) { return add(Kind.POINTER, address); }

    public KernelArgs i32(int value) { return add(Kind.I32, value); }

    public KernelArgs i64(long value) { return add(Kind.I64, value); }

    public KernelArgs f32(float value) { return add(Kind.F32, Float.floatToRawIntBits(value)); }

    public KernelArgs f64(double value) { return add(Kind.F64, Double.doubleToRawLongBits(value)); }

    /** A struct passed by value; {@code align} is its C alignment (8 for a struct holding a long). */
    public KernelArgs struct(byte[] bytes, int align) {
        args.add(new Arg(Kind.STRUCT, 0, bytes.clone(), align));
        return this;
    }

    public List<Arg> args() { return List.copyOf(args); }

    private KernelArgs add(Kind kind, long bits) {
        args.add(new Arg(kind, bits, null, kind == Kind.I32 || kind == Kind.F32 ? 4 : 8));
        return this;
    }
}
