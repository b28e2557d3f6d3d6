package dev.symbiont.nn;

import java.util.Arrays;
import java.util.List;

/** What {@link Module#loadStateDict} found: keys the module wanted but did not get, keys it does not know, and shape disagreements. */
public record LoadReport(List<String> missing, List<String> unexpected, List<Mismatch> mismatched) {
    public LoadReport {
        missing = List.copyOf(missing);
        unexpected = List.copyOf(unexpected);
        mismatched = List.copyOf(mismatched);
    }

    /** A key present on both sides with different shapes. */
    public record Mismatch(String key, int[] expected, int[] found) {
        @Override
        public String toString() {
            return key + ": module has " + Arrays.toString(expected) + ", state dict has " + Arrays.toString(found);
        }
    }

    public boolean isClean() { return missing.isEmpty() && unexpected.isEmpty() && mismatched.isEmpty(); }

    @Override
    public String toString() {
        if (isClean()) return "all keys matched";
        StringBuilder sb = new StringBuilder();
        if (!missing.isEmpty()) sb.append("missing keys ").append(KeyList.of(missing));
        if (!unexpected.isEmpty()) sb.append(sb.isEmpty() ? "" : "; ").append("unexpected keys ").append(KeyList.of(unexpected));
        if (!mismatched.isEmpty()) sb.append(sb.isEmpty() ? "" : "; ").append("shape mismatches ").append(KeyList.of(mismatched));
        return sb.toString();
    }
}
