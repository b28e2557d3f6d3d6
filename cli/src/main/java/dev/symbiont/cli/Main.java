package dev.symbiont.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The {@code symbiont} command line. Every command takes {@code -h/--help}, {@code -V/--version}
 * and {@code --verbose} (inherited from here).
 */
@Command(name = "symbiont", mixinStandardHelpOptions = true, scope = ScopeType.INHERIT, version = "symbiont 0.1.0",
        description = "Symbiont: pure-Java deep learning.",
        subcommands = {TrainCommand.class, EvalCommand.class, GenerateCommand.class, DemoCommand.class, BackendsCommand.class})
public final class Main implements Runnable {

    @Option(names = "--verbose", scope = ScopeType.INHERIT,
            description = "Also print the library's INFO lines (backends skipped, the GEMM path chosen).")
    void verbose(boolean on) { quiet(!on); }

    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The configured command line: quiet (warnings only) until {@code --verbose}; bad input, in an
     * option or during the work, is reported as one line and exit code 2, not a stack trace.
     */
    static CommandLine commandLine() {
        quiet(true);
        CommandLine cli = new CommandLine(new Main());
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(prefix(cmd.getCommandSpec()) + e.getMessage());
            return 2;
        });
        cli.setParameterExceptionHandler((e, args) -> {
            CommandSpec spec = e.getCommandLine().getCommandSpec();
            e.getCommandLine().getErr().println(prefix(spec) + e.getMessage());
            e.getCommandLine().getErr().println("Try '" + spec.qualifiedName() + " --help' for the options.");
            return 2;
        });
        return cli;
    }

    private static String prefix(CommandSpec spec) { return spec.qualifiedName() + ": "; }

    /** The library logs through System.Logger, whose default backend is java.util.logging. */
    private static void quiet(boolean quiet) {
        Logger root = Logger.getLogger("");
        Level level = quiet ? Level.WARNING : Level.INFO;
        root.setLevel(level);
        for (var handler : root.getHandlers()) handler.setLevel(level);
    }
}
