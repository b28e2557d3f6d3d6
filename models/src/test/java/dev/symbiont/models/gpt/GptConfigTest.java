package dev.symbiont.models.gpt;

import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.attention.NormKind;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class GptConfigTest {
    private static final GptConfig LLAMA = GptConfig.of(100, 32, 2, 4, 16).withKvHeads(2).withFfSize(48).withDropout(0.1)
            .withTiedEmbeddings(false).withNorm(NormKind.RMS_NORM).withMlp(MlpKind.SWIGLU).withPositions(PositionKind.ROPE);

    @Test
    void should_round_trip_through_a_string_map() {
        Map<String, String> m = LLAMA.toMap();
        assertEquals("rms_norm", m.get("norm"));
        assertEquals("rope", m.get("positions"));
        assertEquals("0.1", m.get("dropout"));
        assertEquals(LLAMA, GptConfig.fromMap(m));
        assertEquals(GptConfig.of(50257, 768, 12, 12, 1024), GptConfig.fromMap(GptConfig.of(50257, 768, 12, 12, 1024).toMap()));
        Map<String, String> withOthers = new HashMap<>(m);
        withOthers.put("format", "pt");
        assertEquals(LLAMA, GptConfig.fromMap(withOthers), "other metadata is ignored");
    }

    @Test
    void should_name_the_key_when_a_map_is_incomplete_or_unreadable() {
        Map<String, String> m = new HashMap<>(LLAMA.toMap());
        m.remove("n_kv_heads");
        var e = assertThrows(IllegalArgumentException.class, () -> GptConfig.fromMap(m));
        assertTrue(e.getMessage().contains("'n_kv_heads' is missing"), e.getMessage());
        m.put("n_kv_heads", "two");
        e = assertThrows(IllegalArgumentException.class, () -> GptConfig.fromMap(m));
        assertTrue(e.getMessage().contains("'n_kv_heads' = 'two' is not an integer"), e.getMessage());
        m.put("n_kv_heads", "2");
        m.put("mlp", "relu");
        e = assertThrows(IllegalArgumentException.class, () -> GptConfig.fromMap(m));
        assertTrue(e.getMessage().contains("gelu | swiglu"), e.getMessage());
        m.put("mlp", "swiglu");
        m.put("n_kv_heads", "3");
        e = assertThrows(IllegalArgumentException.class, () -> GptConfig.fromMap(m));
        assertTrue(e.getMessage().contains("kvHeads (3) must divide heads (4)"), e.getMessage());
    }

    @Test
    void should_reject_inconsistent_shapes_with_the_numbers() {
        var e = assertThrows(IllegalArgumentException.class, () -> GptConfig.of(100, 30, 2, 4, 16));
        assertTrue(e.getMessage().contains("heads (4) must divide dModel (30)"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> GptConfig.of(100, 32, 2, 4, 16).withKvHeads(3));
        assertTrue(e.getMessage().contains("kvHeads (3) must divide heads (4)"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> GptConfig.of(100, 24, 2, 8, 16).withPositions(PositionKind.ROPE));
        assertTrue(e.getMessage().contains("even head size"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> GptConfig.of(0, 32, 2, 4, 16));
        assertTrue(e.getMessage().contains("vocab must be positive"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> GptConfig.of(100, 32, 2, 4, 16).withDropout(1));
        assertThrows(IllegalArgumentException.class, () -> GptConfig.of(100, 32, 2, 4, 16).withNorm(null));
    }
}
