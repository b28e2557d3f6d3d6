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
            "train    | --skip-nonfinite | -1 | --skip-nonfinite must be 0 or more, got -1",
            "train    | --nproc       | 0    | --nproc must be a positive integer, got 0",
            "train    | --nproc       | 5000 | --nproc must be an integer in [1, 1024], got 5000",
            "generate | --tokens      | -1   | --tokens must be an integer in [0, 1000000], got -1",
            "generate | --tokens      | 2147483647 | --tokens must be an integer in [0, 1000000], got 2147483647",
            "generate | --top-p       | 1.5  | --top-p must be in (0.0, 1.0], got 1.5",
            "generate | --temperature | -1   | --temperature must be 0 or more, got -1.0",
            "generate | --max-new-tokens | 1000001 | --max-new-tokens must be an integer in [0, 1000000], got 1000001",
            "generate | --repetition-penalty | 0 | --repetition-penalty must be a positive number, got 0.0",
            "demo     | --steps       | 0    | --steps must be a positive integer, got 0",
            "demo     | --lr          | -2   | --lr must be a positive number, got -2.0",
            "train    | --minutes     | 1e300  | --minutes must be at most 525600 (a year), got 1.0E300",
            "train    | --batch       | 100000 | --batch must be an integer in [1, 65536], got 100000",
            "train    | --layers      | 2147483647 | --layers must be an integer in [1, 1024], got 2147483647",
            "train    | --d-model     | 1000000 | --d-model must be an integer in [1, 65536], got 1000000",
            "train    | --context     | 2000000 | --context must be an integer in [1, 1048576], got 2000000",
            "train    | --d-state     | 100000 | --d-state must be an integer in [1, 1024], got 100000",
            "train    | --experts     | 1000000 | --experts must be an integer in [1, 1024], got 1000000",
            "train    | --shared-experts | -1  | --shared-experts must be an integer in [0, 1024], got -1",
            "demo     | --hidden      | 1000000 | --hidden must be an integer in [1, 1024], got 1000000",
            "demo     | --steps       | 2147483647 | --steps must be an integer in [1, 10000], got 2147483647",
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

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--batch 6 --nproc 4                      | --batch 6 does not divide by --nproc 4",
            "--nproc 3                                | --batch 32 does not divide by --nproc 3",
            "--task fashion-mnist --nproc 3            | --batch 128 does not divide by --nproc 3",
    })
    void should_refuse_a_global_batch_the_ranks_cannot_split_evenly_before_starting_them(String flags, String message) {
        Path out = dir.resolve("out");
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("train", "--out", out.toString()));
        args.addAll(java.util.List.of(flags.split(" +")));
        CliRun r = run(args.toArray(String[]::new));
        assertEquals(2, r.code(), r.out() + r.err());
        assertEquals("symbiont train: " + message + ": --batch is the global batch, split evenly over the ranks; give a multiple of "
                + message.substring(message.lastIndexOf(' ') + 1), r.err().strip().split("\n")[0].strip());
        assertFalse(r.err().contains("mpirun"), "refused before starting the ranks: " + r.err());
        assertFalse(Files.exists(out), "no work done");
    }
}
