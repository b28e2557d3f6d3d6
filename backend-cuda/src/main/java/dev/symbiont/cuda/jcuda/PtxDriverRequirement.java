package dev.symbiont.cuda.jcuda;

import dev.symbiont.cuda.driver.DeviceInfo;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which NVIDIA driver a PTX module needs. A driver JIT-compiles PTX only up to the ISA version of
 * its own CUDA release, so PTX from a newer nvcc fails with {@code CUDA_ERROR_UNSUPPORTED_PTX_VERSION}
 * on an older driver (candle #1846, #2237, #2498 are users meeting it); the fatbin's cubins avoid
 * the JIT on the GPUs they were built for. The table is the PTX ISA release notes' (ISA version →
 * the CUDA release that introduced it) with each release's minimum Linux driver.
 */
public final class PtxDriverRequirement {
    /** PTX ISA version (major·10 + minor) → {CUDA release, minimum Linux driver}. */
    private static final TreeMap<Integer, String[]> ISA_TO_DRIVER = new TreeMap<>(Map.ofEntries(
            Map.entry(70, new String[] {"11.0", "450"}), Map.entry(71, new String[] {"11.1", "455"}),
            Map.entry(72, new String[] {"11.2", "460"}), Map.entry(73, new String[] {"11.3", "465"}),
            Map.entry(74, new String[] {"11.4", "470"}), Map.entry(75, new String[] {"11.5", "495"}),
            Map.entry(76, new String[] {"11.6", "510"}), Map.entry(77, new String[] {"11.7", "515"}),
            Map.entry(78, new String[] {"11.8", "520"}), Map.entry(80, new String[] {"12.0", "525"}),
            Map.entry(81, new String[] {"12.1", "530"}), Map.entry(82, new String[] {"12.2", "535"}),
            Map.entry(83, new String[] {"12.3", "545"}), Map.entry(84, new String[] {"12.4", "550"}),
            Map.entry(85, new String[] {"12.5", "555"}), Map.entry(86, new String[] {"12.6", "560"}),
            Map.entry(87, new String[] {"12.8", "570"}), Map.entry(88, new String[] {"12.9", "575"}),
            Map.entry(90, new String[] {"13.0", "580"}), Map.entry(91, new String[] {"13.1", "590"})));

    private static final Pattern VERSION = Pattern.compile("(?m)^\\s*\\.version\\s+(\\d+)\\.(\\d+)");

    private PtxDriverRequirement() {}

    /** The {@code .version} a PTX text declares, as major·10 + minor (9.0 → 90). */
    public static Optional<Integer> isaVersion(String ptx) {
        if (ptx == null) return Optional.empty();
        Matcher m = VERSION.matcher(ptx);
        return m.find() ? Optional.of(Integer.parseInt(m.group(1)) * 10 + Integer.parseInt(m.group(2))) : Optional.empty();
    }

    /** "CUDA 13.0 (Linux driver ≥ 580)" for ISA 90; for an ISA newer than the table, the newest entry's "or newer". */
    public static String driverFor(int isa) {
        var entry = ISA_TO_DRIVER.ceilingEntry(isa);
        if (entry == null) {
            var last = ISA_TO_DRIVER.lastEntry();
            return "newer than CUDA " + last.getValue()[0] + " (Linux driver > " + last.getValue()[1] + ")";
        }
        return "CUDA " + entry.getValue()[0] + " (Linux driver ≥ " + entry.getValue()[1] + ")";
    }

    /**
     * Why a driver refused a module, and what fixes it.
     *
     * @param driverVersion {@code cuDriverGetVersion}'s value (13000 for CUDA 13.0)
     */
    public static String explain(String module, String ptx, int driverVersion, int ordinal, DeviceInfo device) {
        String isa = isaVersion(ptx).map(v -> "PTX ISA " + v / 10 + "." + v % 10 + ", which needs an NVIDIA driver for " + driverFor(v))
                .orElse("PTX without a .version line");
        return "module '" + module + "' has no cubin for device " + ordinal + " (" + device.name() + ", " + device.arch()
                + ", compute capability " + device.major() + "." + device.minor() + "), so the driver must JIT its "
                + isa + "; this driver supports CUDA " + driverVersion / 1000 + "." + driverVersion % 1000 / 10
                + ": update the NVIDIA driver, or rebuild the kernels with cubins for " + device.arch()
                + " (backend-cuda/build-kernels.sh)";
    }
}
