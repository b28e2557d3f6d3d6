package dev.symbiont.cuda.nccl;

import dev.symbiont.core.DType;
import dev.symbiont.core.distributed.Reduction;

/**
 * NCCL's enum values as {@code nccl.h} defines them ({@code ncclDataType_t}, {@code ncclRedOp_t},
 * {@code ncclResult_t}) and the mapping from Symbiont's dtypes and reductions onto them.
 */
public final class NcclTypes {
    private NcclTypes() {}

    /** {@code ncclDataType_t}: the three dtypes collectives exchange. */
    public static final int INT32 = 2, INT64 = 4, FLOAT32 = 7;

    /** {@code ncclRedOp_t}; {@code ncclAvg} exists from NCCL 2.10 on. */
    public static final int SUM = 0, PROD = 1, MAX = 2, MIN = 3, AVG = 4;

    /** {@code ncclResult_t}. */
    public static final int SUCCESS = 0, UNHANDLED_CUDA_ERROR = 1, SYSTEM_ERROR = 2, INTERNAL_ERROR = 3, INVALID_ARGUMENT = 4,
            INVALID_USAGE = 5, REMOTE_ERROR = 6, IN_PROGRESS = 7, TIMEOUT = 8;

    /** {@code NCCL_VERSION(2, 10, 0)}: the first version with {@code ncclAvg}. */
    public static final int FIRST_WITH_AVG = 21000;

    /** The {@code ncclDataType_t} of {@code dtype}; an error naming {@code op} for a dtype collectives do not exchange. */
    public static int dataType(String op, DType dtype) {
        return switch (dtype) {
            case FLOAT32 -> FLOAT32;
            case INT32 -> INT32;
            case INT64 -> INT64;
            default -> throw new IllegalArgumentException(op + ": NCCL exchanges float32, int32 and int64, not " + dtype);
        };
    }

    /** Bytes per element of an {@code ncclDataType_t} this mapping produces. */
    public static int elementBytes(int dataType) {
        return switch (dataType) {
            case INT32, FLOAT32 -> 4;
            case INT64 -> 8;
            default -> throw new IllegalArgumentException("ncclDataType_t " + dataType + " is none of int32 (2), int64 (4), float32 (7)");
        };
    }

    /** The {@code ncclRedOp_t} of {@code reduction}. */
    public static int redOp(Reduction reduction) {
        return switch (reduction) {
            case SUM -> SUM;
            case AVG -> AVG;
            case MAX -> MAX;
            case MIN -> MIN;
        };
    }

    /** {@code ncclResult_t}'s name for {@code result}, as {@code nccl.h} spells it ({@code ncclInvalidArgument}). */
    public static String resultName(int result) {
        return switch (result) {
            case SUCCESS -> "ncclSuccess";
            case UNHANDLED_CUDA_ERROR -> "ncclUnhandledCudaError";
            case SYSTEM_ERROR -> "ncclSystemError";
            case INTERNAL_ERROR -> "ncclInternalError";
            case INVALID_ARGUMENT -> "ncclInvalidArgument";
            case INVALID_USAGE -> "ncclInvalidUsage";
            case REMOTE_ERROR -> "ncclRemoteError";
            case IN_PROGRESS -> "ncclInProgress";
            case TIMEOUT -> "ncclTimeout";
            default -> "ncclResult_t " + result;
        };
    }

    /** "2.27.3" for a version code of {@code ncclGetVersion} (2.8 and older coded it as X·1000 + Y·100 + Z). */
    public static String versionString(int code) {
        return code < 10000 ? code / 1000 + "." + code / 100 % 10 + "." + code % 100
                : code / 10000 + "." + code / 100 % 100 + "." + code % 100;
    }
}
