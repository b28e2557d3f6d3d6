package dev.symbiont.models.hf;

import java.util.function.Supplier;

/** Checks every architecture makes of its config.json. */
final class HfConfigChecks {
    private HfConfigChecks() {}

    /** {@code hidden_act} is SiLU (the default), and the weights are not quantised ({@link #refuseQuantized}). */
    static void requireSiluUnquantized(HfConfig c, String architecture) {
        String act = c.text("hidden_act", "silu");
        if (!act.equals("silu")) throw c.unsupported(architecture, "hidden_act", act, "silu");
        refuseQuantized(c, architecture);
    }

    /** Quantised checkpoints hold integer or 8-bit weights with scales Symbiont does not read. */
    static void refuseQuantized(HfConfig c, String architecture) {
        if (c.has("quantization_config")) {
            throw c.unsupported(architecture, "quantization_config", c.node("quantization_config").path("quant_method").asText("?"),
                    "unquantised F32, BF16 or F16 weights");
        }
    }

    /** The config {@code build} makes; its validation error (kvHeads not dividing heads, ...) names the file. */
    static <T> T valid(HfConfig c, Supplier<T> build) {
        try {
            return build.get();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(c.file() + ": " + e.getMessage(), e);
        }
    }
}
