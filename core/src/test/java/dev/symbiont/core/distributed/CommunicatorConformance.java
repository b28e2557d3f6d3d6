package dev.symbiont.core.distributed;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.stream.Stream;

/**
 * The communicator conformance kit: every {@link CollectiveChecks} check as one test, run on the
 * ranks a subclass provides. A communicator implementation's tests extend it once per group
 * size (see {@code LocalCommunicatorConformanceTest}); MPI runs the same checks in each process
 * of an mpirun job ({@code MpiCommunicatorTest}).
 */
public abstract class CommunicatorConformance {
    /** The ranks every check runs on. */
    protected abstract Ranks ranks();

    @TestFactory
    Stream<DynamicTest> everyCollectiveCheck() {
        Ranks ranks = ranks();
        return CollectiveChecks.all().stream().map(check -> DynamicTest.dynamicTest(check.name() + " on " + ranks, () -> ranks.run(check)));
    }
}
