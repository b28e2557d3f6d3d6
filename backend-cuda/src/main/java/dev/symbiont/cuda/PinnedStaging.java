package dev.symbiont.cuda;

import dev.symbiont.cuda.driver.Driver;

import java.lang.foreign.MemorySegment;

/**
 * One page-locked host buffer that transfers pass through in chunks, so the copy engine reads and
 * writes host memory at full speed and an upload returns without waiting for its last chunk. The
 * buffer is reused: before it is refilled, the copy that reads it must be done.
 */
final class PinnedStaging {
    static final long CHUNK = 8L << 20;

    private final Driver driver;
    private final Driver.Stream stream;
    private MemorySegment buffer;
    private boolean inFlight;

    PinnedStaging(Driver driver, Driver.Stream stream) {
        this.driver = driver;
        this.stream = stream;
    }

    /** Copies all of {@code source} to device address {@code dst}; the last chunk may still be in flight on return. */
    synchronized void upload(long dst, MemorySegment source) {
        long bytes = source.byteSize();
        for (long done = 0; done < bytes; done += CHUNK) {
            long n = Math.min(CHUNK, bytes - done);
            MemorySegment pinned = buffer(n);
            if (inFlight) driver.synchronize(stream);
            pinned.copyFrom(source.asSlice(done, n));
            driver.copyToDevice(dst + done, pinned, stream);
            inFlight = true;
        }
    }

    /** Copies {@code target.byteSize()} bytes from device address {@code src} into {@code target}; done on return. */
    synchronized void download(MemorySegment target, long src) {
        long bytes = target.byteSize();
        for (long done = 0; done < bytes; done += CHUNK) {
            long n = Math.min(CHUNK, bytes - done);
            MemorySegment pinned = buffer(n);
            driver.copyToHost(pinned, src + done, stream);
            driver.synchronize(stream);
            target.asSlice(done, n).copyFrom(pinned);
        }
        inFlight = false;
    }

    /** Frees the pinned buffer (waiting for a copy still reading it). */
    synchronized void close() {
        if (buffer == null) return;
        if (inFlight) driver.synchronize(stream);
        driver.freeHost(buffer);
        buffer = null;
        inFlight = false;
    }

    private MemorySegment buffer(long bytes) {
        if (buffer == null) buffer = driver.mallocHost(CHUNK);
        return buffer.asSlice(0, bytes);
    }
}
