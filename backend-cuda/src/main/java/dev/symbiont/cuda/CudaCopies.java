package dev.symbiont.cuda;

import dev.symbiont.core.DType;
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

    void addInto(CudaStorage dst, Layout dstLayout, CudaStorage src, Layout srcLayout) {
        throw new UnsupportedOperationException("cuda backend: addInto not yet implemented");
    }

    CudaStorage cast(CudaStorage x, Layout layout, DType to) {
        throw new UnsupportedOperationException("cuda backend: cast not yet implemented");
    }

    CudaStorage full(DType dtype, long size, double value) {
        throw new UnsupportedOperationException("cuda backend: full not yet implemented");
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
