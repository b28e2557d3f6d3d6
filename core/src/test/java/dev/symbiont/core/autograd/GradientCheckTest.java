package dev.symbiont.core.autograd;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.fused.norm.Normalization;
import dev.symbiont.core.ops.Elementwise;
import dev.symbiont.core.ops.Indexing;
import dev.symbiont.core.ops.Losses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static dev.symbiont.core.autograd.GradCheck.awayFromZero;
import static dev.symbiont.core.autograd.GradCheck.check;
import static dev.symbiont.core.autograd.GradCheck.distinct;
import static dev.symbiont.core.autograd.GradCheck.randn;
import static dev.symbiont.core.autograd.GradCheck.uniform;

/** Every differentiable op's gradient against central finite differences. */
class GradientCheckTest {
    private final Generator g = new Generator(2024);

    @Test
    void gradCheckItselfCatchesAWrongGradient() {
        org.junit.jupiter.api.Assertions.assertThrows(org.opentest4j.AssertionFailedError.class, () -> check("wrong rule", in -> {
            Tensor x = in.get(0);
            Tensor y;
            try (var off = GradMode.disabled()) { y = x.exp(); }
            return Autograd.record("wrong", y, grad -> new Tensor[] {grad.mul(y).mul(1.05)}, x);
        }, randn(g, 1, 3)));
    }

    // ---- elementwise ----------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(UnaryOp.class)
    void unaryOpGradientMatchesFiniteDifferences(UnaryOp op) {
        GradCheck.Input x = switch (op) {
            case ABS, RELU, SIGN -> awayFromZero(g, 3, 5);
            case LOG, SQRT, RSQRT, RECIPROCAL -> uniform(g, 0.5, 2.0, 3, 5);
            default -> randn(g, 1.0, 3, 5);
        };
        check(op.name(), in -> Elementwise.unary(op, in.get(0)), x);
    }

    @ParameterizedTest
    @EnumSource(value = BinaryOp.class, names = {"ADD", "SUB", "MUL", "DIV", "POW"})
    void binaryOpGradientMatchesFiniteDifferencesWithBroadcasting(BinaryOp op) {
        GradCheck.Input a = op == BinaryOp.POW ? uniform(g, 0.5, 2.0, 3, 1, 4) : randn(g, 1.0, 3, 1, 4);
        GradCheck.Input b = switch (op) {
            case DIV -> uniform(g, 0.5, 2.0, 2, 1);
            case POW -> uniform(g, -1.0, 2.0, 2, 1);
            default -> randn(g, 1.0, 2, 1);
        };
        check(op.name(), in -> Elementwise.binary(op, in.get(0), in.get(1)), a, b);
        check(op.name() + " reversed", in -> Elementwise.binary(op, in.get(1), in.get(0)),
                op == BinaryOp.DIV ? uniform(g, 0.5, 2.0, 5) : randn(g, 1.0, 5), op == BinaryOp.POW ? uniform(g, 0.5, 2, 4, 1) : randn(g, 1, 4, 1));
    }

    @ParameterizedTest
    @EnumSource(value = BinaryOp.class, names = {"MAXIMUM", "MINIMUM"})
    void maximumAndMinimumGradientsMatchFiniteDifferencesAwayFromTies(BinaryOp op) {
        GradCheck.Input both = distinct(g, 2, 3, 4);
        float[] a = java.util.Arrays.copyOfRange(both.values(), 0, 12), b = java.util.Arrays.copyOfRange(both.values(), 12, 24);
        check(op.name(), in -> Elementwise.binary(op, in.get(0), in.get(1)),
                new GradCheck.Input(a, new int[] {3, 4}, true), new GradCheck.Input(b, new int[] {3, 4}, true));
    }

    @Test
    void scalarOperandGradientsMatchFiniteDifferences() {
        check("scalar ops", in -> in.get(0).add(1.5).mul(-2.0).sub(0.5).div(3.0), randn(g, 1, 4, 3));
        check("pow scalar", in -> in.get(0).pow(2.5).add(in.get(0).pow(-1.5)), uniform(g, 0.5, 2, 7));
    }

    @Test
    void whereGradientGoesToTheChosenBranchAndSumsOverBroadcasts() {
        Tensor cond = Tensor.fromArray(new float[] {1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1}, 4, 1, 3);
        check("where", in -> Tensor.where(cond, in.get(0), in.get(1)), randn(g, 1, 2, 3), randn(g, 1, 4, 1, 1));
    }

    @Test
    void clampGradientPassesInsideAndStopsOutside() {
        float[] v = {-1.5f, -0.8f, -0.2f, 0.1f, 0.4f, 0.9f, 1.3f, 2.0f};
        check("clamp", in -> in.get(0).clamp(-0.5, 1.0), new GradCheck.Input(v, new int[] {2, 4}, true));
    }

