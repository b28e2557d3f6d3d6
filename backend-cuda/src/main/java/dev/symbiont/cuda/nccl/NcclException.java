package dev.symbiont.cuda.nccl;

import dev.symbiont.core.distributed.CollectiveException;

/** An NCCL function that returned something other than {@code ncclSuccess}, with NCCL's own text for it. */
public final class NcclException extends CollectiveException {
    private final int result;

    /** {@code function} returned {@code result}; {@code text} is {@code ncclGetErrorString(result)}, plus any detail. */
    public NcclException(String function, int result, String text) {
        super(function + " failed: " + text + " (" + NcclTypes.resultName(result) + ")");
        this.result = result;
    }

    /** The {@code ncclResult_t} the function returned. */
    public int result() { return result; }
}
