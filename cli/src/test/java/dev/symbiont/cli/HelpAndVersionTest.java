package dev.symbiont.cli;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.logging.Level;
import java.util.logging.Logger;

import static dev.symbiont.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HelpAndVersionTest {
    @ParameterizedTest
    @ValueSource(strings = {"train", "finetune", "eval", "generate", "demo", "backends", "compare"})
    void should_print_usage_and_exit_0_for_help_on_every_command(String command) {
        for (String flag : new String[] {"--help", "-h"}) {
            CliRun r = run(command, flag);
            assertEquals(0, r.code(), r.err());
            assertTrue(r.out().contains("Usage: symbiont " + command), r.out());
            assertTrue(r.out().contains("--version") && r.out().contains("--verbose"), r.out());
        }
    }

    @org.junit.jupiter.api.Test
    void should_list_the_architecture_options_in_train_help() {
        CliRun r = run("train", "--help");
        for (String flag : new String[] {"--arch", "--d-state", "--d-conv", "--expand", "--experts", "--experts-per-token", "--shared-experts"}) {
            assertTrue(r.out().contains(flag), flag + " in " + r.out());
        }
        assertTrue(r.out().contains("gpt (attention + MLP), mamba"), r.out());
    }

    @ParameterizedTest
    @ValueSource(strings = {"train", "finetune", "eval", "generate", "demo", "backends", "compare"})
    void should_print_the_version_and_exit_0_on_every_command(String command) {
        CliRun r = run(command, "--version");
        assertEquals(0, r.code(), r.err());
        assertEquals("symbiont 0.1.0", r.out().strip());
    }

    @ParameterizedTest
    @ValueSource(strings = {"--help", "-h", "--version", "-V"})
    void should_exit_0_for_help_and_version_on_the_top_command(String flag) {
        CliRun r = run(flag);
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("symbiont"), r.out());
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void should_log_only_warnings_unless_verbose(boolean verbose) {
        CliRun r = verbose ? run("backends", "--verbose") : run("backends");
        assertEquals(0, r.code(), r.err());
        assertEquals(verbose ? Level.INFO : Level.WARNING, Logger.getLogger("").getLevel());
        assertEquals(verbose ? Level.FINE : Level.WARNING, Logger.getLogger("dev.symbiont").getLevel(), "the library's DEBUG notes only with --verbose");
        Logger.getLogger("").setLevel(Level.INFO);
    }
}
