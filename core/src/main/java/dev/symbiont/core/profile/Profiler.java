package dev.symbiont.core.profile;

import dev.symbiont.core.backend.Backend;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The JVM analogue of {@code torch.profiler}: ops open a {@link Scope} around their work and,
 * while a {@link ProfilerSession} is active, the scope's wall time, estimated FLOPs and bytes
 * are aggregated per op name and per {@link OpCategory}.
 *
 * <pre>{@code
 * try (ProfilerSession p = Profiler.start()) {
 *     model.step(batch);
 *     System.out.println(p.report().table());
 * }
 * }</pre>
 *
 * <p><b>Off costs nothing measurable.</b> Every op calls {@link #op}, so with no session the
 * call is one read of a static volatile boolean and returns {@link Scope#NONE}: no
 * allocation, no clock read, no thread-local lookup. The cheapest ops also count elements for
 * their estimates only after checking {@link #isActive()} (a 64-element add costs the same
 * ~90 ns as before the profiler existed; see ProfilerBenchmark). Only while a session is active does a
 * thread keep a stack of open scopes, which is how nested ops (a fused default built from
 * primitives, a backward rule calling ops) get <i>self</i> time: a scope's time minus the time
 * of the scopes opened inside it, so the op rows add up to the recorded time without double
 * counting.
 *
 * <p><b>Asynchronous backends.</b> A scope opened with the backend that runs the op
 * ({@link #op(Backend, String, OpCategory, long, long)}) calls {@link Backend#synchronize()}
 * when it closes during a session, before reading the clock, so queued device work is charged
 * to the op that queued it and not to whichever later op happens to wait. With no session it
 * is never called: profiling off still costs one volatile read.
 *
 * <p>One session at a time: {@link #start} throws, naming the active session, while another is
 * open. Any thread may record into it (a data-loader worker records "data" time); aggregation
 * is thread-safe.
 */
public final class Profiler {
    /** The only thing the hot path reads when profiling is off. */
    private static volatile boolean enabled;
    private static volatile ProfilerSession active;

    private static final ThreadLocal<Frame.Stack> STACKS = ThreadLocal.withInitial(Frame.Stack::new);
    /** Forward op name → its category, learnt from forward scopes, so backward rows share it. */
    private static final Map<String, OpCategory> CATEGORIES = new ConcurrentHashMap<>();
    private static final Map<String, String> BACKWARD_NAMES = new ConcurrentHashMap<>();

    private Profiler() {}

    /**
     * Opens a scope for one op: {@code flops} and {@code bytes} are the op's estimated
     * floating-point operations and bytes read plus written (0 when unknown). A scope whose
     * nested scopes report FLOPs (or bytes) leaves those to them in category totals.
     */
    public static Scope op(String name, OpCategory category, long flops, long bytes) {
        if (!enabled) return Scope.NONE;
        return open(null, name, category, flops, bytes);
    }

    /**
     * A scope for one op that runs on {@code backend}: as {@link #op(String, OpCategory, long, long)},
     * and closing it during a session first waits for the backend ({@link Backend#synchronize()}).
     */
    public static Scope op(Backend backend, String name, OpCategory category, long flops, long bytes) {
        if (!enabled) return Scope.NONE;
        return open(backend, name, category, flops, bytes);
    }

    /** A scope with no work estimate: glue, waits, or work counted by the ops inside it. */
    public static Scope op(String name, OpCategory category) {
        if (!enabled) return Scope.NONE;
        return open(null, name, category, 0, 0);
    }

    /**
     * The scope around one backward rule: named {@code forwardOp + ".backward"}, in the category
     * the forward op was recorded with (OTHER when no forward scope of that name was seen).
     * The ops the rule calls still count under their own names.
     */
    public static Scope backward(String forwardOp) {
        if (!enabled) return Scope.NONE;
        String name = BACKWARD_NAMES.computeIfAbsent(forwardOp, n -> n + ".backward");
        return open(null, name, CATEGORIES.getOrDefault(forwardOp, OpCategory.OTHER), 0, 0);
    }

    /**
     * Gives the innermost open scope of this thread its work estimate when the scope was opened
     * without one: a backward rule ({@link #backward}) whose fused kernels call no profiled op
     * states here what they compute, so the step's backward GEMMs show their rates too. A scope
     * that already has an estimate keeps it; without a session this does nothing.
     */
    public static void estimate(long flops, long bytes) {
        if (!enabled) return;
        ProfilerSession session = active;
        if (session == null) return;
        Frame top = STACKS.get().top(session);
        if (top != null) top.estimate(flops, bytes);
    }

    /** Runs {@code body} inside a scope; for code that is not an op (data loading, a model block). */
    public static void time(String name, OpCategory category, Runnable body) {
        try (Scope s = op(name, category)) {
            body.run();
        }
    }

    /** Runs {@code body} inside a scope and returns its result. */
    public static <T> T time(String name, OpCategory category, Supplier<T> body) {
        try (Scope s = op(name, category)) {
            return body.get();
        }
    }

    /**
     * Counts one call in which a backend's fast kernel did not accept its input and ran the
     * reference instead; {@code what} is "op: reason". Shown in the report's fallback section.
     */
    public static void fallback(String what) {
        if (!enabled) return;
        ProfilerSession session = active;
        if (session != null) session.fallback(what);
    }

    /** True while a session is recording. */
    public static boolean isActive() { return enabled; }

    /** Starts recording; throws if a session is already active. */
    public static ProfilerSession start() { return start("profile"); }

    /** Starts recording under {@code label} (printed in the report); throws if a session is already active. */
    public static synchronized ProfilerSession start(String label) {
        ProfilerSession current = active;
        if (current != null) {
            throw new IllegalStateException("profiler: cannot start session '" + label + "' while " + current
                    + " is active; close that one first (only one session at a time)");
        }
        ProfilerSession session = new ProfilerSession(label, Thread.currentThread());
        active = session;
        enabled = true;
        return session;
    }

    /** Called by the session on close; a stale session closing does not end a newer one. */
    static synchronized void stop(ProfilerSession session) {
        if (active != session) return;
        enabled = false;
        active = null;
    }

    /** Remembers the category of a forward op the first time a session records it. */
    static void learnCategory(String name, OpCategory category) {
        CATEGORIES.putIfAbsent(name, category);
    }

    private static Scope open(Backend backend, String name, OpCategory category, long flops, long bytes) {
        ProfilerSession session = active;
        if (session == null) return Scope.NONE;
        return STACKS.get().push(session, backend, name, category, flops, bytes);
    }

    /** A profiled region; close it (try-with-resources) when the work is done. */
    @FunctionalInterface
    public interface Scope extends AutoCloseable {
        /** The scope handed out while no session records: closing it does nothing. */
        Scope NONE = () -> { };

        @Override
        void close();
    }
}
