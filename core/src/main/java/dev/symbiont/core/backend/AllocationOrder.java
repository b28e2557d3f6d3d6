package dev.symbiont.core.backend;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One counter every storage draws a serial from when it is made, so that core can tell a
 * buffer made after some point from an older one: autograd hands a leaf a gradient made
 * during its backward pass without a copy, but copies one that existed before (the caller's
 * gradient, a saved tensor).
 */
public final class AllocationOrder {
    private static final AtomicLong NEXT = new AtomicLong();

    private AllocationOrder() {}

    /** The serial of a storage being made now. */
    public static long next() { return NEXT.getAndIncrement(); }

    /** The serial the next storage will get: every storage made from now on has one at least this. */
    public static long current() { return NEXT.get(); }
}
