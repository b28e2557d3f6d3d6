package dev.symbiont.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;

import static dev.symbiont.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** --backend takes a device string (cpu, cpu:0, cuda:1); a value it cannot place is one line and exit code 2. */
class BackendOptionTest {
    @TempDir
    Path dir;

    @Test
    void should_run_on_a_device_named_with_its_ordinal() {
        CliRun r = run("demo", "--backend", "cpu:0", "--steps", "400");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("on the cpu backend"), r.out());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "cpu:1     | no device 'cpu:1': backend 'cpu' has 1 device: cpu",
            "cuda:x    | device 'cuda:x' is not a device string; expected a backend name or name:ordinal, e.g. cpu, cuda, cuda:1",
            "nope:2    | no backend named 'nope' (device 'nope:2'); found: ",
    })
    void should_reject_a_device_it_cannot_place_in_one_line_before_any_work(String device, String message) {
        Path out = dir.resolve("out");
        CliRun r = run("train", "--out", out.toString(), "--backend", device, "--steps", "1");
        assertEquals(2, r.code(), r.out());
        String err = r.err().strip();
        assertFalse(err.contains("\n"), "one line: " + err);
        assertTrue(err.startsWith("symbiont train: " + message), err);
        assertFalse(Files.exists(out), "no work done");
    }

    @Test
    void should_list_the_backends_and_the_default_device() {
        CliRun r = run("backends");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("cpu (priority 100): available"), r.out());
        assertTrue(r.out().contains("default: cpu"), r.out());
    }
}
