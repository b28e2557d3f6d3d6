package dev.symbiont.core.conformance;

import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

/**
 * Views (whose backward goes through the backend's copies), cat/stack/split/chunk and
 * tril/triu against the reference. Each view is followed by an op so the backend reads it.
 */
public abstract class ViewConformance extends ConformanceBase {

    @ParameterizedTest(name = "{0} input")
    @ValueSource(strings = {"contiguous", "transposed", "permuted", "strided", "expanded"})
    void viewsOfEveryLayoutMatchReferenceForwardAndBackward(String layout) {
        assertMatchesReference("reshape " + layout, in -> in.inLayout(layout, 4, 6, 5).reshape(2, -1, 5).exp(), ELEMENTWISE);
        assertMatchesReference("flatten " + layout, in -> in.inLayout(layout, 4, 6, 5).flatten(1, 2).tanh(), ELEMENTWISE);
        assertMatchesReference("flatten all " + layout, in -> in.inLayout(layout, 4, 6, 5).flatten().sigmoid(), ELEMENTWISE);
        assertMatchesReference("permute " + layout, in -> in.inLayout(layout, 4, 6, 5).permute(2, 0, 1).contiguous(), EXACT);
        assertMatchesReference("transpose " + layout, in -> in.inLayout(layout, 4, 6, 5).transpose(0, 2).square(), ELEMENTWISE);
        assertMatchesReference("narrow " + layout, in -> in.inLayout(layout, 4, 6, 5).narrow(1, 2, 3).exp(), ELEMENTWISE);
        assertMatchesReference("slice " + layout, in -> in.inLayout(layout, 4, 7, 5).slice(1, 1, 7, 3).exp(), ELEMENTWISE);
        assertMatchesReference("select " + layout, in -> in.inLayout(layout, 4, 6, 5).select(2, -2).exp(), ELEMENTWISE);
        assertMatchesReference("unsqueeze/squeeze " + layout,
                in -> in.inLayout(layout, 4, 6, 5).unsqueeze(1).exp().squeeze(1).unsqueeze(-1).squeeze(), ELEMENTWISE);
    }

    @Test
    void viewAndReshapeOfContiguousTensorsMatchReference() {
        assertMatchesReference("view", in -> in.randn(6, 35).view(3, 2, 7, 5).sum(new int[] {1, 3}, false), ACCUMULATING);
        assertMatchesReference("view of narrowed rows", in -> in.randn(8, 12).narrow(0, 2, 5).view(5, 3, 4).exp(), ELEMENTWISE);
        assertMatchesReference("reshape empty", in -> in.randn(0, 6).reshape(3, 0, 2).exp(), ELEMENTWISE);
    }

    @Test
    void expandAndBroadcastToMatchReferenceAndSumGradientsBack() {
        assertMatchesReference("expand", in -> in.randn(3, 1, 5).expand(2, 3, 4, 5).exp(), ELEMENTWISE);
        assertMatchesReference("broadcastTo", in -> in.randn(5).broadcastTo(3, 5).mul(in.randn(3, 5)), ELEMENTWISE);
        assertMatchesReference("expand keep", in -> in.transposed(4, 1).expand(-1, 6).contiguous(), EXACT);
    }

    @Test
    void viewOfAViewMatchesReference() {
        assertMatchesReference("nested", in -> in.randn(6, 8, 10)
                .permute(2, 0, 1).slice(0, 1, 10, 2).narrow(2, 1, 6).select(1, 3).t().exp(), ELEMENTWISE);
    }

    @ParameterizedTest(name = "dim {0}")
    @ValueSource(ints = {0, 1, 2, -1})
    void catMatchesReferenceOnMixedLayouts(int dim) {
        assertMatchesReference("cat " + dim, in -> {
            int d = dim < 0 ? dim + 3 : dim;
            int[] a = {3, 4, 5}, b = {3, 4, 5}, c = {3, 4, 5};
            a[d] = 2; b[d] = 1; c[d] = 7;
            return Tensor.cat(List.of(in.randn(a), in.transposed(b), in.strided(c)), dim).exp();
        }, ELEMENTWISE);
    }

    @Test
    void catWithAnEmptyPartMatchesReference() {
        assertMatchesReference("cat empty", in -> Tensor.cat(List.of(in.randn(0, 3), in.randn(2, 3), in.randn(1, 3)), 0).exp(), ELEMENTWISE);
    }

    @ParameterizedTest(name = "dim {0}")
    @ValueSource(ints = {0, 1, 2, -1})
    void stackMatchesReferenceOnMixedLayouts(int dim) {
        assertMatchesReference("stack " + dim, in -> Tensor.stack(List.of(in.randn(3, 4), in.transposed(3, 4), in.permuted(3, 4)), dim).exp(), ELEMENTWISE);
    }

    @Test
    void splitMatchesReferenceIncludingAShortLastPart() {
        assertMatchesReference("split", in -> {
            List<Tensor> parts = in.transposed(13, 5).split(4, 0);
            return Tensor.cat(List.of(parts.get(0).exp(), parts.get(3).mul(2.0), parts.get(1).tanh()), 0);
        }, ELEMENTWISE);
    }

    @Test
    void chunkMatchesReferenceWithUnevenChunks() {
        assertMatchesReference("chunk", in -> {
            List<Tensor> parts = in.randn(4, 11).chunk(3, 1);
            return Tensor.cat(List.of(parts.get(2).exp(), parts.get(0).sigmoid()), 1);
        }, ELEMENTWISE);
    }

    @ParameterizedTest(name = "diagonal {0}")
    @ValueSource(ints = {-2, -1, 0, 1, 3})
    void trilAndTriuMatchReferenceOnBatchedNonSquareInputs(int diagonal) {
        assertMatchesReference("tril " + diagonal, in -> in.permuted(2, 5, 7).tril(diagonal), ELEMENTWISE);
        assertMatchesReference("triu " + diagonal, in -> in.transposed(2, 7, 5).triu(diagonal), ELEMENTWISE);
    }
}
