package dev.symbiont.nn.mamba;

import dev.symbiont.core.EnumChoice;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.scan.ScanKernels;


/**
 * How a {@link Mamba2Mixer} computes its SSD over a sequence. Both compute the same recurrence
 * from the same weights (equal to float rounding, ~1e-5), so the choice is a runtime one and is
 * not saved with a model.
 * <ul>
 *   <li>{@link #SCAN}: the backend's fused selective scan ({@link SsdScan}), L walked once per
 *       channel — the faster on a CPU;</li>
 *   <li>{@link #CHUNKED}: the chunked matrix-product form ({@link Ssd#chunked}, the scan family's
 *       {@code ssd_chunked}: tensor ops on the CPU, its own kernels on cuda), the one that should
 *       win where matrix products are cheap and a sequential walk is not (a GPU; not yet measured);</li>
 *   <li>{@link #AUTO}: {@link #SCAN} where the backend has its own selective-scan kernels,
 *       {@link #CHUNKED} where the scan would run its materialising reference.</li>
 * </ul>
 * The default is {@code -Dsymbiont.mamba2.ssd=auto|scan|chunked} (auto when unset);
 * {@link Mamba2Mixer#ssdImpl(SsdImpl)} sets it per mixer.
 */
public enum SsdImpl {
    AUTO, SCAN, CHUNKED;

    static final String PROPERTY = "symbiont.mamba2.ssd";

    /** The form this choice runs on {@code backend}: {@link #SCAN} or {@link #CHUNKED}. */
    public SsdImpl on(Backend backend) {
        if (this != AUTO) return this;
        boolean ownScan = backend.fused(ScanKernels.FAMILY) != null && !FusedKernels.forcedToReference(ScanKernels.FAMILY);
        return ownScan ? SCAN : CHUNKED;
    }

    /** The choice {@code -Dsymbiont.mamba2.ssd} names, {@link #AUTO} when unset. */
    public static SsdImpl fromProperty() { return parse(System.getProperty(PROPERTY, "auto")); }

    /** {@code auto}, {@code scan} or {@code chunked}, in any case. */
    static SsdImpl parse(String value) {
        return EnumChoice.parse(SsdImpl.class, value, "-D" + PROPERTY);
    }
}
