package dev.symbiont.nn.attention;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
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
    void without_recording_it_writes_into_buffers_that_double_and_earlier_views_keep_their_values() {
        KvCache cache = new KvCache(100);
        try (var off = GradMode.disabled()) {
            Tensor k1 = randn(1, 1, 2, 40, 4), v1 = randn(2, 1, 2, 40, 4);
            KvCache.Kv first = cache.append(k1, v1);
            assertEquals(64, cache.capacity(), "room for 64 positions first");
            assertSame(first.keys().storage(), cache.append(randn(3, 1, 2, 20, 4), randn(4, 1, 2, 20, 4)).keys().storage(),
                    "60 positions still fit: the same buffer");
            Tensor k3 = randn(5, 1, 2, 10, 4), v3 = randn(6, 1, 2, 10, 4);
            KvCache.Kv all = cache.append(k3, v3);
            assertEquals(100, cache.capacity(), "doubled, capped at maxLength");
            assertEquals(70, cache.length());
            assertClose(k1, all.keys().narrow(2, 0, 40).contiguous(), 0, "copied over when the buffer grew");
            assertClose(v3, all.values().narrow(2, 60, 10).contiguous(), 0, "new values at the end");
            assertClose(k1, first.keys().contiguous(), 0, "a view handed out before keeps its values");
        }
        cache.clear();
        assertEquals(0, cache.capacity());
    }

    @Test
    void while_recording_it_concatenates_and_gradients_reach_the_keys() {
        KvCache cache = new KvCache(8);
        Tensor k1 = randn(1, 1, 1, 3, 2).requiresGrad(true), k2 = randn(2, 1, 1, 2, 2).requiresGrad(true);
        cache.append(k1, randn(3, 1, 1, 3, 2));
        KvCache.Kv all = cache.append(k2, randn(4, 1, 1, 2, 2));
        assertEquals(0, cache.capacity());
        all.keys().sum().backward();
        assertClose(Tensor.full(1, 1, 1, 3, 2), k1.grad(), 0, "gradient of the first keys");
        assertClose(Tensor.full(1, 1, 1, 2, 2), k2.grad(), 0, "gradient of the appended keys");
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
