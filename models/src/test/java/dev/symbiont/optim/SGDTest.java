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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SGDTest {

    @Test
    void plainStepSubtractsLrTimesGrad() {
        Parameter p = param(1.0f, -2.0f);
        SGD sgd = new SGD(named(p), SGD.options(0.1));
        setGrad(p, 0.5f, -1.0f);
        sgd.step();
        assertClose(new double[] {0.95, -1.9}, p, 1e-7, "p");
    }

    @Test
    void momentumBufferStartsAtTheGradientThenAveragesWithDampening() {
        // By hand, momentum 0.9, dampening 0.5, lr 0.1: b1 = g1 = 1, p1 = 1 - 0.1 = 0.9;
        // b2 = 0.9·1 + 0.5·2 = 1.9, p2 = 0.9 - 0.19 = 0.71.
        Parameter p = param(1.0f);
        SGD sgd = new SGD(named(p), SGD.options(0.1).momentum(0.9).dampening(0.5));
        setGrad(p, 1.0f);
        sgd.step();
        assertClose(new double[] {0.9}, p, 1e-7, "step 1");
        setGrad(p, 2.0f);
        sgd.step();
        assertClose(new double[] {0.71}, p, 1e-7, "step 2");
    }

    @Test
    void nesterovLooksAheadAlongTheBuffer() {
        // momentum 0.9, lr 0.1: b1 = 1, step 1 uses g + 0.9·b = 1.9 → p1 = 1 - 0.19 = 0.81;
        // b2 = 0.9 + 1 = 1.9, step 2 uses 1 + 0.9·1.9 = 2.71 → p2 = 0.81 - 0.271 = 0.539.
        Parameter p = param(1.0f);
        SGD sgd = new SGD(named(p), SGD.options(0.1).momentum(0.9).nesterov(true));
        setGrad(p, 1.0f);
        sgd.step();
        assertClose(new double[] {0.81}, p, 1e-7, "step 1");
        setGrad(p, 1.0f);
        sgd.step();
        assertClose(new double[] {0.539}, p, 1e-7, "step 2");
    }

    @ParameterizedTest(name = "momentum {0}, dampening {1}, nesterov {2}, wd {3}")
    @CsvSource({"0, 0, false, 0", "0, 0, false, 0.1", "0.9, 0, false, 0", "0.9, 0.3, false, 0.05", "0.8, 0, true, 0.01"})
    void matchesTorchSgdFormulaOverSeveralSteps(double momentum, double dampening, boolean nesterov, double wd) {
        double lr = 0.05;
        Parameter p = param(START.clone());
        SGD sgd = new SGD(named(p), SGD.options(lr).momentum(momentum).dampening(dampening).nesterov(nesterov).weightDecay(wd));
        double[] twin = toDouble(START), buf = null;
        for (float[] grad : GRADS) {
            setGrad(p, grad);
            sgd.step();
            // torch.optim.SGD's single-tensor loop, in double.
            double[] g = new double[twin.length];
            for (int i = 0; i < g.length; i++) g[i] = grad[i] + wd * twin[i];
            if (momentum != 0) {
                if (buf == null) buf = g.clone();
                else for (int i = 0; i < g.length; i++) buf[i] = momentum * buf[i] + (1 - dampening) * g[i];
                for (int i = 0; i < g.length; i++) g[i] = nesterov ? g[i] + momentum * buf[i] : buf[i];
            }
            for (int i = 0; i < g.length; i++) twin[i] -= lr * g[i];
            assertClose(twin, p, 2e-6, "after a step");
        }
    }

    @Test
    void rejectsNesterovWithoutMomentumAndOutOfRangeValues() {
        Parameter p = param(1.0f);
        var e = assertThrows(IllegalArgumentException.class, () -> new SGD(named(p), SGD.options(0.1).nesterov(true)));
        assertTrue(e.getMessage().startsWith("SGD:"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new SGD(named(p), SGD.options(0.1).momentum(1.5)));
        assertTrue(e.getMessage().contains("SGD") && e.getMessage().contains("1.5"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new SGD(named(p), SGD.options(0.1).momentum(0.9).dampening(-1)));
        assertTrue(e.getMessage().contains("SGD") && e.getMessage().contains("-1"), e.getMessage());
    }

    static double[] toDouble(float[] f) {
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) d[i] = f[i];
        return d;
    }
}
