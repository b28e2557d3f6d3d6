package dev.symbiont.core.heap;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The switch of the release-poisoning mode: the property, its values, and the per-thread scope. */
class ReleaseCheckTest {
    private final String before = System.getProperty(ReleaseCheck.PROPERTY);
    private final Backend backend = new ReferenceBackend();

    @AfterEach
    void restoreTheProperty() {
        if (before == null) System.clearProperty(ReleaseCheck.PROPERTY);
        else System.setProperty(ReleaseCheck.PROPERTY, before);
    }

    @Test
    void should_poison_releases_while_the_property_says_poison() {
        System.setProperty(ReleaseCheck.PROPERTY, " Poison ");
        Storage s = backend.full(DType.INT64, 3, 7);
        s.release();
        var e = assertThrows(IllegalStateException.class, () -> backend.download(s, Layout.contiguous(3)));
        assertTrue(e.getMessage().startsWith("download: storage used after release()"), e.getMessage());
    }

    @Test
    void should_poison_only_inside_the_scope_when_the_property_is_off() {
        System.setProperty(ReleaseCheck.PROPERTY, ReleaseCheck.OFF);
        try (var poison = ReleaseCheck.poison()) {
            assertTrue(ReleaseCheck.poisoning());
        }
        assertTrue(!ReleaseCheck.poisoning());
    }

    @Test
    void should_reject_an_unknown_value_naming_the_property() {
        System.setProperty(ReleaseCheck.PROPERTY, "yes");
        var e = assertThrows(IllegalArgumentException.class, ReleaseCheck::poisoning);
        assertTrue(e.getMessage().contains(ReleaseCheck.PROPERTY) && e.getMessage().contains("'yes'"), e.getMessage());
    }
}
