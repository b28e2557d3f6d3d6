package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.reference.IndexShapes;
import dev.symbiont.cuda.driver.KernelArgs;

import java.util.Arrays;

/**
 * indexSelect, gather and scatterAdd ({@code indexing.cu}) with the reference's semantics and
 * messages. The indices are range-checked on the device first ({@link CudaIndexCheck#checkRange});
 * a bad one is raised at the next synchronisation, and the kernels skip it, so nothing is read
 * or written outside the buffers. indexSelect and gather move bits, for any dtype of x.
 */
final class CudaIndexing {
    private final CudaBackend backend;

    CudaIndexing(CudaBackend backend) { this.backend = backend; }

    /** x with dim replaced by the entries the 1-D index (int32/int64, length k) picks: x's shape with dim of size k, contiguous. */
    CudaStorage indexSelect(CudaStorage x, Layout xLayout, int dim, CudaStorage index, Layout indexLayout) {
        dim = xLayout.dim("indexSelect", dim);
        if (indexLayout.rank() > 1) {
            throw new IllegalArgumentException("indexSelect: index must be 1-D, got shape " + Arrays.toString(indexLayout.shape()));
        }
        backend.enter();
        backend.indexCheck().checkRange("indexSelect", index, indexLayout, dim, xLayout.size(dim));
        int k = indexLayout.numel();
        int[] outShape = xLayout.shape().clone();
        outShape[dim] = k;
        Layout outLayout = Layout.contiguous(outShape);
        long inner = (long) outLayout.stride(dim);
        return take("indexSelect", x, xLayout, dim, index, indexLayout, outShape, inner, k);
    }

    /** out[pos] = x[pos with pos[dim] replaced by index[pos]]: the index's shape, contiguous, x's dtype. */
    CudaStorage gather(CudaStorage x, Layout xLayout, int dim, CudaStorage index, Layout indexLayout) {
        dim = xLayout.dim("gather", dim);
        IndexShapes.checkFits("gather", "index", indexLayout, "x", xLayout, dim);
        backend.enter();
        backend.indexCheck().checkRange("gather", index, indexLayout, dim, xLayout.size(dim));
        int n = indexLayout.numel();
        return take("gather", x, xLayout, dim, index, indexLayout, indexLayout.shape(), 1, Math.max(1, n));
    }

    /** A contiguous float32 copy of base with src[pos] added at pos with pos[dim] replaced by index[pos]; src has the index's shape. */
    CudaStorage scatterAdd(CudaStorage base, Layout baseLayout, int dim, CudaStorage index, Layout indexLayout,
                           CudaStorage src, Layout srcLayout) {
        dim = baseLayout.dim("scatterAdd", dim);
        if (!Arrays.equals(indexLayout.shape(), srcLayout.shape())) {
            throw new IllegalArgumentException("scatterAdd: index shape " + Arrays.toString(indexLayout.shape())
                    + " differs from src shape " + Arrays.toString(srcLayout.shape()));
        }
        IndexShapes.checkFits("scatterAdd", "index", indexLayout, "base", baseLayout, dim);
        backend.enter();
        backend.indexCheck().checkRange("scatterAdd", index, indexLayout, dim, baseLayout.size(dim));
        CudaStorage out = (CudaStorage) backend.contiguous(base, baseLayout);
        Layout outLayout = Layout.contiguous(baseLayout.shape());
        long n = indexLayout.numel();
        backend.kernels().launch("indexing", "scatter_add_f32_" + CudaCopies.suffix(index.dtype()), n, KernelArgs.of()
                .pointer(out.address()).struct(along("scatterAdd", outLayout, indexLayout.shape(), dim), Strided.ALIGN)
                .i64(outLayout.stride(dim)).pointer(index.address()).struct(Strided.of("scatterAdd", indexLayout), Strided.ALIGN)
                .pointer(src.address()).struct(Strided.of("scatterAdd", srcLayout), Strided.ALIGN).i64(n).i64(baseLayout.size(dim)));
        return out;
    }

    /** The take kernel over {@code outShape}: see {@code indexing.cu}. */
    private CudaStorage take(String op, CudaStorage x, Layout xLayout, int dim, CudaStorage index, Layout indexLayout,
                             int[] outShape, long inner, long k) {
        long n = Layout.numel(op, outShape);
        CudaStorage out = backend.empty(x.dtype(), n);
        backend.kernels().launch("indexing", "take_" + CudaCopies.width(x.dtype()) + "_" + CudaCopies.suffix(index.dtype()), n,
                KernelArgs.of().pointer(out.address()).pointer(x.address())
                        .struct(along(op, xLayout, outShape, dim), Strided.ALIGN).i64(xLayout.stride(dim))
                        .pointer(index.address()).struct(Strided.of(op, indexLayout), Strided.ALIGN)
                        .i64(n).i64(xLayout.size(dim)).i64(inner).i64(k));
        return out;
    }

    /** {@code target}'s strides (dim's set to 0) and offset over {@code shape}: the target offset before the index is added. */
    private static byte[] along(String op, Layout target, int[] shape, int dim) {
        int[] strides = target.strides().clone();
        strides[dim] = 0;
        return Strided.of(op, shape, strides, target.offset());
    }
}
