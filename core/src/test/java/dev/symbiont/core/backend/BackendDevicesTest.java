package dev.symbiont.core.backend;

import dev.symbiont.core.Scope;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Selecting backends by device string: one instance per (provider, ordinal), errors that name the device. */
class BackendDevicesTest {
    private Scope twins;

    @BeforeEach
    void registerTwins() { twins = TwinProvider.register(); }

    @AfterEach
    void forgetTwins() { twins.close(); }

    @Test
    void should_create_one_kept_instance_per_ordinal_that_reports_its_device() {
        Backend zero = Backends.get("twin:0"), one = Backends.get("twin:1");
        assertNotSame(zero, one);
        assertEquals("twin:0", zero.device().toString());
        assertEquals(new Device("twin", 1), one.device());
        assertSame(one, Backends.get(" Twin:1 "));
        assertSame(one, Backends.get(new Device("twin", 1)));
        assertSame(zero, Backends.get("twin"), "a type alone is ordinal 0");
    }

    @Test
    void should_take_ordinal_zero_of_a_single_device_backend_as_the_backend_itself_named_without_an_ordinal() {
        Backend reference = Backends.get("reference");
        assertSame(reference, Backends.get("reference:0"));
        assertEquals(new Device("reference"), reference.device());
        assertEquals("reference", reference.device().toString());
    }

    @Test
    void should_reject_an_ordinal_past_the_device_count_naming_the_device_and_the_devices_there_are() {
        Throws.mentioning(IllegalArgumentException.class, () -> Backends.get("twin:2"),
                "no device 'twin:2'", "backend 'twin' has 2 devices: twin:0, twin:1");
        Throws.mentioning(IllegalArgumentException.class, () -> Backends.get("reference:1"),
                "no device 'reference:1'", "has 1 device: reference");
    }

    @Test
    void should_reject_an_unknown_name_or_a_malformed_string_naming_it() {
        Throws.mentioning(IllegalArgumentException.class, () -> Backends.get("nope:1"),
                "no backend named 'nope' (device 'nope:1')", "found", "twin", "reference");
        Throws.mentioning(IllegalArgumentException.class, () -> Backends.get("twin:one"),
                "device 'twin:one'", "e.g. cpu, cuda, cuda:1");
    }

    @Test
    void should_list_the_devices_of_a_provider_with_several_and_leave_single_device_lines_as_they_were() {
        assertTrue(Backends.describe().contains("twin (priority -1): available, 2 devices: twin:0, twin:1"), Backends.describe().toString());
        assertTrue(Backends.describe().contains("reference (priority 0): available"), Backends.describe().toString());
    }

    @Test
    void should_select_a_device_by_property_or_environment_and_name_the_setting_when_it_is_wrong() {
        assertSame(Backends.get("twin:1"), Backends.choose("twin:1", "reference"));
        assertSame(Backends.get("twin:1"), Backends.choose(null, "twin:1"));
        assertSame(Backends.get("twin:0"), Backends.choose(" ", "twin"));
        Throws.mentioning(IllegalArgumentException.class, () -> Backends.choose("twin:5", "twin:0"),
                "-Dsymbiont.backend=twin:5: ", "no device 'twin:5'", "2 devices");
        Throws.mentioning(IllegalArgumentException.class, () -> Backends.choose(null, "twin:x"),
                "SYMBIONT_BACKEND=twin:x: ", "device 'twin:x'", "name:ordinal");
    }

    @Test
    void should_hold_a_provider_to_its_device_count_and_its_backends_to_their_ordinals() {
        BackendProvider unnamed = new Provider("unnamed", 2);
        BackendProvider single = new Provider("single", 1);
        BackendProvider none = new Provider("none", 0);
        try (var a = Backends.register(unnamed); var b = Backends.register(single); var c = Backends.register(none)) {
            Throws.mentioning(IllegalStateException.class, () -> Backends.get("unnamed:0"),
                    "backend provider 'unnamed'", "device() is unnamed for ordinal 0", "report unnamed:0");
            Throws.mentioning(IllegalArgumentException.class, () -> Backends.get("unnamed:1"),
                    "backend provider 'unnamed' cannot create ordinal 1: it reports 2 devices but does not override create(int)");
            Throws.mentioning(IllegalArgumentException.class, () -> single.create(1),
                    "backend provider 'single' cannot create ordinal 1: it has 1 device");
            Throws.mentioning(IllegalStateException.class, () -> Backends.get("none"), "'none' reports 0 devices");
            assertTrue(Backends.describe().contains("none (priority -2): unavailable, backend provider 'none' reports 0 devices;"
                    + " it must offer at least 1"), Backends.describe().toString());
        }
    }

    /** A provider of plain reference backends (device: the name alone) that claims {@code count} devices. */
    private record Provider(String name, int deviceCount) implements BackendProvider {
        @Override public int priority() { return -2; }

        @Override public Availability availability() { return Availability.yes(); }

        @Override public Backend create() {
            return new ReferenceBackend() {
                @Override public String name() { return Provider.this.name; }
            };
        }
    }
}
