package dev.symbiont.optim;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Parameter;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.symbiont.optim.Scalars.assertClose;
import static dev.symbiont.optim.Scalars.param;
import static dev.symbiont.optim.Scalars.setGrad;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OptimizerTest {

    @Test
    void stepSkipsFrozenParametersAndThoseWithoutGradient() {
        Parameter a = param(1f), b = param(2f), c = param(3f);
        Map<String, Parameter> params = new LinkedHashMap<>();
        params.put("a", a);
        params.put("b", b);
        params.put("c", c);
        SGD sgd = new SGD(params, SGD.options(0.5));
        setGrad(a, 1f);
        setGrad(b, 1f);
        b.freeze(true); // clears b's gradient and stops new ones
        setGrad(b, 1f); // even a gradient set by hand must not move a frozen parameter
        sgd.step();
        assertClose(new double[] {0.5}, a, 0, "a");
        assertClose(new double[] {2}, b, 0, "frozen b");
        assertClose(new double[] {3}, c, 0, "gradless c");
        assertNull(sgd.state("b"));
        assertNull(sgd.state("c"));
    }

    @Test
    void zeroGradClearsEveryGradient() {
        TinyMlp mlp = new TinyMlp(2, 4, 1, 1);
        Adam adam = new Adam(mlp.namedParameters(), Adam.options(0.01));
        mlp.forward(TinyMlp.xorInputs()).sum().backward();
        assertTrue(mlp.parameters().stream().allMatch(p -> p.grad() != null));
        adam.zeroGrad();
        assertTrue(mlp.parameters().stream().allMatch(p -> p.grad() == null));
    }

    @Test
    void splitDecayPutsMatricesInTheDecayGroupOnly() {
        TinyMlp mlp = new TinyMlp(2, 4, 3, 1);
        List<ParamGroup> groups = ParamGroup.splitDecay(mlp, 0.1);
        assertEquals("decay", groups.get(0).name());
        assertEquals(List.of("hidden.weight", "out.weight"), List.copyOf(groups.get(0).params().keySet()));
        assertEquals(List.of("hidden.bias", "out.bias"), List.copyOf(groups.get(1).params().keySet()));

        // Zero gradients: AdamW then only decays, so biases stay put and weights shrink by 1 − lr·wd.
        for (Parameter p : mlp.parameters()) p.value().setGrad(Tensor.zerosLike(p.value()));
        float[] weight = mlp.namedParameters().get("hidden.weight").value().toFloatArray();
        Tensor bias = mlp.namedParameters().get("out.bias").value().add(1.0);
        mlp.namedParameters().get("out.bias").update(bias);
        AdamW adamW = new AdamW(groups, AdamW.options(0.5));
        assertEquals(0.1, groups.get(0).weightDecay());
        assertEquals(0.0, groups.get(1).weightDecay());
        adamW.step();
        float[] after = mlp.namedParameters().get("hidden.weight").value().toFloatArray();
        for (int i = 0; i < weight.length; i++) assertEquals(weight[i] * 0.95, after[i], 1e-6);
        assertArrayEquals(new float[] {1, 1, 1}, mlp.namedParameters().get("out.bias").value().toFloatArray());
    }

    @Test
    void groupsKeepTheirOwnLrUntilSetLrChangesAll() {
        Parameter a = param(1f), b = param(1f);
        SGD sgd = new SGD(List.of(new ParamGroup("a", Map.of("a", a)), new ParamGroup("b", Map.of("b", b), 0.01, 0.0)),
                SGD.options(0.1).weightDecay(0.2));
        assertEquals(0.1, sgd.groups().get(0).lr());
        assertEquals(0.2, sgd.groups().get(0).weightDecay());
        assertEquals(0.01, sgd.groups().get(1).lr());
        assertEquals(0.0, sgd.groups().get(1).weightDecay());
        sgd.setLr(0.3);
        assertEquals(0.3, sgd.groups().get(0).lr());
        assertEquals(0.3, sgd.groups().get(1).lr());
        var e = assertThrows(IllegalArgumentException.class, () -> sgd.setLr(-1));
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
    }

    @Test
    void rejectsAParameterInTwoGroupsAndNegativeGroupValues() {
        Parameter a = param(1f);
        var e = assertThrows(IllegalArgumentException.class, () -> new SGD(
                List.of(new ParamGroup("x", Map.of("a", a)), new ParamGroup("y", Map.of("tied", a))), SGD.options(0.1)));
        assertTrue(e.getMessage().startsWith("SGD:") && e.getMessage().contains("tied"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Adam(List.of(new ParamGroup("x", Map.of("a", a), -0.5)),
                Adam.options(0.1)));
        assertTrue(e.getMessage().startsWith("Adam:") && e.getMessage().contains("-0.5"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new SGD(List.of(), SGD.options(0.1)));
        assertTrue(e.getMessage().startsWith("SGD:") && e.getMessage().contains("empty"), e.getMessage());
    }

    @Test
    void stateDictUsesDottedPyTorchLikeKeys() {
        TinyMlp mlp = new TinyMlp(2, 4, 1, 1);
        AdamW adamW = new AdamW(ParamGroup.splitDecay(mlp, 0.1), AdamW.options(1e-3));
        mlp.forward(TinyMlp.xorInputs()).sum().backward();
        adamW.step();
        Map<String, Tensor> state = adamW.stateDict();
        assertEquals(List.of(
                "state.hidden.weight.step", "state.hidden.weight.exp_avg", "state.hidden.weight.exp_avg_sq",
                "state.out.weight.step", "state.out.weight.exp_avg", "state.out.weight.exp_avg_sq",
                "state.hidden.bias.step", "state.hidden.bias.exp_avg", "state.hidden.bias.exp_avg_sq",
                "state.out.bias.step", "state.out.bias.exp_avg", "state.out.bias.exp_avg_sq",
                "param_groups.0.lr", "param_groups.0.weight_decay", "param_groups.1.lr", "param_groups.1.weight_decay"),
                List.copyOf(state.keySet()));
        assertEquals(1, StateScalars.toLong(state.get("state.out.bias.step")));
        assertArrayEquals(new int[] {2, 4}, state.get("state.hidden.weight.exp_avg").shape());
        assertEquals(0.1, StateScalars.toDouble(state.get("param_groups.0.weight_decay")));
    }

    @Test
    void loadRestoresLrExactlyAndStartsUnmentionedParametersFresh() {
        Parameter a = param(1f), b = param(2f);
        Map<String, Parameter> params = new LinkedHashMap<>();
        params.put("a", a);
        params.put("b", b);
        SGD first = new SGD(params, SGD.options(0.1).momentum(0.9));
        setGrad(a, 1f);
        first.step();
        first.setLr(1.0 / 3); // not a float32 value: must come back bit for bit
        SGD second = new SGD(params, SGD.options(0.1).momentum(0.9));
        setGrad(b, 1f);
        second.step();
        second.loadStateDict(first.stateDict());
        assertEquals(1.0 / 3, second.lr());
        assertEquals(1, second.state("a").step());
        assertArrayEquals(new float[] {1f}, second.state("a").buffer("momentum_buffer").toFloatArray());
        assertNull(second.state("b"));
    }

    @Test
    void loadListsEveryMissingUnexpectedAndMismatchedKeyAndChangesNothing() {
        TinyMlp mlp = new TinyMlp(2, 4, 1, 1);
        Adam adam = new Adam(mlp.namedParameters(), Adam.options(1e-3));
        mlp.forward(TinyMlp.xorInputs()).sum().backward();
        adam.step();
        Map<String, Tensor> good = adam.stateDict();
        Map<String, Tensor> bad = new LinkedHashMap<>(good);
        bad.remove("state.hidden.bias.exp_avg_sq");
        bad.remove("param_groups.0.lr");
        bad.put("state.nope.exp_avg", Tensor.zeros(1));
        bad.put("state.out.bias.velocity", Tensor.zeros(1));
        bad.put("state.hidden.weight.exp_avg", Tensor.zeros(4, 2));
        bad.put("state.out.weight.step", Tensor.scalar(1f));
        Tensor before = adam.state("hidden.weight").buffer("exp_avg");

        var e = assertThrows(StateDictException.class, () -> adam.loadStateDict(bad));
        assertEquals(List.of("param_groups.0.lr", "state.hidden.bias.exp_avg_sq"), e.missing());
        assertEquals(List.of("state.nope.exp_avg", "state.out.bias.velocity"), e.unexpected());
        assertEquals(List.of("state.hidden.weight.exp_avg: expected float32 [2, 4], got float32 [4, 2]",
                "state.out.weight.step: expected int64 [], got float32 []"), e.mismatched());
        assertTrue(e.getMessage().startsWith("Adam.loadStateDict: missing keys"), e.getMessage());
        assertTrue(before == adam.state("hidden.weight").buffer("exp_avg"), "state replaced by a failed load");

        adam.loadStateDict(good);
    }
}
