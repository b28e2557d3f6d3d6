package dev.symbiont.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * mpirun's reports on a failed job, read from its standard error: blocks of text between lines of
 * dashes (Open MPI's {@code show_help}), and its notes that it folded identical ones together.
 * {@link #take} holds them back from the output, and
 * {@link #summary} turns the ones it knows into one line naming the rank and the cause:
 * <pre>
 * mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).
 * MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD with errorcode 2.
 * mpirun detected that one or more processes exited with non-zero status, ... Process name: [[4711,1],1] Exit code: 2
 * </pre>
 */
final class MpiReport {
    private static final Pattern DASHES = Pattern.compile("-{20,}");
    /** mpirun's notes that it folded identical reports into one ({@code [host:pid] 1 more process has sent help message ...}). */
    private static final Pattern AGGREGATED = Pattern.compile("\\[[^]]+:\\d+] (\\d+ more process(es)? ha(s|ve) sent help message|Set MCA parameter \"orte_base_help_aggregate\").*");
    private static final Pattern SIGNAL = Pattern.compile("process rank (\\d+) with PID \\d+ on node \\S+ exited on signal (\\d+)(?: \\(([^)]*)\\))?");
    private static final Pattern ABORT = Pattern.compile("MPI_ABORT was invoked on rank (\\d+) in communicator \\S+\\s+with errorcode (-?\\d+)");
    private static final Pattern EXIT = Pattern.compile("Process name:\\s+\\[\\[\\d+,\\d+],(\\d+)]\\s+Exit code:\\s+(-?\\d+)");
    /** Open MPI 4.1's note that it lost a report on its way to mpirun (its MPI_ABORT one, at times; an unpack error or "Out of resource"): about the report, not the job. */
    private static final Pattern LOST = Pattern.compile("\\[[^]]+:\\d+] \\[\\[\\d+,\\d+],\\d+] ORTE_ERROR_LOG: [^:]+ in file \\S*show_help\\.c.*");
    /** The line a rank prints as it aborts the job ({@link TrainRanks#fail}): the cause when mpirun's report is lost. */
    private static final Pattern RANK_ABORT = Pattern.compile("rank (\\d+): " + Pattern.quote(TrainRanks.ABORT_MESSAGE));
    /** What mpirun says around the report that names the rank, which adds nothing to it. */
    private static final List<String> NOISE = List.of("Primary job  terminated normally", "Primary job terminated normally");

    private final List<String> blocks = new ArrayList<>();
    private StringBuilder open;
    /** The first rank that said it aborts the job, or -1. */
    private int aborting = -1;

    /** Whether {@code line} belongs to a report (and is held back). */
    synchronized boolean take(String line) {
        if (DASHES.matcher(line.strip()).matches()) {
            if (open == null) {
                open = new StringBuilder();
            } else {
                blocks.add(open.toString());
                open = null;
            }
            return true;
        }
        if (open == null) {
            Matcher abort = RANK_ABORT.matcher(line);
            if (aborting < 0 && abort.matches()) aborting = Integer.parseInt(abort.group(1));
            return AGGREGATED.matcher(line).matches() || LOST.matcher(line).matches();
        }
        open.append(line).append('\n');
        return true;
    }

    /** The line the launcher ends a failed job with, exit code {@code code}. */
    synchronized String summary(int code) {
        for (String b : all()) {
            Matcher m = SIGNAL.matcher(flat(b));
            if (m.find()) {
                return "rank " + m.group(1) + " was killed by signal " + m.group(2) + (m.group(3) == null ? "" : " (" + m.group(3) + ")")
                        + ", so mpirun stopped the job (exit code " + code + ")";
            }
        }
        for (String b : all()) {
            Matcher m = ABORT.matcher(flat(b));
            if (m.find()) return "rank " + m.group(1) + " stopped the job after an error (exit code " + m.group(2) + ")";
        }
        for (String b : all()) {
            Matcher m = EXIT.matcher(flat(b));
            if (m.find()) return "rank " + m.group(1) + " exited with code " + m.group(2) + ", so mpirun stopped the job";
        }
        if (aborting >= 0) return "rank " + aborting + " stopped the job after an error (exit code " + code + ")";
        return "the job failed with exit code " + code + (all().isEmpty() ? "" : " (mpirun's report above)");
    }

    /** The reports {@link #summary} does not account for, as they came (with their dashes), for the launcher to print. */
    synchronized List<String> unrecognised() {
        List<String> out = new ArrayList<>();
        for (String b : all()) {
            String f = flat(b);
            boolean known = SIGNAL.matcher(f).find() || ABORT.matcher(f).find() || EXIT.matcher(f).find()
                    || NOISE.stream().anyMatch(f::contains);
            if (!known) out.add("-".repeat(74) + "\n" + b + "-".repeat(74) + "\n");
        }
        return out;
    }

    /** The complete reports, and one cut off by the end of the output. */
    private List<String> all() {
        List<String> out = new ArrayList<>(blocks);
        if (open != null) out.add(open.toString());
        return out;
    }

    private static String flat(String block) { return block.replaceAll("\\s+", " "); }
}
