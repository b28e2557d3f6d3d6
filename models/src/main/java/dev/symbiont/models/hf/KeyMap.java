package dev.symbiont.models.hf;

import java.util.ArrayList;
import java.util.List;

/**
 * How a Symbiont model's state-dict keys are named in a Hugging Face checkpoint: an ordered list
 * of renamed key prefixes, {@code #} standing for a layer number, the rest of the key (the
 * parameter's own name) kept:
 * <pre>
 *   model.layers.#.self_attn.o_proj   ↔   blocks.#.attn.out_proj      model.layers.3.self_attn.o_proj.weight ↔ blocks.3.attn.out_proj.weight
 * </pre>
 * A rule marked {@code transposed} renames a GPT-2 {@code Conv1D}, whose weight is stored
 * (in, out) where Symbiont's Linear holds (out, in): its {@code weight} is transposed on the way
 * in and out (exactly, so a round trip keeps every bit); its bias is not.
 */
public final class KeyMap {
    /**
     * One renamed prefix.
     *
     * @param hf         the prefix in the checkpoint, dotted, {@code #} for a layer number
     * @param symbiont   the prefix in the state dict, with as many {@code #}
     * @param transposed the module is a Conv1D: its weight is stored transposed
     */
    public record Rule(String hf, String symbiont, boolean transposed) {
        public Rule {
            if (count(hf) != count(symbiont)) throw new IllegalArgumentException("KeyMap.Rule: " + hf + " and " + symbiont + " differ in layer numbers");
        }

        private static long count(String pattern) { return pattern.chars().filter(c -> c == '#').count(); }
    }

    /**
     * A key on the other side of the map.
     *
     * @param key        the key
     * @param transposed the tensor is stored transposed in the checkpoint
     */
    public record Mapped(String key, boolean transposed) {}

    private final List<Rule> rules;

    public KeyMap(List<Rule> rules) { this.rules = List.copyOf(rules); }

    /** The rules, in the order they are tried. */
    public List<Rule> rules() { return rules; }

    /** The same map with {@code prefix} before every checkpoint key (GPT-2's {@code transformer.}, which some files leave out). */
    public KeyMap withHfPrefix(String prefix, String... exceptFor) {
        List<Rule> out = new ArrayList<>();
        for (Rule r : rules) out.add(List.of(exceptFor).contains(r.hf) ? r : new Rule(prefix + r.hf, r.symbiont, r.transposed));
        return new KeyMap(out);
    }

    /** The checkpoint's key for a state-dict key, or null when no rule renames it. */
    public Mapped toHf(String symbiontKey) {
        for (Rule r : rules) {
            String key = rename(symbiontKey, r.symbiont, r.hf);
            if (key != null) return new Mapped(key, r.transposed && key.endsWith(".weight"));
        }
        return null;
    }

    /** The state-dict key for a checkpoint's key, or null when no rule renames it. */
    public Mapped toSymbiont(String hfKey) {
        for (Rule r : rules) {
            String key = rename(hfKey, r.hf, r.symbiont);
            if (key != null) return new Mapped(key, r.transposed && key.endsWith(".weight"));
        }
        return null;
    }

    /** {@code key} with its prefix {@code from} replaced by {@code to}, layer numbers carried over; null when it does not match. */
    private static String rename(String key, String from, String to) {
        String[] parts = key.split("\\.", -1), pattern = from.split("\\."), target = to.split("\\.");
        if (parts.length <= pattern.length) return null;                     // a parameter's own name must follow the prefix
        List<String> numbers = new ArrayList<>();
        for (int i = 0; i < pattern.length; i++) {
            if (pattern[i].equals("#")) {
                if (!isLayerNumber(parts[i])) return null;
                numbers.add(parts[i]);
            } else if (!pattern[i].equals(parts[i])) {
                return null;
            }
        }
        StringBuilder out = new StringBuilder();
        int n = 0;
        for (String t : target) out.append(out.isEmpty() ? "" : ".").append(t.equals("#") ? numbers.get(n++) : t);
        for (int i = pattern.length; i < parts.length; i++) out.append('.').append(parts[i]);
        return out.toString();
    }

    /** A layer number as a state dict writes one: digits, no leading zero (so each number has one spelling). */
    private static boolean isLayerNumber(String s) {
        if (s.isEmpty() || s.length() > 9 || (s.length() > 1 && s.charAt(0) == '0')) return false;
        for (int i = 0; i < s.length(); i++) if (s.charAt(i) < '0' || s.charAt(i) > '9') return false;
        return true;
    }
}
