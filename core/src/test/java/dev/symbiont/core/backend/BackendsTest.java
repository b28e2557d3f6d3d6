package dev.symbiont.core.backend;

import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BackendsTest {

    @Test
    void referenceProviderIsDiscoveredByServiceLoader() {
        assertTrue(Backends.providers().stream().anyMatch(p -> p.name().equals("reference")));
        assertTrue(Backends.describe().stream().anyMatch(line -> line.startsWith("reference (priority 0): available")));
    }

    @Test
    void propertyWinsOverEnvironment() {
        assertEquals("reference", Backends.choose("reference", "nope").name());
        var e = assertThrows(IllegalArgumentException.class, () -> Backends.choose(null, "nope"));
        assertTrue(e.getMessage().contains("no backend named 'nope'"), e.getMessage());
        assertTrue(e.getMessage().contains("reference"), "lists what was found: " + e.getMessage());
    }

    @Test
    void withoutANameTheHighestPriorityAvailableBackendIsChosen() {
        String expected = Backends.providers().stream().filter(p -> p.availability().available())
                .findFirst().orElseThrow().name();
        assertEquals(expected, Backends.choose(null, " ").name());
    }

    @Test
    void getReturnsOneInstancePerNameCaseInsensitively() {
        assertSame(Backends.get("reference"), Backends.get(" Reference "));
    }

    @Test
    void useScopesTheCurrentBackendAndRestoresIt() {
        Backend before = Backends.current();
        Backend other = new dev.symbiont.core.reference.ReferenceBackend();
        try (var scope = Backends.use(other)) {
            assertSame(other, Backends.current());
            assertSame(other, Tensor.zeros(2).backend());
        }
        assertSame(before, Backends.current());
    }
}
