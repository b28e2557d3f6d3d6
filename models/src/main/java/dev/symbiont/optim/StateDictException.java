package dev.symbiont.optim;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A state dict that does not fit an optimizer or a gradient scaler. Every missing, unexpected
 * and mismatched (dtype or shape) key is listed, and nothing was loaded.
 */
public final class StateDictException extends IllegalArgumentException {
    private final List<String> missing, unexpected, mismatched;

    /** The dtype and shape a key must have. */
    public record Expected(DType dtype, int[] shape) {
        boolean matches(Tensor t) { return t.dtype() == dtype && Arrays.equals(t.shape(), shape); }

        @Override
        public String toString() { return dtype + " " + Arrays.toString(shape); }
    }

    public StateDictException(String owner, List<String> missing, List<String> unexpected, List<String> mismatched) {
        super(owner + ".loadStateDict: " + describe(missing, unexpected, mismatched));
        this.missing = List.copyOf(missing);
        this.unexpected = List.copyOf(unexpected);
        this.mismatched = List.copyOf(mismatched);
    }

    /** Throws unless {@code given} has exactly the keys of {@code expected}, each with its dtype and shape. */
    public static void requireMatch(String owner, Map<String, Expected> expected, Map<String, Tensor> given) {
        List<String> missing = new ArrayList<>(), unexpected = new ArrayList<>(), mismatched = new ArrayList<>();
        expected.forEach((key, spec) -> {
            Tensor t = given.get(key);
            if (t == null) missing.add(key);
            else if (!spec.matches(t)) mismatched.add(key + ": expected " + spec + ", got " + t.dtype() + " " + Arrays.toString(t.shape()));
        });
        for (String key : given.keySet()) if (!expected.containsKey(key)) unexpected.add(key);
        if (!missing.isEmpty() || !unexpected.isEmpty() || !mismatched.isEmpty()) {
            throw new StateDictException(owner, missing, unexpected, mismatched);
        }
    }

    public List<String> missing() { return missing; }

    public List<String> unexpected() { return unexpected; }

    /** "key: expected float32 [3, 4], got float32 [4, 3]" for each mismatched key. */
    public List<String> mismatched() { return mismatched; }

    private static String describe(List<String> missing, List<String> unexpected, List<String> mismatched) {
        List<String> parts = new ArrayList<>();
        if (!missing.isEmpty()) parts.add("missing keys " + dev.symbiont.nn.KeyList.of(missing));
        if (!unexpected.isEmpty()) parts.add("unexpected keys " + dev.symbiont.nn.KeyList.of(unexpected));
        if (!mismatched.isEmpty()) parts.add("mismatched keys " + dev.symbiont.nn.KeyList.of(mismatched));
        return String.join("; ", parts);
    }
}
