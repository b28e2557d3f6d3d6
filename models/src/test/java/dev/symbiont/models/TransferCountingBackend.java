package dev.symbiont.models;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.HostTransfer;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.cpu.CpuBackend;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

/**
 * The CPU backend, counting every upload and download once {@link #startCounting()} was called:
 * the deliberate ones by their {@link HostTransfer}, the others with where they came from.
 * Transfers may come from a data loader's worker thread, so the records are synchronised.
 */
final class TransferCountingBackend extends CpuBackend {
    private final Map<String, Integer> strays = new LinkedHashMap<>();
    private final Map<HostTransfer, Integer> allowed = new EnumMap<>(HostTransfer.class);
    private volatile boolean counting;

    /** Counts every transfer from now on. */
    void startCounting() { counting = true; }

    /** The transfers outside an allowed scope, each origin once in the order first seen: "2× upload from [frames...]". */
    synchronized List<String> strays() {
        return strays.entrySet().stream().map(e -> e.getValue() + "× " + e.getKey()).toList();
    }

    /** The deliberate transfers, by which one they were. */
    synchronized Map<HostTransfer, Integer> allowed() { return new EnumMap<>(allowed); }

    private void count(String what) {
        if (!counting) return;
        HostTransfer deliberate = HostTransfer.active();
        synchronized (this) {
            if (deliberate != null) allowed.merge(deliberate, 1, Integer::sum);
            else strays.merge(what + " from " + origin(), 1, Integer::sum);
        }
    }

    /** The first project frames of the caller, the counting ones left out. */
    private static List<String> origin() {
        return StackWalker.getInstance().walk(frames -> frames
                .filter(f -> !f.getClassName().equals(TransferCountingBackend.class.getName()))
                .map(f -> f.getClassName().replaceFirst("^dev\\.symbiont\\.", "") + "." + f.getMethodName() + ":" + f.getLineNumber())
                .limit(8).toList());
    }

    @Override
    public Storage upload(DType dtype, MemorySegment source) {
        count("upload");
        return super.upload(dtype, source);
    }

    @Override
    public void download(Storage storage, Layout layout, MemorySegment target) {
        count("download");
        super.download(storage, layout, target);
    }
}
