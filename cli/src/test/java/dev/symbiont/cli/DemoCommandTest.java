package dev.symbiont.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DemoCommandTest {
    private static final Pattern SUMMARY = Pattern.compile("loss ([0-9.]+) -> ([0-9.]+) in");

    @ParameterizedTest
    @ValueSource(strings = {"cpu", "reference"})
    void demoTrainsAndTheLossFallsTenfold(String backend) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            code = Main.commandLine().execute("demo", "--backend", backend, "--steps", "400");
        } finally {
            System.setOut(original);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, out);
        Matcher m = SUMMARY.matcher(out);
        assertTrue(m.find(), out);
        double first = Double.parseDouble(m.group(1)), last = Double.parseDouble(m.group(2));
        assertTrue(last < first / 10, "loss " + first + " -> " + last);
        assertTrue(out.contains("on the " + backend + " backend"), out);
    }

    @Test
    void unknownBackendIsOneLineErrorAndNonZeroExit() {
        String backend = "nope";
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cli = Main.commandLine();
        cli.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
        int code = cli.execute("demo", "--backend", backend);
        assertEquals(2, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("symbiont demo: no backend named 'nope'"), err.toString());
    }
}
