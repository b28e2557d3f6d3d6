package dev.symbiont.cli;

import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/** One run of the command line through its picocli entry point: exit code, standard output and errors. */
record CliRun(int code, String out, String err) {
    static CliRun run(String... args) { return run(cli -> { }, args); }

    /** As {@link #run(String...)}, after {@code setup} has seen the command line (to reach a command's seams). */
    static CliRun run(Consumer<CommandLine> setup, String... args) {
        PrintStream original = System.out, originalErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        StringWriter cliErr = new StringWriter(), cliOut = new StringWriter();
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            CommandLine cli = Main.commandLine();
            cli.setErr(new PrintWriter(cliErr, true));
            cli.setOut(new PrintWriter(cliOut, true));
            setup.accept(cli);
            code = cli.execute(args);
        } finally {
            System.setOut(original);
            System.setErr(originalErr);
        }
        return new CliRun(code, out.toString(StandardCharsets.UTF_8) + cliOut, err.toString(StandardCharsets.UTF_8) + cliErr);
    }
}
