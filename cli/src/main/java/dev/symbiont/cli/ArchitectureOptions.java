package dev.symbiont.cli;

import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

import java.util.Map;

/**
 * {@code train}'s choice of model family and the options only some families read. A flag given
 * for a family that does not read it (say {@code --experts} with {@code --arch mamba}) is an
 * error, not silently ignored.
 */
final class ArchitectureOptions {
    static final String EXPERTS_PER_TOKEN = "--experts-per-token";
    private static final String DEPRECATED_TOP_K = "--top-k";
    /** Upper limits of the family options (as {@link TrainCommand#MAX_LAYERS}: past them a run cannot fit or finish). */
    private static final int MAX = 1024, MAX_EXPAND = 64;

    @Option(names = "--arch", defaultValue = "gpt",
            description = "Model family: gpt (attention + MLP), mamba (selective state space), mamba2 (state space duality, chunked SSD), moe (attention + mixture-of-experts MLPs) (default: ${DEFAULT-VALUE}); "
                    + "with --task fashion-mnist: resnet, convnext or vit (default: resnet).")
    String arch;

    @Option(names = "--d-state", defaultValue = "16", description = "mamba, mamba2: state size N of each channel or head (default: ${DEFAULT-VALUE}).")
    int dState;

    @Option(names = "--d-conv", defaultValue = "4", description = "mamba, mamba2: kernel of the causal convolution (default: ${DEFAULT-VALUE}).")
    int dConv;

    @Option(names = "--expand", defaultValue = "2", description = "mamba, mamba2: the scan's width as a multiple of --d-model (default: ${DEFAULT-VALUE}).")
    int expand;

    @Option(names = "--head-dim", defaultValue = "0",
            description = "mamba2: channels per SSM head; 0: 64 where the scan's width holds eight such heads, else an eighth of it (default: ${DEFAULT-VALUE}).")
    int headDim;

    @Option(names = "--experts", defaultValue = "8", description = "moe: experts in each layer (default: ${DEFAULT-VALUE}).")
    int experts;

    /** The MoE router's k; --top-k is its old name here, kept working with a note, since in generate --top-k means sampling. */
    @Option(names = {"--experts-per-token", "--top-k"}, defaultValue = "2",
            description = "moe: experts each token is routed to, Hugging Face's num_experts_per_tok (default: ${DEFAULT-VALUE}); "
                    + "--top-k is its deprecated name.")
    int topK;

    @Option(names = "--shared-experts", defaultValue = "0", description = "moe: dense experts every token also takes (default: ${DEFAULT-VALUE}).")
    int sharedExperts;

    /** Range checks of the values, before any work. */
    void checkValues(OptionChecks checks) {
        Architecture.parse(arch);
        checks.positive("--d-state", dState, MAX).positive("--d-conv", dConv, MAX).positive("--expand", expand, MAX_EXPAND)
                .between("--head-dim", headDim, 0, TrainCommand.MAX_WIDTH).positive("--experts", experts, MAX)
                .positive(EXPERTS_PER_TOKEN, topK, MAX).between("--shared-experts", sharedExperts, 0, MAX);
    }

    /**
     * Checks that every family-specific flag on the command line is one {@code family} reads (the
     * run's family: {@code --arch}'s, or a resumed checkpoint's) and, for a new MoE run, that k ≤ E.
     */
    void checkApplies(ParseResult parsed, Architecture family, boolean fresh) {
        for (String key : Architecture.SPECIFIC) {
            String flag = flag(key);
            if (parsed.hasMatchedOption(flag) && !family.reads(key)) {
                throw new IllegalArgumentException(flag + " applies to " + readers(key) + ", not to this run's --arch " + family.flag());
            }
        }
        if (fresh && family == Architecture.MOE && topK > experts) {
            throw new IllegalArgumentException(EXPERTS_PER_TOKEN + " " + topK + " exceeds --experts " + experts + ": a token is routed to k of the E experts");
        }
    }

    private static String readers(String key) {
        StringBuilder s = new StringBuilder();
        for (Architecture a : Architecture.values()) {
            if (a.reads(key)) s.append(s.isEmpty() ? "--arch " : " and ").append(a.flag());
        }
        return s.toString();
    }

    /** The flag of a run setting; the router's k is stored as {@code top_k} (saved runs keep the key). */
    static String flag(String key) { return key.equals("top_k") ? EXPERTS_PER_TOKEN : "--" + key.replace('_', '-'); }

    /**
     * One line on standard error when the deprecated name {@code --top-k} was used (picocli
     * matches both names to the one option, so only the typed arguments tell).
     */
    static void noteDeprecatedName(ParseResult parsed) {
        if (parsed.originalArgs().stream().anyMatch(a -> a.equals(DEPRECATED_TOP_K) || a.startsWith(DEPRECATED_TOP_K + "="))) {
            System.err.println("train: " + DEPRECATED_TOP_K + " is deprecated for the MoE router, use " + EXPERTS_PER_TOKEN
                    + " (generate's --top-k is sampling's)");
        }
    }

    /** The run settings these options define, keyed as {@link RunSettings} stores them. */
    Map<String, String> flags() {
        return Map.of("arch", arch, "d_state", Integer.toString(dState), "d_conv", Integer.toString(dConv), "expand", Integer.toString(expand),
                "head_dim", Integer.toString(headDim), "experts", Integer.toString(experts), "top_k", Integer.toString(topK), "shared_experts", Integer.toString(sharedExperts));
    }
}
