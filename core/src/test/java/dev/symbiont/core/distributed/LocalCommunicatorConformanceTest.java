package dev.symbiont.core.distributed;

import org.junit.jupiter.api.Nested;

import java.time.Duration;

/** The communicator conformance kit on {@link LocalCommunicator}: groups of one, two and three threads. */
class LocalCommunicatorConformanceTest {
    /** Long enough for any check on a loaded machine, short enough that a broken one fails instead of stalling the build. */
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Nested
    class OneRank extends CommunicatorConformance {
        @Override protected Ranks ranks() { return new LocalRanks(1, TIMEOUT); }
    }

    @Nested
    class TwoRanks extends CommunicatorConformance {
        @Override protected Ranks ranks() { return new LocalRanks(2, TIMEOUT); }
    }

    @Nested
    class ThreeRanks extends CommunicatorConformance {
        @Override protected Ranks ranks() { return new LocalRanks(3, TIMEOUT); }
    }
}
