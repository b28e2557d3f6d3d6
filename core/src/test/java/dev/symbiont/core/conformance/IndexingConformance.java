package dev.symbiont.core.conformance;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.ops.Indexing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** index_select, gather, scatter_add, embedding and one_hot against the reference. */
public abstract class IndexingConformance extends ConformanceBase {

    static Stream<Arguments> dimLayoutAndIndexType() {
        List<Arguments> cases = new ArrayList<>();
        for (String layout : LAYOUTS) {
            for (int dim : new int[] {0, 1, -1}) {
                for (DType type : new DType[] {DType.INT64, DType.INT32}) cases.add(Arguments.of(dim, layout, type));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "dim {0} of a {1} input, {2} index")
    @MethodSource("dimLayoutAndIndexType")
    void indexSelectMatchesReferenceWithRepeatedIndices(int dim, String layout, DType indexType) {
        assertMatchesReference("index_select", in -> {
            Tensor x = in.inLayout(layout, 5, 7, 6);
            int size = x.size(dim);
            Tensor index = in.indices(size, 11).to(indexType); // 11 picks from at most 7: repeats
            return x.indexSelect(dim, index);
        }, ELEMENTWISE);
    }

    @Test
    void indexSelectMatchesReferenceWithANonContiguousIndex() {
        assertMatchesReference("index_select strided index", in -> {
            Tensor index = in.indices(9, 20).slice(0, 1, 20, 3);
            return in.transposed(9, 4).indexSelect(0, index);
        }, ELEMENTWISE);
    }

    @ParameterizedTest(name = "dim {0} of a {1} input, {2} index")
    @MethodSource("dimLayoutAndIndexType")
    void gatherMatchesReference(int dim, String layout, DType indexType) {
        assertMatchesReference("gather", in -> {
            Tensor x = in.inLayout(layout, 5, 7, 6);
            int d = dim < 0 ? dim + 3 : dim;
            int[] shape = {4, 5, 3};
            shape[d] = 9;
            Tensor index = in.indices(x.size(d), shape).to(indexType);
            return x.gather(dim, index);
        }, ELEMENTWISE);
    }

    @Test
    void gatherMatchesReferenceWithATransposedIndex() {
        assertMatchesReference("gather transposed index", in -> in.randn(6, 8).gather(1, in.indices(8, 5, 4).t()), ELEMENTWISE);
    }

    @ParameterizedTest(name = "dim {0} of a {1} base, {2} index")
    @MethodSource("dimLayoutAndIndexType")
    void scatterAddMatchesReferenceWithGradientsForBaseAndSource(int dim, String layout, DType indexType) {
        assertMatchesReference("scatter_add", in -> {
            Tensor base = in.inLayout(layout, 5, 7, 6);
            int d = dim < 0 ? dim + 3 : dim;
            int[] shape = {4, 5, 3};
            shape[d] = 13;
            Tensor index = in.indices(base.size(d), shape).to(indexType);
            Tensor src = in.randn(shape);
            return base.scatterAdd(dim, index, src);
        }, ELEMENTWISE);
    }

    @Test
    void scatterAddMatchesReferenceWithNonContiguousSourceAndIndex() {
        assertMatchesReference("scatter_add views", in -> {
            Tensor base = in.randn(4, 6);
            Tensor index = in.indices(4, 6, 7).t();
            Tensor src = in.transposed(7, 6);
            return base.scatterAdd(0, index, src);
        }, ELEMENTWISE);
    }

    @ParameterizedTest(name = "ids of rank {0}")
    @ValueSource(ints = {0, 1, 2, 3})
    void embeddingMatchesReferenceAndAccumulatesRepeatedRows(int rank) {
        assertMatchesReference("embedding", in -> {
            int[] shape = new int[rank];
            for (int i = 0; i < rank; i++) shape[i] = 3 + i;
            Tensor ids = rank == 0 ? in.indices(10, 1).reshape() : in.indices(10, shape);
            return Indexing.embedding(in.randn(10, 7), ids);
        }, ELEMENTWISE);
    }

    @Test
    void embeddingMatchesReferenceOnATransposedWeight() {
        assertMatchesReference("embedding transposed", in -> Indexing.embedding(in.transposed(12, 5), in.indices(12, 4, 9).to(DType.INT32)), ELEMENTWISE);
    }

    @Test
    void oneHotMatchesReference() {
        assertMatchesReference("one_hot", in -> Indexing.oneHot(in.indices(7, 3, 5), 7), EXACT);
        assertMatchesReference("one_hot int32", in -> Indexing.oneHot(in.indices(3, 13).to(DType.INT32), 4), EXACT);
    }

    @Test
    void indexingResultsFeedFurtherOpsLikeReference() {
        assertMatchesReference("pipeline", in -> {
            Tensor table = in.randn(16, 8);
            Tensor h = Indexing.embedding(table, in.indices(16, 2, 5)).softmax(-1);
            var top = h.topk(3, -1, true);
            return top.values().mul(h.gather(2, top.indices()));
        }, ELEMENTWISE);
    }
}
