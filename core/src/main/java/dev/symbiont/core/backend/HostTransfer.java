package dev.symbiont.core.backend;

import dev.symbiont.core.Scope;

/**
 * The host transfers a training step may make on purpose, each with its reason: every other
 * {@link Backend#upload} or {@link Backend#download} during a step is a mistake (on an
 * accelerator, a synchronisation and a copy over the bus). Code that transfers deliberately
 * names which one around the transfer,
 * <pre>{@code
 *   try (var allowed = HostTransfer.LOGGED_METRICS.allow()) {
 *       loss = windowLoss.item();
 *   }
 * }</pre>
 * and a backend that counts transfers (the models' transfer tests) asks {@link #active()} which
 * one, if any, the current thread is inside. A scope costs a thread-local write to open and to
 * close; nothing reads it unless a transfer happens.
 */
public enum HostTransfer {
    /** A batch the data loader prepared on the host (collate) reaching the backend, once per micro-batch. */
    BATCH("a batch from the data loader reaching the backend"),
    /** The window's training loss, auxiliary loss, gradient norm and the model's metrics, read when a line is logged. */
    LOGGED_METRICS("the loss and metrics read at a logging interval"),
    /** An evaluation's losses and scores, read per evaluation batch. */
    EVALUATION("an evaluation's losses and scores read"),
    /** A checkpoint's tensors written to a file, or read back from one on resume. */
    CHECKPOINT("a checkpoint saved or loaded"),
    /**
     * Float16 loss scaling's one read per step of whether a gradient overflowed, which decides
     * on the host whether the optimizer steps (as PyTorch's {@code GradScaler.step} does).
     */
    OVERFLOW_CHECK("loss scaling's check for an overflowed gradient"),
    /**
     * A tensor exchanged with the other ranks through a communicator that works on host memory
     * (MPI on a CPU cluster): gradient buckets in data-parallel training, and the broadcast of
     * parameters when a model is wrapped.
     */
    COLLECTIVE("a tensor exchanged with the other ranks through a host communicator");

    private static final ThreadLocal<HostTransfer> ACTIVE = new ThreadLocal<>();

    private final String reason;

    HostTransfer(String reason) { this.reason = reason; }

    /** Why a training step makes this transfer, for messages. */
    public String reason() { return reason; }

    /**
     * Marks this thread's transfers as this deliberate one until the scope closes; scopes nest,
     * the innermost naming the transfer, and closing one restores the one around it.
     */
    public Scope allow() {
        HostTransfer outer = ACTIVE.get();
        ACTIVE.set(this);
        return () -> ACTIVE.set(outer);
    }

    /** The deliberate transfer this thread is inside, or null outside every {@link #allow()} scope. */
    public static HostTransfer active() { return ACTIVE.get(); }
}
