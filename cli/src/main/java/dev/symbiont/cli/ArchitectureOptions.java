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

    @Option(names = "--top-k", defaultValue = "2", description = "moe: experts each token is routed to (default: ${DEFAULT-VALUE}).")
    int topK;

    @Option(names = "--shared-experts", defaultValue = "0", description = "moe: dense experts every token also takes (default: ${DEFAULT-VALUE}).")
    int sharedExperts;

    /** Range checks of the values, before any work. */
    void checkValues(OptionChecks checks) {
        Architecture.parse(arch);
        checks.positive("--d-state", dState).positive("--d-conv", dConv).positive("--expand", expand).nonNegative("--head-dim", headDim)
                .positive("--experts", experts)
                .positive("--top-k", topK).nonNegative("--shared-experts", sharedExperts);
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
            throw new IllegalArgumentException("--top-k " + topK + " exceeds --experts " + experts + ": a token is routed to k of the E experts");
        }
    }

    private static String readers(String key) {
        StringBuilder s = new StringBuilder();
        for (Architecture a : Architecture.values()) {
            if (a.reads(key)) s.append(s.isEmpty() ? "--arch " : " and ").append(a.flag());
        }
        return s.toString();
    }

    static String flag(String key) { return "--" + key.replace('_', '-'); }

    /** The run settings these options define, keyed as {@link RunSettings} stores them. */
    Map<String, String> flags() {
        return Map.of("arch", arch, "d_state", Integer.toString(dState), "d_conv", Integer.toString(dConv), "expand", Integer.toString(expand),
                "head_dim", Integer.toString(headDim), "experts", Integer.toString(experts), "top_k", Integer.toString(topK), "shared_experts", Integer.toString(sharedExperts));
    }
}
