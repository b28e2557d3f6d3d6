package dev.symbiont.cuda.nccl;

import dev.symbiont.core.distributed.CommunicatorConformance;
import dev.symbiont.core.distributed.Ranks;
import org.junit.jupiter.api.Nested;

import java.time.Duration;

/**
 * The communicator conformance kit on {@link NcclCommunicator}, every check on tensors of each
 * rank's own interpreted CUDA device, NCCL faked over the devices' memory, the bootstrap a
 * {@link dev.symbiont.core.distributed.LocalCommunicator}: two and three ranks with {@code ncclAvg},
 * and two ranks of an NCCL older than 2.10, where AVG is the sum divided on the device.
 */
class NcclCommunicatorConformanceTest {
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    static final int CURRENT = 22703, BEFORE_AVG = 20907;

    @Nested
    class TwoRanks extends CommunicatorConformance {
        @Override protected Ranks ranks() { return NcclRanks.of(2, CURRENT, TIMEOUT); }
    }

    @Nested
    class ThreeRanks extends CommunicatorConformance {
        @Override protected Ranks ranks() { return NcclRanks.of(3, CURRENT, TIMEOUT); }
    }

    @Nested
    class TwoRanksWithoutNcclAvg extends CommunicatorConformance {
        @Override protected Ranks ranks() { return NcclRanks.of(2, BEFORE_AVG, TIMEOUT); }
    }
}
