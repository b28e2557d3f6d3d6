package dev.symbiont.cli;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;

import static dev.symbiont.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OptionChecksTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "train    | --steps       | 0    | --steps must be a positive integer, got 0",
            "train    | --steps       | -5   | --steps must be a positive integer, got -5",
            "train    | --batch       | 0    | --batch must be a positive integer, got 0",
            "train    | --context     | -1   | --context must be a positive integer, got -1",
            "train    | --lr          | 0    | --lr must be a positive number, got 0.0",
            "train    | --lr          | -1e-3| --lr must be a positive number, got -0.001",
            "train    | --minutes     | 0    | --minutes must be a positive number, got 0.0",
            "generate | --tokens      | -1   | --tokens must be 0 or more, got -1",
            "generate | --top-p       | 1.5  | --top-p must be in (0.0, 1.0], got 1.5",
            "generate | --temperature | -1   | --temperature must be 0 or more, got -1.0",
            "demo     | --steps       | 0    | --steps must be a positive integer, got 0",
            "demo     | --lr          | -2   | --lr must be a positive number, got -2.0",
    })
    void should_reject_an_out_of_range_option_naming_the_flag_before_any_work(String command, String flag, String value, String message) {
        Path out = dir.resolve("out");
        CliRun r = command.equals("train") ? run(command, "--out", out.toString(), flag, value)
                : command.equals("generate") ? run(command, "--model", out.toString(), flag, value) : run(command, flag, value);
        assertEquals(2, r.code(), r.out());
        String[] lines = r.err().strip().split("\n");
        assertEquals("symbiont " + command + ": " + message, lines[0].strip());
        assertTrue(lines[1].contains("symbiont " + command + " --help"), r.err());
        assertFalse(Files.exists(out), "no work done");
        assertFalse(r.out().contains(command + ":"), r.out());
    }
}
