package dev.symbiont.nn.parallel;

import dev.symbiont.core.distributed.CollectiveException;
import dev.symbiont.core.distributed.Communicator;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The error for parameters that got no gradient in a synchronised step on some ranks while
 * {@code findUnusedParameters} is off: PyTorch's most common DDP failure (pytorch#43259), there a
 * hang or an error one step late, here the same message on every rank in the step itself. Every
 * rank knows from the agreed counts which parameters were missed somewhere; one more exchange
 * tells them by whom.
 */
final class UnusedParameters {
    private static final int NAMED = 20;

    private UnusedParameters() {}

    /**
     * @param missing ids of the parameters fewer than all ranks produced a gradient for (the same on every rank)
     * @param ready   whether this rank produced each parameter's gradient, by id
     */
    static CollectiveException error(Communicator comm, List<Integer> missing, boolean[] ready, List<String> names, int[] bucketOf) {
        double[] mine = new double[missing.size()];
        for (int j = 0; j < mine.length; j++) mine[j] = ready[missing.get(j)] ? 0 : 1;
        double[][] byRank = HostGather.gather(comm, mine);
        Map<Integer, List<String>> byBucket = new TreeMap<>();
        for (int j = 0; j < missing.size() && j < NAMED; j++) {
            int id = missing.get(j);
            List<Integer> ranks = new ArrayList<>();
            for (int r = 0; r < byRank.length; r++) if (byRank[r][j] != 0) ranks.add(r);
            byBucket.computeIfAbsent(bucketOf[id], b -> new ArrayList<>()).add("'" + names.get(id) + "' on ranks " + ranks);
        }
        StringBuilder s = new StringBuilder("DistributedDataParallel on rank " + comm.rank() + ": " + missing.size()
                + " parameters got no gradient in this step on some ranks, so the buckets holding them were reduced with zeros"
                + " in their place and the step's gradients are not used:");
        byBucket.forEach((bucket, params) -> s.append(" bucket ").append(bucket).append(": no gradient for ").append(String.join(", ", params)).append(';'));
        if (missing.size() > NAMED) s.append(" and ").append(missing.size() - NAMED).append(" more;");
        s.append(" a parameter the loss does not depend on in every step needs findUnusedParameters(true) on the"
                + " DistributedDataParallel builder (PyTorch's find_unused_parameters=True), which counts a missing gradient as zero;"
                + " otherwise make every trainable parameter take part in the loss on every rank, or freeze the ones that do not before wrapping");
        return new CollectiveException(s.toString());
    }
}
