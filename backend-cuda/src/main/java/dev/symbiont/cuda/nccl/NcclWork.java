package dev.symbiont.cuda.nccl;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.distributed.Work;
import dev.symbiont.cuda.driver.Driver;

/**
 * A collective queued on the communicator's NCCL stream, ending at {@code done}, an event
 * recorded there after it. {@link #await()} waits for the event (watching NCCL's asynchronous
 * error and the timeout meanwhile, see {@link NcclCommunicator}), then divides an AVG that NCCL
 * summed; a failure, or a second call, rethrows the same exception. The work holds the tensors
 * it was given so their memory cannot go back to the allocator while NCCL may still use it.
 */
final class NcclWork implements Work {
    private final NcclCommunicator owner;
    private final String what;
    private final Driver.Event done;
    private final Tensor[] tensors;
    private final Tensor averaged;
    private boolean finished;
    private RuntimeException failure;

    /** {@code averaged}: the tensor whose sum becomes a mean when awaited, or null. */
    NcclWork(NcclCommunicator owner, String what, Driver.Event done, Tensor averaged, Tensor... tensors) {
        this.owner = owner;
        this.what = what;
        this.done = done;
        this.averaged = averaged;
        this.tensors = tensors;
    }

    @Override
    public synchronized void await() {
        if (failure != null) throw failure;
        if (finished) return;
        try {
            owner.waitFor(what, done);
            if (averaged != null) owner.divideBySize(averaged);
        } catch (RuntimeException e) {
            failure = e;
            throw e;
        } finally {
            finished = true;
            owner.release(done);
        }
    }

    @Override
    public synchronized boolean isCompleted() { return finished || owner.isComplete(done); }

    @Override
    public String toString() { return what + " on " + tensors.length + " tensor" + (tensors.length == 1 ? "" : "s"); }
}
