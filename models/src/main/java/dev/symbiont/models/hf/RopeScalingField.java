package dev.symbiont.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.symbiont.nn.attention.RopeScaling;

/**
 * config.json's {@code rope_scaling}: null or {@code {"rope_type": "default"}} for none,
 * {@code {"rope_type": "llama3", "factor", "low_freq_factor", "high_freq_factor",
 * "original_max_position_embeddings"}} for Llama 3.1's ({@code "type"} in older files). The other
 * kinds (linear, dynamic, yarn, longrope) are refused naming the field.
 */
final class RopeScalingField {
    private RopeScalingField() {}

    static RopeScaling read(HfConfig c, String architecture) {
        JsonNode n = c.node("rope_scaling");
        if (n == null) return RopeScaling.NONE;
        if (!n.isObject()) throw c.invalid("rope_scaling", n, "an object or null");
        JsonNode type = n.hasNonNull("rope_type") ? n.get("rope_type") : n.get("type");
        String kind = type != null && type.isTextual() ? type.asText() : String.valueOf(type);
        return switch (kind) {
            case "default" -> RopeScaling.NONE;
            case "llama3" -> {
                try {
                    yield new RopeScaling.Llama3(number(c, n, "factor"), number(c, n, "low_freq_factor"), number(c, n, "high_freq_factor"),
                            (int) Math.min(Integer.MAX_VALUE, number(c, n, "original_max_position_embeddings")));
                } catch (IllegalArgumentException e) {
                    if (e.getMessage().startsWith(c.file().toString())) throw e;
                    throw new IllegalArgumentException(c.file() + ": field 'rope_scaling': " + e.getMessage(), e);
                }
            }
            default -> throw c.unsupported(architecture, "rope_scaling.rope_type", kind, "llama3, default, or no rope_scaling");
        };
    }

    private static double number(HfConfig c, JsonNode scaling, String field) {
        JsonNode v = scaling.get(field);
        if (v == null || !v.isNumber() || !Double.isFinite(v.doubleValue())) {
            throw c.invalid("rope_scaling." + field, v, "a finite number (llama3 scaling needs it)");
        }
        return v.doubleValue();
    }
}
