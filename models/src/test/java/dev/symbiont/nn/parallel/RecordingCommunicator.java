package dev.symbiont.nn.parallel;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.Reduction;
import dev.symbiont.core.distributed.Work;

import java.util.List;

/** A communicator that writes each tensor all-reduce it is asked for to a shared list, then delegates. */
final class RecordingCommunicator implements Communicator {
    private final Communicator inner;
    private final List<String> events;

    RecordingCommunicator(Communicator inner, List<String> events) {
        this.inner = inner;
        this.events = events;
    }

    @Override public int rank() { return inner.rank(); }
    @Override public int size() { return inner.size(); }
    @Override public String name() { return "recording " + inner.name(); }

    @Override
    public Work allReduce(Tensor buffer, Reduction op) {
        events.add("allReduce " + buffer.numel() + " " + op);
        return inner.allReduce(buffer, op);
    }

    @Override public Work broadcast(Tensor buffer, int root) { return inner.broadcast(buffer, root); }
    @Override public Work allGather(Tensor input, Tensor output) { return inner.allGather(input, output); }
    @Override public Work reduceScatter(Tensor input, Tensor output, Reduction op) { return inner.reduceScatter(input, output, op); }
    @Override public void barrier() { inner.barrier(); }
    @Override public void allReduce(double[] values, Reduction op) { inner.allReduce(values, op); }
    @Override public void abort(String message, int exitCode) { inner.abort(message, exitCode); }
    @Override public void close() { inner.close(); }
}
