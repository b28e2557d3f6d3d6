package dev.symbiont.io;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * The format requires the entries' byte ranges to tile the data section: sorted by offset, each
 * begins where the previous ended and the last ends at the end of the file. Anything else is a
 * truncated, padded or hand-edited file, so it is rejected rather than guessed at.
 */
final class DataSectionCheck {
    private DataSectionCheck() {}

    static void coversExactly(Path file, Collection<TensorInfo> entries, long dataStart, long dataLength)
            throws SafetensorsFormatException {
        List<TensorInfo> sorted = new ArrayList<>(entries);
        sorted.sort(Comparator.comparingLong(TensorInfo::begin).thenComparingLong(TensorInfo::end));
        long covered = 0;
        TensorInfo previous = null;
        for (TensorInfo t : sorted) {
            if (t.begin() < covered) {
                throw new SafetensorsFormatException(file, t.name(), "data_offsets " + offsets(t) + " overlaps tensor "
                        + SafetensorsFormatException.quote(previous.name()) + " data_offsets " + offsets(previous)
                        + " (file bytes " + bytes(dataStart, t.begin(), t.end()) + " start inside "
                        + bytes(dataStart, previous.begin(), previous.end()) + ")");
            }
            if (t.begin() > covered) {
                throw new SafetensorsFormatException(file, t.name(), "data_offsets " + offsets(t) + " leave a gap: data bytes "
                        + "[" + covered + ", " + t.begin() + ") (file bytes " + bytes(dataStart, covered, t.begin())
                        + ") belong to no tensor" + (previous == null ? "" : ", after tensor "
                        + SafetensorsFormatException.quote(previous.name())));
            }
            covered = t.end();
            previous = t;
        }
        if (covered != dataLength) {
            throw new SafetensorsFormatException(file, null, "data bytes [" + covered + ", " + dataLength + ") (file bytes "
                    + bytes(dataStart, covered, dataLength) + ") belong to no tensor"
                    + (previous == null ? "" : ": the data section ends after tensor "
                    + SafetensorsFormatException.quote(previous.name())));
        }
    }

    private static String offsets(TensorInfo t) {
        return "[" + t.begin() + ", " + t.end() + "]";
    }

    private static String bytes(long dataStart, long begin, long end) {
        return "[" + (dataStart + begin) + ", " + (dataStart + end) + ")";
    }
}
