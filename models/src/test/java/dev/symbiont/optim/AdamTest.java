package dev.symbiont.optim;

import dev.symbiont.nn.Parameter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.symbiont.optim.Scalars.GRADS;
import static dev.symbiont.optim.Scalars.START;
import static dev.symbiont.optim.Scalars.assertClose;
import static dev.symbiont.optim.Scalars.named;
import static dev.symbiont.optim.Scalars.param;
import static dev.symbiont.optim.Scalars.setGrad;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AdamTest {

    @Test
    void firstStepMovesEachParameterByLrAgainstTheGradientSign() {
        // After bias correction m̂ = g and v̂ = g², so the step is lr·g / (|g| + eps) ≈ lr·sign(g).
        Parameter p = param(1.0f, -2.0f, 0.5f);
        Adam adam = new Adam(named(p), Adam.options(0.01));
        setGrad(p, 0.5f, -3.0f, 1e-3f);
        adam.step();
        assertClose(new double[] {0.99, -1.99, 0.49}, p, 1e-6, "p");
        assertEquals(1, adam.state("w").step());
    }

    @ParameterizedTest(name = "decoupled {0}, wd {1}, betas ({2}, {3})")
    @CsvSource({"false, 0, 0.9, 0.999", "false, 0.1, 0.9, 0.999", "true, 0.1, 0.9, 0.999", "true, 0.5, 0.8, 0.95", "false, 0, 0, 0.5"})
    void matchesTorchAdamFormulaOverSeveralSteps(boolean decoupled, double wd, double beta1, double beta2) {
        double lr = 0.02, eps = 1e-8;
        Parameter p = param(START.clone());
        Adam.Options options = Adam.options(lr).betas(beta1, beta2).eps(eps).weightDecay(wd);
        Optimizer opt = decoupled ? new AdamW(named(p), options) : new Adam(named(p), options);
        double[] twin = SGDTest.toDouble(START), m = new double[3], v = new double[3];
        int t = 0;
        for (float[] grad : GRADS) {
            setGrad(p, grad);
            opt.step();
            // torch.optim.Adam / AdamW, written out in double from the paper's form.
            t++;
            for (int i = 0; i < 3; i++) {
                double g = grad[i];
                if (decoupled) twin[i] -= lr * wd * twin[i];
                else g += wd * twin[i];
                m[i] = beta1 * m[i] + (1 - beta1) * g;
                v[i] = beta2 * v[i] + (1 - beta2) * g * g;
                double mHat = m[i] / (1 - Math.pow(beta1, t));
                double denom = Math.sqrt(v[i]) / Math.sqrt(1 - Math.pow(beta2, t)) + eps;
                twin[i] -= lr * mHat / denom;
            }
            assertClose(twin, p, 2e-6, "step " + t);
        }
    }

    @Test
    void adamWDecaysTheParameterWithoutTouchingTheMoments() {
        // With a zero gradient Adam's update is 0/(0 + eps) = 0, so only the decay moves p: p·(1 − lr·wd).
        Parameter p = param(2.0f, -4.0f);
        AdamW adamW = new AdamW(named(p), AdamW.options(0.1).weightDecay(0.5));
        setGrad(p, 0f, 0f);
        adamW.step();
        assertClose(new double[] {1.9, -3.8}, p, 1e-7, "p");
        assertEquals(0f, adamW.state("w").buffer("exp_avg").abs().sum().item());
    }

    @Test
    void defaultsFollowPyTorch() {
        assertEquals(new Adam.Options(1e-3, 0.9, 0.999, 1e-8, 0), Adam.options(1e-3));
        assertEquals(new Adam.Options(1e-3, 0.9, 0.999, 1e-8, 0.01), AdamW.options(1e-3));
    }

    @Test
    void rejectsBadHyperparametersNamingTheOptimizerAndValue() {
        Parameter p = param(1.0f);
        assertMessage(() -> new Adam(named(p), Adam.options(-0.1)), "Adam", "-0.1");
        assertMessage(() -> new AdamW(named(p), AdamW.options(0.1).betas(1.0, 0.999)), "AdamW", "1.0");
        assertMessage(() -> new Adam(named(p), Adam.options(0.1).betas(0.9, -0.2)), "Adam", "-0.2");
        assertMessage(() -> new AdamW(named(p), AdamW.options(0.1).eps(0)), "AdamW", "0.0");
        assertMessage(() -> new Adam(named(p), Adam.options(0.1).weightDecay(-1)), "Adam", "-1");
        assertMessage(() -> new AdamW(java.util.Map.of(), AdamW.options(0.1)), "AdamW", "empty parameter list");
    }

    static void assertMessage(org.junit.jupiter.api.function.Executable build, String optimizer, String value) {
        var e = assertThrows(IllegalArgumentException.class, build);
        assertTrue(e.getMessage().startsWith(optimizer + ":") && e.getMessage().contains(value), e.getMessage());
    }
}
