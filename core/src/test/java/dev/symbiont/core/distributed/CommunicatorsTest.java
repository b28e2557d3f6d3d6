package dev.symbiont.core.distributed;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.distributed.mpi.MpiLaunch;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Outside a launcher, {@link Communicators#world()} is a group of this process alone. (Under mpirun: {@code MpiConformanceMain}.) */
class CommunicatorsTest {
    @Test
    void outsideALauncherTheWorldIsOneLocalRank() {
        assumeTrue(MpiLaunch.launcher(System.getenv()).isEmpty(), "this test JVM was itself started by an MPI launcher");
        try (Communicator world = Communicators.world()) {
            assertEquals("local", world.name());
            assertEquals(0, world.rank());
            assertEquals(1, world.size());
            Tensor t = Tensor.fromArray(new float[] {1, 2, 3});
            world.allReduce(t, Reduction.AVG).await();
            assertArrayEquals(new float[] {1, 2, 3}, t.toFloatArray());
        }
        assertEquals(1, Communicators.world().size(), "a closed single world does not close the next one");
        Communicators.world().barrier();
    }
}
