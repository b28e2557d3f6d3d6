package dev.symbiont.cuda.build;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every kernel's resources as ptxas reports them for sm_80 and sm_90, against budgets: no spills
 * anywhere, and registers and shared memory within what keeps several blocks resident per SM.
 */
class PtxasBudgetTest {
    /** Registers per thread and static shared bytes per block each group may use. */
    record Budget(int registers, int sharedBytes) {}

    static final Budget DEFAULT = new Budget(64, 0);
    static final Map<String, Budget> BUDGETS = Map.ofEntries(
            Map.entry("copy", new Budget(48, 0)),
            Map.entry("random", new Budget(48, 0)),
            Map.entry("index_check", new Budget(40, 0)),
            Map.entry("reduce", new Budget(48, 0)),
            Map.entry("gemm", new Budget(128, 8192)),
            Map.entry("norm", new Budget(40, 128)),
            Map.entry("activation", new Budget(40, 0)),
            Map.entry("optim", new Budget(48, 0)),
            Map.entry("attention", new Budget(128, 36_864)),
            Map.entry("attention_mma", new Budget(160, 36_864)),
            Map.entry("attention_mma_backward", new Budget(255, 43_648)),
            Map.entry("conv", new Budget(72, 128)),
            Map.entry("conv_implicit", new Budget(96, 8192)),
            Map.entry("channel_norm", new Budget(48, 128)),
            Map.entry("linear", new Budget(40, 0)),
            Map.entry("moe", new Budget(96, 12_800)),
            Map.entry("scan", new Budget(128, 8192)),
            Map.entry("ssd", new Budget(48, 4096)),
            Map.entry("ssd_backward", new Budget(128, 8192)));

    private static final Pattern FUNCTION = Pattern.compile("Compiling entry function '(\\w+)' for '(sm_\\d+)'");
    private static final Pattern SPILLS = Pattern.compile("(\\d+) bytes spill stores, (\\d+) bytes spill loads");
    private static final Pattern USED = Pattern.compile("Used (\\d+) registers");
    private static final Pattern SHARED = Pattern.compile("(\\d+) bytes smem");

    @Test
    void everyKernelFitsItsBudgetOnSm80AndSm90() throws Exception {
        assumeTrue(CudaTools.onPath("ptxas"), "ptxas is not on the PATH: resource budgets are checked where the CUDA toolkit is installed");
        List<String> over = new ArrayList<>();
        int kernels = 0;
        for (String group : CudaTools.groups()) {
            Budget budget = BUDGETS.getOrDefault(group, DEFAULT);
            for (String sm : List.of("sm_80", "sm_90")) {
                String report = CudaTools.run(List.of("ptxas", "-v", "--gpu-name", sm, "-o", "/dev/null",
                        CudaTools.COMMITTED.resolve(group + ".ptx").toString()));
                String kernel = null;
                for (String line : report.lines().toList()) {
                    Matcher f = FUNCTION.matcher(line);
                    if (f.find()) { kernel = f.group(1) + " (" + sm + ")"; kernels++; continue; }
                    Matcher s = SPILLS.matcher(line);
                    if (s.find() && (Integer.parseInt(s.group(1)) > 0 || Integer.parseInt(s.group(2)) > 0)) {
                        over.add(kernel + ": spills (" + line.trim() + ")");
                    }
                    Matcher u = USED.matcher(line);
                    if (u.find()) {
                        int regs = Integer.parseInt(u.group(1));
                        Matcher m = SHARED.matcher(line);
                        int smem = m.find() ? Integer.parseInt(m.group(1)) : 0;
                        if (regs > budget.registers()) over.add(kernel + ": " + regs + " registers, budget " + budget.registers());
                        if (smem > budget.sharedBytes()) over.add(kernel + ": " + smem + " bytes shared, budget " + budget.sharedBytes());
                    }
                }
            }
        }
        assertTrue(kernels > 0, "ptxas reported no kernels");
        assertTrue(over.isEmpty(), "kernels over their ptxas budgets (PtxasBudgetTest.BUDGETS):\n" + String.join("\n", over));
    }
}
