package dev.symbiont.nn.attention;

import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import static dev.symbiont.nn.attention.AttentionTesting.assertClose;
import static dev.symbiont.nn.attention.AttentionTesting.randn;
import static org.junit.jupiter.api.Assertions.*;

class KvCacheTest {
    @Test
    void should_append_along_the_sequence_and_return_everything_cached() {
        KvCache cache = new KvCache(8);
        Tensor k1 = randn(1, 2, 3, 5, 4), v1 = randn(2, 2, 3, 5, 4), k2 = randn(3, 2, 3, 2, 4), v2 = randn(4, 2, 3, 2, 4);
        cache.append(k1, v1);
        KvCache.Kv all = cache.append(k2, v2);
        assertArrayEquals(new int[] {2, 3, 7, 4}, all.keys().shape());
        assertClose(k2, all.keys().narrow(2, 5, 2).contiguous(), 0, "new keys at the end");
        assertClose(v1, all.values().narrow(2, 0, 5).contiguous(), 0, "old values first");
        assertEquals(7, cache.length());
        cache.clear();
        assertEquals(0, cache.length());
        assertNull(cache.keys());
    }

    @Test
    void should_refuse_to_grow_past_its_max_length() {
        KvCache cache = new KvCache(6);
        cache.append(randn(1, 1, 1, 5, 4), randn(2, 1, 1, 5, 4));
        var e = assertThrows(IllegalStateException.class, () -> cache.append(randn(3, 1, 1, 2, 4), randn(4, 1, 1, 2, 4)));
        assertTrue(e.getMessage().contains("holds 5") && e.getMessage().contains("appending 2") && e.getMessage().contains("maxLength 6"),
                e.getMessage());
        assertEquals(5, cache.length(), "nothing appended");
    }

    @Test
    void should_reject_keys_that_do_not_fit_the_cached_ones() {
        KvCache cache = new KvCache(8);
        cache.append(randn(1, 1, 2, 3, 4), randn(2, 1, 2, 3, 4));
        assertThrows(IllegalArgumentException.class, () -> cache.append(randn(3, 1, 1, 1, 4), randn(4, 1, 1, 1, 4)));
        assertThrows(IllegalArgumentException.class, () -> cache.append(randn(3, 1, 2, 1, 4), randn(4, 1, 2, 2, 4)));
        assertThrows(IllegalArgumentException.class, () -> new KvCache(0));
    }
}
