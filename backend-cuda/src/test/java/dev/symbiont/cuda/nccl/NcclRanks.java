package dev.symbiont.cuda.nccl;

import dev.symbiont.core.Scope;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.LocalRanks;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Ranks as threads, each with an interpreted device of its own, running the checks with an
 * {@link NcclCommunicator} over a {@link FakeNccl} bootstrapped over the local group, with the
 * rank's device as the current backend (so the checks' tensors live on it).
 */
final class NcclRanks {
    private NcclRanks() {}

    /** {@code size} ranks whose fake NCCL reports {@code version} (below 2.10, AVG is NCCL's sum divided on the device). */
    static LocalRanks of(int size, int version, Duration timeout) {
        List<CudaBackend> devices = IntStream.range(0, size).mapToObj(r -> new CudaBackend(new InterpretedDriver(), 0)).toList();
        FakeNcclCliques cliques = new FakeNcclCliques(timeout);
        return new LocalRanks(size, timeout, local -> {
            CudaBackend device = devices.get(local.rank());
            NcclCommunicator nccl = NcclCommunicator.create(local, device, new FakeNccl(cliques, device.driver(), version), timeout);
            Scope onDevice = Backends.use(device);
            return new LocalRanks.RankContext() {
                @Override public Communicator communicator() { return nccl; }

                @Override
                public void close() {
                    onDevice.close();
                    nccl.close();
                }
            };
        }, size + " NCCL ranks (fake NCCL " + NcclTypes.versionString(version) + " on interpreted devices)");
    }
}