    // ---- reductions -------------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"all", "0", "1", "-1", "0,2"})
    void sumMeanAndVarGradientsMatchFiniteDifferences(String dimSpec) {
        int[] dims = dimSpec.equals("all") ? new int[] {0, 1, 2}
                : java.util.Arrays.stream(dimSpec.split(",")).mapToInt(Integer::parseInt).toArray();
        for (boolean keep : new boolean[] {false, true}) {
            check("sum " + dimSpec, in -> in.get(0).sum(dims, keep), randn(g, 1, 2, 3, 4));
            check("mean " + dimSpec, in -> in.get(0).mean(dims, keep), randn(g, 1, 2, 3, 4));
            check("var " + dimSpec, in -> in.get(0).var(dims, keep), randn(g, 1, 2, 3, 4));
        }
        check("sum()", in -> in.get(0).sum(), randn(g, 1, 2, 3));
        check("mean()", in -> in.get(0).mean(), randn(g, 1, 2, 3));
        check("var correction 0", in -> in.get(0).var(new int[] {1}, 0, true), randn(g, 1, 3, 4));
    }

    @Test
    void maxAndMinGradientsMatchFiniteDifferencesWithoutTies() {
        check("max()", in -> in.get(0).max(), distinct(g, 3, 4));
        check("min()", in -> in.get(0).min(), distinct(g, 3, 4));
        check("max dim", in -> in.get(0).max(1, false), distinct(g, 3, 4));
        check("min dim keep", in -> in.get(0).min(0, true), distinct(g, 3, 4));
        check("amax dims", in -> in.get(0).amax(new int[] {0, 2}, false), distinct(g, 2, 3, 4));
        check("amin dims", in -> in.get(0).amin(new int[] {1, 2}, true), distinct(g, 2, 3, 4));
    }

    @Test
    void logsumexpGradientMatchesFiniteDifferences() {
        check("logsumexp dim", in -> in.get(0).logsumexp(1, false), randn(g, 2, 3, 4));
        check("logsumexp -1 keep", in -> in.get(0).logsumexp(-1, true), randn(g, 2, 2, 3, 5));
        check("logsumexp dims", in -> in.get(0).logsumexp(new int[] {0, 2}, false), randn(g, 1, 2, 3, 4));
        check("logsumexp of a view", in -> in.get(0).t().logsumexp(0, false), randn(g, 1, 3, 4));
    }

    @Test
    void cumsumGradientMatchesFiniteDifferences() {
        check("cumsum 0", in -> in.get(0).cumsum(0), randn(g, 1, 4, 3));
        check("cumsum -1", in -> in.get(0).cumsum(-1), randn(g, 1, 2, 3, 5));
    }

    // ---- linear algebra and normalisation -------------------------------------------------------

