package dev.symbiont.core.profile;

import dev.symbiont.core.backend.Backend;

/**
 * One open scope on one thread while a session is active. Frames form a per-thread stack
 * (through {@link #parent}) so that closing one can charge its inclusive time to the scope it
 * was opened in: the parent's self time is its own time minus its children's.
 *
 * <p>Work estimates follow the same rule. A frame's inclusive FLOPs are its own estimate, or
 * its children's when it gave none (a backward rule, a composite loss); its <i>self</i> FLOPs
 * are its estimate only when no child reported any, so a fused op's reference default (built
 * from recorded primitives) and a backend's single kernel for it both sum to the work done
 * once. Bytes are handled the same way.
 *
 * <p>A frame that knows its op's backend waits for it ({@link Backend#synchronize()}) before
 * it reads the clock on close, so an asynchronous backend's queued work is timed here.
 */
final class Frame implements Profiler.Scope {
    private final Stack stack;
    private final ProfilerSession session;
    private final Backend backend;
    private final Frame parent;
    private final String name;
    private final OpCategory category;
    private long flops;
    private long bytes;
    private final long start;
    private long childNanos;
    private long childFlops;
    private long childBytes;
    private boolean closed;

    private Frame(Stack stack, ProfilerSession session, Backend backend, Frame parent, String name, OpCategory category,
                  long flops, long bytes) {
        this.stack = stack;
        this.session = session;
        this.backend = backend;
        this.parent = parent;
        this.name = name;
        this.category = category;
        this.flops = Math.max(0, flops);
        this.bytes = Math.max(0, bytes);
        this.start = System.nanoTime();
    }

    /** Sets this scope's work estimate where its opener gave none (see {@link Profiler#estimate}). */
    void estimate(long flops, long bytes) {
        if (this.flops == 0) this.flops = Math.max(0, flops);
        if (this.bytes == 0) this.bytes = Math.max(0, bytes);
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        try {
            if (backend != null) backend.synchronize();
        } finally {
            record(System.nanoTime() - start); // a failed wait still pops this frame
        }
    }

    private void record(long elapsed) {
        stack.top = parent;
        long inclusiveFlops = flops > 0 ? flops : childFlops;
        long inclusiveBytes = bytes > 0 ? bytes : childBytes;
        if (parent != null) {
            parent.childNanos += elapsed;
            parent.childFlops += inclusiveFlops;
            parent.childBytes += inclusiveBytes;
        }
        session.record(name, category, elapsed, Math.max(0, elapsed - childNanos),
                inclusiveFlops, childFlops > 0 ? 0 : flops, inclusiveBytes, childBytes > 0 ? 0 : bytes);
    }

    /** The open frames of one thread; reset when the thread first records into a new session. */
    static final class Stack {
        private ProfilerSession session;
        private Frame top;

        /** The innermost open frame of {@code current}, or null. */
        Frame top(ProfilerSession current) {
            return session == current && top != null && top.session == current ? top : null;
        }

        Frame push(ProfilerSession current, Backend backend, String name, OpCategory category, long flops, long bytes) {
            if (session != current) {
                session = current;
                top = null;
                current.joined(Thread.currentThread());
            }
            // A frame left open from an earlier session is not a parent in this one.
            Frame parent = top != null && top.session == current ? top : null;
            Frame frame = new Frame(this, current, backend, parent, name, category, flops, bytes);
            top = frame;
            return frame;
        }
    }
}
