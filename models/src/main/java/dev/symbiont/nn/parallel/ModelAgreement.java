package dev.symbiont.nn.parallel;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.distributed.CollectiveException;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.Parameter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@link DistributedDataParallel} does when it wraps a module: check that every rank built
 * the same model (each parameter's and persistent buffer's name, dtype, shape and whether it
 * trains, in registration order), then copy rank 0's values to every rank. Ranks compare a hash
 * of that list, so a model that agrees costs one small host exchange; on a mismatch they exchange
 * per-entry hashes and then the first differing entry's description, so every rank throws the same
 * message naming the ranks and the entry, and none is left waiting in a collective.
 */
final class ModelAgreement {
    private ModelAgreement() {}

    /** One parameter or buffer (or setting: no tensor): how it is described across ranks, and its live tensor. */
    record Entry(String description, Tensor tensor, boolean buffer) {
        double hash() { return hash52(description); }
    }

    /** The module's parameters (tied ones once) and persistent buffers, in registration order. */
    static List<Entry> entries(Module module) {
        List<Entry> out = new ArrayList<>();
        Set<Storage> parameterStorage = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Map.Entry<String, Parameter> e : module.namedParameters().entrySet()) {
            Parameter p = e.getValue();
            parameterStorage.add(p.value().storage());
            out.add(new Entry("parameter '" + e.getKey() + "' " + p.value().dtype() + " " + Arrays.toString(p.shape())
                    + (p.frozen() ? " (frozen)" : ""), p.value(), false));
        }
        for (Map.Entry<String, Tensor> e : module.stateDict().entrySet()) {
            Tensor t = e.getValue();
            if (parameterStorage.contains(t.storage())) continue; // a parameter, or a tied parameter's second name
            out.add(new Entry("buffer '" + e.getKey() + "' " + t.dtype() + " " + Arrays.toString(t.shape()), t, true));
        }
        return out;
    }

    /**
     * Throws on every rank unless every rank has the same {@code entries} and none has a
     * {@code localProblem} (null when this rank has none): this rank throws an
     * {@link IllegalArgumentException} with its own problem, the others a
     * {@link CollectiveException} naming the ranks that had one; differing models give every rank
     * the same {@link CollectiveException}.
     */
    static void verify(Communicator comm, List<Entry> entries, String localProblem) {
        StringBuilder list = new StringBuilder();
        for (Entry e : entries) list.append(e.description()).append('\n');
        double listHash = hash52(list.toString());
        double[][] all = HostGather.gather(comm, new double[] {entries.size(), listHash, localProblem == null ? 0 : 1});
        List<Integer> troubled = new ArrayList<>();
        for (int r = 0; r < all.length; r++) if (all[r][2] != 0) troubled.add(r);
        if (!troubled.isEmpty()) {
            String[] problems = HostGather.strings(comm, localProblem == null ? "" : localProblem);
            if (localProblem != null) throw new IllegalArgumentException(localProblem);
            StringBuilder s = new StringBuilder("DistributedDataParallel on rank " + comm.rank() + ": ranks " + troubled + " cannot wrap their model:");
            for (int r : troubled) s.append(" rank ").append(r).append(": ").append(problems[r]);
            throw new CollectiveException(s.toString());
        }
        boolean agree = true;
        for (double[] rank : all) agree &= rank[0] == all[0][0] && rank[1] == all[0][1];
        if (!agree) throw new CollectiveException(describeMismatch(comm, entries, all));
    }

    /** The first entry the ranks disagree on, described by each rank; two more exchanges. */
    private static String describeMismatch(Communicator comm, List<Entry> entries, double[][] summaries) {
        int most = 0;
        for (double[] s : summaries) most = Math.max(most, (int) s[0]);
        double[] hashes = new double[most];
        Arrays.fill(hashes, -1); // no entry at this position
        for (int i = 0; i < entries.size(); i++) hashes[i] = entries.get(i).hash();
        double[][] all = HostGather.gather(comm, hashes);
        int first = 0;
        while (first < most && agreeAt(all, first)) first++;
        int at = first;
        String mine = at < entries.size() ? entries.get(at).description() : "nothing";
        String[] described = HostGather.strings(comm, mine);
        StringBuilder s = new StringBuilder("DistributedDataParallel on rank " + comm.rank()
                + ": the ranks built different models, so their gradients cannot be averaged (");
        for (int r = 0; r < summaries.length; r++) {
            s.append(r == 0 ? "" : ", ").append("rank ").append(r).append(": ").append((int) summaries[r][0]).append(" parameters, buffers and options");
        }
        s.append("); the first difference, at entry ").append(at).append(" (parameters, then buffers, in registration order):");
        List<Integer> differ = new ArrayList<>();
        for (int r = 0; r < described.length; r++) {
            s.append(r == 0 ? " " : "; ").append("rank ").append(r).append(" has ").append(described[r]);
            if (!described[r].equals(described[0])) differ.add(r);
        }
        s.append(". Ranks ").append(differ).append(" differ from rank 0; every rank must build the same model (the same config and frozen parameters) before wrapping it");
        return s.toString();
    }

    private static boolean agreeAt(double[][] hashes, int i) {
        for (double[] rank : hashes) if (rank[i] != hashes[0][i]) return false;
        return true;
    }

    /**
     * Copies rank 0's value of every entry into the other ranks' tensors, in place and in the
     * entries' order. Dtypes the communicator does not exchange (bfloat16, float16) travel as
     * float32, which holds them exactly.
     */
    static void broadcastFromRankZero(Communicator comm, List<Entry> entries) {
        if (comm.size() == 1) return;
        try (var noGrad = GradMode.disabled()) {
            for (Entry e : entries) if (e.tensor() != null) broadcast(comm, e.tensor());
        }
    }

    private static void broadcast(Communicator comm, Tensor t) {
        DType d = t.dtype();
        boolean direct = t.isContiguous() && (d == DType.FLOAT32 || d == DType.INT32 || d == DType.INT64);
        if (direct) {
            comm.broadcast(t, 0).await();
            return;
        }
        Tensor carrier = d.isHalf() ? t.to(DType.FLOAT32) : t.clone();
        comm.broadcast(carrier, 0).await();
        Tensor back = carrier.dtype() == d ? carrier : carrier.to(d);
        t.backend().copyInto(t.storage(), t.layout(), back.storage(), back.layout());
    }

    /** A 64-bit FNV-1a hash of {@code s} cut to 52 bits, so a double holds it exactly. */
    private static double hash52(String s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return (double) (h >>> 12);
    }
}