    @Test
    void matmulGradientsMatchFiniteDifferences() {
        check("matmul 2-D", in -> in.get(0).matmul(in.get(1)), randn(g, 1, 3, 4), randn(g, 1, 4, 5));
        check("matmul transposed", in -> in.get(0).t().matmul(in.get(1).t()), randn(g, 1, 4, 3), randn(g, 1, 5, 4));
        check("matmul batched", in -> in.get(0).matmul(in.get(1)), randn(g, 1, 2, 3, 4), randn(g, 1, 2, 4, 2));
        check("matmul broadcast batch", in -> in.get(0).matmul(in.get(1)), randn(g, 1, 2, 1, 3, 4), randn(g, 1, 3, 4, 2));
        check("matmul broadcast matrix", in -> in.get(0).matmul(in.get(1)), randn(g, 1, 2, 3, 4), randn(g, 1, 4, 2));
        check("matmul 1-D @ 2-D", in -> in.get(0).matmul(in.get(1)), randn(g, 1, 4), randn(g, 1, 4, 3));
        check("matmul 2-D @ 1-D", in -> in.get(0).matmul(in.get(1)), randn(g, 1, 3, 4), randn(g, 1, 4));
        check("matmul dot", in -> in.get(0).matmul(in.get(1)), randn(g, 1, 5), randn(g, 1, 5));
        check("matmul batched @ 1-D", in -> in.get(0).matmul(in.get(1)), randn(g, 1, 2, 3, 4), randn(g, 1, 4));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, -1})
    void softmaxAndLogSoftmaxGradientsMatchFiniteDifferences(int dim) {
        check("softmax " + dim, in -> in.get(0).softmax(dim), randn(g, 1, 3, 4, 2));
        check("log_softmax " + dim, in -> in.get(0).logSoftmax(dim), randn(g, 1, 3, 4, 2));
    }

    @Test
    void layerNormGradientsForInputWeightAndBiasMatchFiniteDifferences() {
        check("layer_norm", in -> in.get(0).layerNorm(new int[] {5}, in.get(1), in.get(2), 1e-5),
                randn(g, 1, 3, 5), randn(g, 1, 5), randn(g, 1, 5));
        check("layer_norm 2 dims", in -> in.get(0).layerNorm(new int[] {2, 3}, in.get(1), in.get(2), 1e-5),
                randn(g, 1, 2, 2, 3), randn(g, 1, 2, 3), randn(g, 1, 2, 3));
        check("layer_norm plain", in -> in.get(0).layerNorm(new int[] {4}, null, null, 1e-5), randn(g, 1, 3, 4));
    }

    @Test
    void addLayerNormGradientsThroughBothOutputsMatchFiniteDifferences() {
        // The sum also feeds the result (as the residual stream does), so its gradient has two sources.
        check("add_layer_norm", in -> {
            Normalization.AddNorm r = Normalization.addLayerNorm(in.get(0), in.get(1), new int[] {5}, in.get(2), in.get(3), 1e-5);
            return r.output().mul(r.sum());
        }, randn(g, 1, 3, 5), randn(g, 1, 3, 5), randn(g, 1, 5), randn(g, 1, 5));
        check("add_layer_norm norm only", in -> Normalization.addLayerNorm(in.get(0), in.get(1), new int[] {2, 3}, null, null, 1e-5)
                .output(), randn(g, 1, 2, 2, 3), randn(g, 1, 2, 2, 3));
        check("add_layer_norm sum only", in -> Normalization.addLayerNorm(in.get(0), in.get(1), new int[] {4}, null, null, 1e-5)
                .sum().square(), randn(g, 1, 3, 4), randn(g, 1, 3, 4));
    }

    @Test
    void addRmsNormGradientsThroughBothOutputsMatchFiniteDifferences() {
        check("add_rms_norm", in -> {
            Normalization.AddNorm r = Normalization.addRmsNorm(in.get(0), in.get(1), new int[] {5}, in.get(2), 1e-6);
            return r.output().mul(r.sum());
        }, randn(g, 1, 3, 5), randn(g, 1, 3, 5), randn(g, 1, 5));
        check("add_rms_norm norm only", in -> Normalization.addRmsNorm(in.get(0), in.get(1), new int[] {2, 3}, null, 1e-6)
                .output(), randn(g, 1, 2, 2, 3), randn(g, 1, 2, 2, 3));
        check("add_rms_norm sum only", in -> Normalization.addRmsNorm(in.get(0), in.get(1), new int[] {4}, null, 1e-6)
                .sum().square(), randn(g, 1, 3, 4), randn(g, 1, 3, 4));
    }

    @Test
    void rmsNormGradientsForInputAndWeightMatchFiniteDifferences() {
        check("rms_norm", in -> in.get(0).rmsNorm(new int[] {5}, in.get(1), 1e-6), randn(g, 1, 3, 5), randn(g, 1, 5));
        check("rms_norm plain", in -> in.get(0).rmsNorm(new int[] {2, 3}, null, 1e-6), randn(g, 1, 2, 2, 3));
    }

    // ---- views ----------------------------------------------------------------------------------

    @Test
    void everyViewPassesGradientsBack() {
        check("reshape", in -> in.get(0).reshape(4, -1).exp(), randn(g, 1, 2, 3, 2));
        check("reshape of transposed (copy)", in -> in.get(0).t().reshape(6).exp(), randn(g, 1, 2, 3));
        check("view", in -> in.get(0).view(3, 4).exp(), randn(g, 1, 2, 6));
        check("permute", in -> in.get(0).permute(2, 0, 1).exp(), randn(g, 1, 2, 3, 4));
        check("transpose", in -> in.get(0).transpose(0, 2).exp(), randn(g, 1, 2, 3, 4));
        check("t", in -> in.get(0).t().matmul(in.get(0)), randn(g, 1, 3, 2));
        check("narrow", in -> in.get(0).narrow(1, 1, 2).exp(), randn(g, 1, 3, 4));
        check("slice with step", in -> in.get(0).slice(1, 1, 7, 2).exp(), randn(g, 1, 2, 7));
        check("select", in -> in.get(0).select(0, -1).exp(), randn(g, 1, 3, 4));
        check("expand", in -> in.get(0).expand(2, 3, 4).exp(), randn(g, 1, 3, 1));
        check("squeeze all", in -> in.get(0).squeeze().exp(), randn(g, 1, 1, 3, 1));
        check("squeeze dim", in -> in.get(0).squeeze(0).exp(), randn(g, 1, 1, 3));
        check("unsqueeze", in -> in.get(0).unsqueeze(1).exp(), randn(g, 1, 2, 3));
        check("flatten", in -> in.get(0).flatten().exp(), randn(g, 1, 2, 3));
        check("flatten range", in -> in.get(0).flatten(0, 1).exp(), randn(g, 1, 2, 3, 2));
        check("contiguous", in -> in.get(0).t().contiguous().exp(), randn(g, 1, 2, 3));
    }

    // ---- joining ----------------------------------------------------------------------------------

    @Test
    void catStackSplitAndChunkPassGradientsBack() {
        check("cat", in -> Tensor.cat(List.of(in.get(0), in.get(1).exp()), 1), randn(g, 1, 2, 3), randn(g, 1, 2, 2));
        check("stack", in -> Tensor.stack(List.of(in.get(0), in.get(1).exp()), 1), randn(g, 1, 2, 3), randn(g, 1, 2, 3));
        check("split", in -> {
            List<Tensor> parts = in.get(0).split(2, 1);
            return parts.get(0).exp().add(parts.get(1).mul(parts.get(0))).sum(1, false).add(parts.get(2).squeeze(1));
        }, randn(g, 1, 3, 5));
        check("chunk", in -> {
            List<Tensor> parts = in.get(0).chunk(2, 0);
            return parts.get(1).exp().sub(parts.get(0).square());
        }, randn(g, 1, 4, 3));
    }

    // ---- indexing ---------------------------------------------------------------------------------

    @Test
    void indexSelectGradientAddsUpRepeatedIndices() {
        Tensor index = Tensor.fromArray(new long[] {2, 0, 2, 2, 3});
        check("index_select 0", in -> in.get(0).indexSelect(0, index), randn(g, 1, 4, 3));
        check("index_select 1", in -> in.get(0).indexSelect(1, index).exp(), randn(g, 1, 2, 4));
    }

    @Test
    void gatherGradientMatchesFiniteDifferences() {
        Tensor index = Tensor.fromArray(new long[] {0, 2, 2, 1, 0, 0}, 2, 3);
        check("gather 1", in -> in.get(0).gather(1, index), randn(g, 1, 2, 3));
        check("gather 0", in -> in.get(0).gather(0, Tensor.fromArray(new long[] {1, 1, 0}, 1, 3)), randn(g, 1, 2, 3));
    }

    @Test
    void scatterAddGradientsForBaseAndSourceMatchFiniteDifferences() {
        Tensor index = Tensor.fromArray(new long[] {0, 2, 2, 1, 0, 0}, 2, 3);
        check("scatter_add", in -> in.get(0).scatterAdd(1, index, in.get(1)).exp(), randn(g, 1, 2, 3), randn(g, 1, 2, 3));
        check("scatter_add dim 0", in -> in.get(0).scatterAdd(0, index, in.get(1)).square(), randn(g, 1, 3, 3), randn(g, 1, 2, 3));
    }

    @Test
    void embeddingGradientAddsUpRepeatedIds() {
        Tensor ids = Tensor.fromArray(new long[] {1, 3, 1, 0, 3, 3}, 2, 3);
        check("embedding", in -> Indexing.embedding(in.get(0), ids), randn(g, 1, 4, 2));
    }

    @Test
    void topkValuesGradientGoesToThePickedEntries() {
        check("topk largest", in -> in.get(0).topk(2, 1, true).values(), distinct(g, 3, 5));
        check("topk smallest dim 0", in -> in.get(0).topk(2, 0, false).values(), distinct(g, 3, 5));
    }

    @Test
    void trilAndTriuGradientsAreMaskedLikeTheirOutputs() {
        check("tril", in -> in.get(0).tril(0), randn(g, 1, 2, 3, 4));
        check("triu", in -> in.get(0).triu(1), randn(g, 1, 3, 4));
        check("tril negative", in -> in.get(0).tril(-1), randn(g, 1, 4, 3));
    }

    // ---- losses and casts -------------------------------------------------------------------------

    @Test
    void crossEntropyGradientMatchesFiniteDifferencesWithIgnoredTargets() {
        Tensor targets = Tensor.fromArray(new long[] {2, -100, 0, 4});
        check("cross_entropy", in -> in.get(0).crossEntropy(targets), randn(g, 1, 4, 5));
        check("cross_entropy custom ignore", in -> Losses.crossEntropy(in.get(0), Tensor.fromArray(new long[] {1, 1, 3}), 3),
                randn(g, 1, 3, 4));
    }

    @Test
    void mseLossGradientsForInputAndTargetMatchFiniteDifferences() {
        check("mse_loss", in -> in.get(0).mseLoss(in.get(1)), randn(g, 1, 3, 4), randn(g, 1, 3, 4));
    }

    @Test
    void float32CastRoundTripIsTheIdentityForGradients() {
        check("to float32", in -> in.get(0).to(dev.symbiont.core.DType.FLOAT32).exp(), randn(g, 1, 2, 3));
    }
}
