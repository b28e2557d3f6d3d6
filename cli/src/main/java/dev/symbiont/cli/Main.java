package dev.symbiont.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The {@code symbiont} command line. Every command takes {@code -h/--help}, {@code -V/--version}
 * and {@code --verbose} (inherited from here). Exit codes: 0 success, 2 bad input of any kind
 * (a flag, a file, no command), as picocli's usage errors.
 */
@Command(name = "symbiont", mixinStandardHelpOptions = true, scope = ScopeType.INHERIT, version = "symbiont 0.1.0",
        description = "Symbiont: pure-Java deep learning.",
        subcommands = {TrainCommand.class, FinetuneCommand.class, EvalCommand.class, GenerateCommand.class, DemoCommand.class, BackendsCommand.class,
                CompareCommand.class})
public final class Main implements Callable<Integer> {
    /** The exit code of bad input, picocli's {@link CommandLine.ExitCode#USAGE}. */
    static final int BAD_INPUT = CommandLine.ExitCode.USAGE;
    /** The library's loggers, held so that the level set on them stays (java.util.logging keeps loggers weakly). */
    private static final Logger LIBRARY = Logger.getLogger("dev.symbiont");

    @Spec
    CommandSpec spec;

    @Option(names = "--verbose", scope = ScopeType.INHERIT,
            description = "Also print the library's INFO and DEBUG lines (backends skipped, the GEMM path chosen).")
    void verbose(boolean on) { quiet(!on); }

    /** No command: the usage on standard error and the bad-input exit code, as for a mistyped one. */
    @Override
    public Integer call() {
        CommandLine cli = spec.commandLine();
        cli.getErr().println("symbiont: missing command: give one of " + String.join(", ", cli.getSubcommands().keySet()));
        cli.usage(cli.getErr());
        return BAD_INPUT;
    }

    public static void main(String[] args) {
        int code;
        try {
            code = commandLine().execute(args);
        } catch (OutOfMemoryError e) { // outside a command's frame (CommonOptions.run catches its own)
            System.err.println("symbiont: " + Failures.outOfMemory("starting", e));
            code = BAD_INPUT;
        }
        System.exit(code);
    }

    /**
     * The configured command line: quiet (warnings only) until {@code --verbose}; bad input, in an
     * option or during the work, is reported as one line and exit code 2, not a stack trace; a
     * mistyped command or option gets picocli's suggestions.
     */
    static CommandLine commandLine() {
        quiet(true);
        CommandLine cli = new CommandLine(new Main());
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(prefix(cmd.getCommandSpec()) + Failures.message(e));
            return BAD_INPUT;
        });
        cli.setParameterExceptionHandler((e, args) -> {
            CommandLine failed = e.getCommandLine();
            CommandSpec spec = failed.getCommandSpec();
            failed.getErr().println(prefix(spec) + e.getMessage());
            CommandLine.UnmatchedArgumentException.printSuggestions(e, failed.getErr());
            failed.getErr().println("Try '" + spec.qualifiedName() + " --help' for the options.");
            return BAD_INPUT;
        });
        return cli;
    }

    private static String prefix(CommandSpec spec) { return spec.qualifiedName() + ": "; }

    /**
     * The library logs through System.Logger, whose default backend is java.util.logging; its
     * progress notes are DEBUG (FINE), so {@code --verbose} opens the library's loggers to FINE.
     */
    private static void quiet(boolean quiet) {
        Logger root = Logger.getLogger("");
        root.setLevel(quiet ? Level.WARNING : Level.INFO);
        LIBRARY.setLevel(quiet ? Level.WARNING : Level.FINE);
        for (var handler : root.getHandlers()) handler.setLevel(quiet ? Level.WARNING : Level.FINE);
    }
}
