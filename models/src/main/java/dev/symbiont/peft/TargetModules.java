package dev.symbiont.peft;

import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Which linear layers get adapters, as PEFT's {@code target_modules} says: a list of names, each
 * matching a module whose name is it or ends with {@code "." + it} ({@code q_proj} matches
 * {@code model.layers.0.self_attn.q_proj}); a regular expression the whole name must match; or
 * {@code "all-linear"}, every linear layer but the output head. Names are the model's module
 * names as adapters name them ({@link ModuleNames}).
 */
public sealed interface TargetModules {
    /** PEFT's shorthand for every linear layer but the output head. */
    String ALL_LINEAR = "all-linear";

    /** Whether the module named {@code name} is a target. */
    boolean matches(String name);

    /** Listed names or suffixes: PEFT's list form. */
    record Names(List<String> names) implements TargetModules {
        public Names {
            if (names.isEmpty()) throw new IllegalArgumentException("LoraConfig: target_modules is an empty list; name at least one module");
            for (String n : names) {
                if (n == null || n.isBlank() || n.startsWith(".") || n.endsWith(".")) {
                    throw new IllegalArgumentException("LoraConfig: target_modules holds " + (n == null ? "null" : "'" + n + "'")
                            + ", not a module name");
                }
            }
            names = List.copyOf(names);
        }

        @Override
        public boolean matches(String name) {
            for (String t : names) if (name.equals(t) || name.endsWith("." + t)) return true;
            return false;
        }

        @Override
        public String toString() { return names.toString(); }
    }

    /** A regular expression the whole module name must match: PEFT's string form. */
    record Regex(String pattern) implements TargetModules {
        public Regex {
            try {
                Pattern.compile(pattern);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("LoraConfig: target_modules '" + pattern + "' is not a regular expression: "
                        + e.getDescription(), e);
            }
        }

        @Override
        public boolean matches(String name) { return Pattern.compile(pattern).matcher(name).matches(); }

        @Override
        public String toString() { return "'" + pattern + "'"; }
    }

    /** Every linear layer but the output head; the saved config lists the names it found, as PEFT's does. */
    record AllLinear() implements TargetModules {
        @Override
        public boolean matches(String name) { return true; }

        @Override
        public String toString() { return ALL_LINEAR; }
    }

    /** Listed names. */
    static TargetModules of(String... names) { return new Names(List.of(names)); }

    /**
     * PEFT's string form: {@code "all-linear"} or a regular expression.
     */
    static TargetModules parse(String value) { return value.equals(ALL_LINEAR) ? new AllLinear() : new Regex(value); }

    /**
     * The default for a model with these adaptable module names, PEFT's for its family: the query
     * and value projections ({@code q_proj}, {@code v_proj}: Llama, Mistral, Qwen2), GPT-2's fused
     * {@code c_attn}, or Symbiont's fused {@code qkv}.
     *
     * @throws IllegalArgumentException when the model has none of them
     */
    static TargetModules defaultFor(Collection<String> names) {
        if (any(names, "q_proj") && any(names, "v_proj")) return of("q_proj", "v_proj");
        if (any(names, "c_attn")) return of("c_attn");
        if (any(names, "qkv")) return of("qkv");
        throw new IllegalArgumentException("LoraConfig: no default target_modules for a model without q_proj/v_proj, c_attn or qkv "
                + "projections; name the modules to adapt");
    }

    private static boolean any(Collection<String> names, String last) {
        return names.stream().anyMatch(n -> n.equals(last) || n.endsWith("." + last));
    }
}
