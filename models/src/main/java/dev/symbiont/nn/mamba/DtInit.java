package dev.symbiont.nn.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;

/**
 * The initial bias of Δ shared by Mamba-1 and Mamba-2 (mamba-ssm's {@code dt_init}): dt drawn
 * log-uniform in [10⁻³, 10⁻¹], floored at 10⁻⁴, stored as softplus⁻¹(dt) so that
 * softplus(bias) starts in that range.
 */
final class DtInit {
    private static final double DT_MIN = 1e-3, DT_MAX = 0.1, DT_FLOOR = 1e-4;

    private DtInit() {}

    /** softplus⁻¹(dt) = dt + log(−expm1(−dt)) for {@code count} draws of dt: (count). */
    static Tensor inverseSoftplusOfLogUniformDt(Generator g, int count) {
        float[] bias = new float[count];
        for (int c = 0; c < count; c++) {
            double dt = Math.max(DT_FLOOR, Math.exp(Math.log(DT_MIN) + g.nextDouble() * (Math.log(DT_MAX) - Math.log(DT_MIN))));
            bias[c] = (float) (dt + Math.log(-Math.expm1(-dt)));
        }
        return Tensor.fromArray(bias, count);
    }
}
