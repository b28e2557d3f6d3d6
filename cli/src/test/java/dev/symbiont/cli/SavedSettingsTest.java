package dev.symbiont.cli;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A checkpoint's saved run settings are held to the ranges of their command-line options. */
class SavedSettingsTest {
    private static Map<String, String> good() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("steps", "100");
        m.put("batch", "8");
        m.put("context", "64");
        m.put("lr", "3.0E-4");
        m.put("weight_decay", "0.1");
        m.put("seed", "-5");
        m.put("eval_every", "0");
        return m;
    }

    private static String refusal(String key, String value) {
        Map<String, String> m = good();
        if (value == null) m.remove(key);
        else m.put(key, value);
        return assertThrows(IllegalArgumentException.class, () -> RunSettings.checkSaved(m)).getMessage();
    }

    @Test
    void damagedSettingsAreRefusedNamingTheSetting() {
        assertDoesNotThrow(() -> RunSettings.checkSaved(good()));
        assertEquals("the checkpoint's saved setting run.batch is 'abc', not a whole number", refusal("batch", "abc"));
        assertEquals("the checkpoint's saved setting run.batch is 0, outside [1, 2147483647]", refusal("batch", "0"));
        assertEquals("the checkpoint's saved setting run.steps is -1, outside [0, 2147483647]", refusal("steps", "-1"));
        assertEquals("the checkpoint's saved setting run.weight_decay is NaN; it must be a finite number >= 0", refusal("weight_decay", "NaN"));
        assertEquals("the checkpoint's saved setting run.seed is '1.5', not a whole number", refusal("seed", "1.5"));
        assertEquals("the checkpoint's saved settings have no run.lr", refusal("lr", null));
    }
}
