package dev.symbiont.core.reference;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Storage;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The reference backend counting host transfers: every {@code upload} (a host array into the
 * backend) and {@code download} (the backend's values out to a host array), each with the
 * frames that asked for it. On a device each is a synchronisation and a PCIe copy, so a
 * training step should make none; tests run a step twice and assert the second made none.
 */
public class TransferCountingBackend extends ReferenceBackend {
    private int uploads, downloads;
    private final List<String> transfers = new ArrayList<>();

    @Override
    public Storage upload(DType dtype, MemorySegment source) {
        uploads++;
        record("upload");
        return super.upload(dtype, source);
    }

    @Override
    public void download(Storage storage, Layout layout, MemorySegment target) {
        downloads++;
        record("download");
        super.download(storage, layout, target);
    }

    private void record(String what) {
        String origin = StackWalker.getInstance().walk(frames -> frames
                .skip(2) // this method and the override
                .map(f -> f.getClassName().replaceFirst("^dev\\.symbiont\\.", "") + "." + f.getMethodName() + ":" + f.getLineNumber())
                .limit(8).toList()).toString();
        transfers.add(what + " from " + origin);
    }

    /** Uploads since the last {@link #reset}. */
    public int uploads() { return uploads; }

    /** Downloads since the last {@link #reset}. */
    public int downloads() { return downloads; }

    /** Each transfer since the last {@link #reset} and where it came from, for a failure's message. */
    public List<String> transfers() { return List.copyOf(transfers); }

    /** Starts counting from zero. */
    public void reset() {
        uploads = 0;
        downloads = 0;
        transfers.clear();
    }

    @Override
    public String name() { return "reference-counting"; }
}
