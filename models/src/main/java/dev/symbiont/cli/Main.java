package dev.symbiont.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code symbiont} command line. */
@Command(name = "symbiont", mixinStandardHelpOptions = true, version = "symbiont 0.1.0",
        description = "Symbiont: pure-Java deep learning.",
        subcommands = {TrainCommand.class, GenerateCommand.class, DemoCommand.class, BackendsCommand.class})
public final class Main implements Runnable {

    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line: bad input is reported as one line and exit code 2, not a stack trace. */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Main());
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("symbiont " + cmd.getCommandName() + ": " + e.getMessage());
            return 2;
        });
        return cli;
    }
}
