package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Half;
import dev.symbiont.core.Layout;
import dev.symbiont.cuda.driver.KernelArgs;

/**
 * Copies between layouts ({@code copy.cu}), casts and fills. A copy moves bits, so its kernels
 * are per element width ({@code copy_u16/u32/u64}), not per dtype.
 */
final class CudaCopies {
    private final CudaBackend backend;

    CudaCopies(CudaBackend backend) {
        this.backend = backend;
    }

    /** {@code x} seen through {@code layout} as a new contiguous buffer. */
    CudaStorage contiguous(CudaStorage x, Layout layout) {
        backend.enter();
        long n = layout.numel();
        CudaStorage out = backend.empty(x.dtype(), n);
        backend.kernels().launch("copy", "copy_" + width(x.dtype()), n, KernelArgs.of()
                .pointer(out.address()).pointer(x.address()).struct(Strided.of("contiguous", layout), Strided.ALIGN).i64(n));
        return out;
    }

    /** Writes {@code src} through {@code srcLayout} into {@code dst} through {@code dstLayout}; reads all of src first when they share a buffer. */
    void copyInto(CudaStorage dst, Layout dstLayout, CudaStorage src, Layout srcLayout) {
        backend.enter();
        long n = dstLayout.numel();
        CudaStorage from = src;
        Layout fromLayout = srcLayout;
        if (src == dst) {
            from = contiguous(src, srcLayout);
            fromLayout = Layout.contiguous(srcLayout.shape());
        }
        try {
            backend.kernels().launch("copy", "copy_into_" + width(dst.dtype()), n, KernelArgs.of()
                    .pointer(dst.address()).struct(Strided.of("copyInto", dstLayout), Strided.ALIGN)
                    .pointer(from.address()).struct(Strided.of("copyInto", fromLayout), Strided.ALIGN).i64(n));
        } finally {
            if (from != src) from.release();
        }
    }

    /** dst += src (float32) through their layouts, in place; reads all of src first when they share a buffer. */
    void addInto(CudaStorage dst, Layout dstLayout, CudaStorage src, Layout srcLayout) {
        backend.enter();
        long n = dstLayout.numel();
        CudaStorage from = src == dst ? contiguous(src, srcLayout) : src;
        Layout fromLayout = from == src ? srcLayout : Layout.contiguous(srcLayout.shape());
        try {
            backend.kernels().launch("elementwise", "add_into_f32", n, KernelArgs.of()
                    .pointer(dst.address()).struct(Strided.of("addInto", dstLayout), Strided.ALIGN)
                    .pointer(from.address()).struct(Strided.of("addInto", fromLayout), Strided.ALIGN).i64(n));
        } finally {
            if (from != src) from.release();
        }
    }

    /** {@code x} converted to {@code to}, contiguous, as the reference converts ({@code cast.cu}). */
    CudaStorage cast(CudaStorage x, Layout layout, DType to) {
        if (x.dtype() == to) return contiguous(x, layout);
        backend.enter();
        long n = layout.numel();
        CudaStorage out = backend.empty(to, n);
        backend.kernels().launch("cast", "cast_" + suffix(x.dtype()) + "_" + suffix(to), n, KernelArgs.of()
                .pointer(out.address()).pointer(x.address()).struct(Strided.of("cast", layout), Strided.ALIGN).i64(n));
        return out;
    }

    /** {@code size} copies of {@code value} converted to {@code dtype} on the host, exactly as the reference converts it. */
    CudaStorage full(DType dtype, long size, double value) {
        backend.enter();
        CudaStorage out = backend.empty(dtype, size);
        long bits = switch (dtype) {
            case FLOAT32 -> Float.floatToRawIntBits((float) value) & 0xFFFFFFFFL;
            case INT32 -> ((int) value) & 0xFFFFFFFFL;
            case INT64 -> (long) value;
            case BFLOAT16 -> Half.floatToBf16((float) value) & 0xFFFFL;
            case FLOAT16 -> Half.floatToF16((float) value) & 0xFFFFL;
        };
        KernelArgs args = KernelArgs.of().pointer(out.address());
        args = dtype.byteSize() == 8 ? args.i64(bits) : args.i32((int) bits);
        backend.kernels().launch("cast", "fill_" + width(dtype), size, args.i64(size));
        return out;
    }

    /** The kernels' name of a dtype. */
    static String suffix(DType dtype) {
        return switch (dtype) {
            case FLOAT32 -> "f32";
            case INT32 -> "i32";
            case INT64 -> "i64";
            case BFLOAT16 -> "bf16";
            case FLOAT16 -> "f16";
        };
    }

    /** The copy kernels' suffix for a dtype's element width. */
    static String width(DType dtype) {
        return switch (dtype.byteSize()) {
            case 2 -> "u16";
            case 4 -> "u32";
            case 8 -> "u64";
            default -> throw new IllegalArgumentException("cuda copy: no kernel for " + dtype.byteSize() + "-byte " + dtype);
        };
    }
}
