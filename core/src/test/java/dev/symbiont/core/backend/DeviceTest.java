package dev.symbiont.core.backend;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Device strings parse and print as torch.device's do. */
class DeviceTest {

    @ParameterizedTest
    @CsvSource({
            "cpu,       cpu,  -1, cpu",
            "cuda,      cuda, -1, cuda",
            "cuda:0,    cuda,  0, cuda:0",
            "cuda:1,    cuda,  1, cuda:1",
            "cpu:0,     cpu,   0, cpu:0",
            "' CUDA:12 ', cuda, 12, cuda:12",
            "my_gpu-2:3, my_gpu-2, 3, my_gpu-2:3",
    })
    void should_parse_a_type_and_an_optional_ordinal_and_print_it_back(String spec, String type, int index, String printed) {
        Device d = Device.parse(spec);
        assertEquals(new Device(type, index), d);
        assertEquals(printed, d.toString());
        assertEquals(d, Device.parse(d.toString()), "toString is what parse reads");
    }

    @Test
    void should_select_ordinal_zero_for_a_type_alone_yet_differ_from_an_explicit_zero_as_in_pytorch() {
        Device bare = Device.parse("cuda"), zero = Device.parse("cuda:0");
        assertFalse(bare.hasIndex());
        assertTrue(zero.hasIndex());
        assertEquals(0, bare.ordinal());
        assertEquals(0, zero.ordinal());
        assertEquals(7, new Device("cuda", 7).ordinal());
        assertNotEquals(bare, zero);
        assertEquals(new Device("cpu"), Device.parse("cpu"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  ", "cuda:", ":1", "cuda:-1", "cuda:x", "cuda:1.0", "cuda:01", "cuda:1:2", "cu da",
            "1cuda", "cuda:+1", "cuda :1"})
    void should_reject_a_malformed_string_naming_it_and_the_accepted_forms(String spec) {
        Throws.mentioning(IllegalArgumentException.class, () -> Device.parse(spec),
                "device '" + spec + "'", "name:ordinal", "cuda:1");
    }

    @Test
    void should_reject_an_ordinal_past_int_and_a_null_string() {
        Throws.mentioning(IllegalArgumentException.class, () -> Device.parse("cuda:99999999999"),
                "cuda:99999999999", "too large");
        Throws.mentioning(IllegalArgumentException.class, () -> Device.parse(null), "null", "name:ordinal");
    }

    @Test
    void should_reject_a_record_with_a_bad_type_or_negative_index() {
        Throws.mentioning(IllegalArgumentException.class, () -> new Device("cuda", -2), "cuda", "-2");
        Throws.mentioning(IllegalArgumentException.class, () -> new Device("cuda:1", 0), "cuda:1", "':'");
        Throws.mentioning(IllegalArgumentException.class, () -> new Device(""), "non-empty");
    }
}
