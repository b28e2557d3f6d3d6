package dev.symbiont.io;

import com.fasterxml.jackson.databind.JsonNode;
import dev.symbiont.core.DType;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Checks one header value: a tensor entry {@code {"dtype", "shape", "data_offsets"}} or the
 * {@code __metadata__} object. An entry must describe a tensor Symbiont can hold (int-sized
 * dims and element count) whose bytes fit the data section and match its dtype and shape.
 */
final class EntryParser {
    private final Path file;
    private final long dataStart;
    private final long dataLength;

    EntryParser(Path file, long dataStart, long dataLength) {
        this.file = file;
        this.dataStart = dataStart;
        this.dataLength = dataLength;
    }

    long dataStart() { return dataStart; }

    /** The string-to-string metadata; JSON null counts as none, as in the reference implementation. */
    Map<String, String> metadata(JsonNode node, long at) throws SafetensorsFormatException {
        Map<String, String> out = new LinkedHashMap<>();
        if (node.isNull()) return out;
        String where = HeaderParser.METADATA + " (at file offset " + at + ")";
        if (!node.isObject()) {
            throw new SafetensorsFormatException(file, null, where + " is " + show(node) + ", expected an object of strings");
        }
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            if (!e.getValue().isTextual()) {
                throw new SafetensorsFormatException(file, null, where + ": the value for key " + Excerpt.quote(e.getKey())
                        + " is " + show(e.getValue()) + ", not a string");
            }
            out.put(e.getKey(), e.getValue().textValue());
        }
        return out;
    }

    TensorInfo entry(String name, JsonNode node, long at) throws SafetensorsFormatException {
        String where = "(header entry at file offset " + at + ")";
        if (!node.isObject()) {
            throw fail(name, where + " is " + show(node) + ", expected an object with dtype, shape and data_offsets");
        }
        JsonNode code = required(name, node, "dtype", where);
        if (!code.isTextual()) throw fail(name, where + ": \"dtype\" must be a string, got " + show(code));
        DType dtype = DTypeCodes.dtype(code.textValue());
        if (dtype == null) {
            throw fail(name, where + ": dtype " + show(code) + " is not one Symbiont reads (" + DTypeCodes.supported() + ")");
        }
        int[] shape = shape(name, required(name, node, "shape", where), where);
        JsonNode offsetsNode = required(name, node, "data_offsets", where);
        long[] offsets = offsets(name, offsetsNode, where);
        long begin = offsets[0], end = offsets[1];
        String range = "data_offsets " + list(offsetsNode);
        if (begin > end) {
            throw fail(name, range + " begin after end (file offsets " + (dataStart + begin) + " and " + (dataStart + end) + ")");
        }
        if (end > dataLength) {
            throw fail(name, range + " end past the data section (" + dataLength + " bytes, ends at file offset "
                    + (dataStart + dataLength) + ")");
        }
        long needed = (long) count(shape) * dtype.byteSize();
        if (end - begin != needed) {
            throw fail(name, range + " (file bytes [" + (dataStart + begin) + ", " + (dataStart + end) + ")) hold "
                    + (end - begin) + " bytes, but shape " + list(node.get("shape")) + " of " + code.textValue()
                    + " needs " + needed);
        }
        return new TensorInfo(name, dtype, shape, begin, end);
    }

    private JsonNode required(String name, JsonNode entry, String field, String where) throws SafetensorsFormatException {
        JsonNode value = entry.get(field);
        if (value == null) throw fail(name, where + ": missing \"" + field + "\"");
        return value;
    }

    /** Dims must be non-negative ints whose product (with 0 read as 1, as strides are) fits an int. */
    private int[] shape(String name, JsonNode node, String where) throws SafetensorsFormatException {
        if (!node.isArray()) throw fail(name, where + ": \"shape\" must be an array of integers, got " + show(node));
        int[] shape = new int[node.size()];
        long span = 1;
        for (int i = 0; i < shape.length; i++) {
            JsonNode d = node.get(i);
            if (!d.isIntegralNumber()) {
                throw fail(name, where + ": shape " + list(node) + " has " + show(d) + " at position " + i + ", not an integer");
            }
            if (d.bigIntegerValue().signum() < 0) throw fail(name, where + ": shape " + list(node) + " has a negative dimension");
            if (!d.canConvertToInt()) {
                throw fail(name, where + ": shape " + list(node) + " has dimension " + d + ", past Symbiont's limit of 2^31 - 1");
            }
            shape[i] = d.intValue();
            span *= Math.max(shape[i], 1);
            if (span > Integer.MAX_VALUE) {
                throw fail(name, where + ": shape " + list(node)
                        + " holds more than 2^31 - 1 elements, Symbiont's limit for one tensor");
            }
        }
        return shape;
    }

    private long[] offsets(String name, JsonNode node, String where) throws SafetensorsFormatException {
        if (!node.isArray() || node.size() != 2) {
            throw fail(name, where + ": \"data_offsets\" must be an array [begin, end], got " + show(node));
        }
        long[] out = new long[2];
        for (int i = 0; i < 2; i++) {
            JsonNode v = node.get(i);
            if (!v.isIntegralNumber() || v.bigIntegerValue().signum() < 0 || !v.canConvertToLong()) {
                throw fail(name, where + ": data_offsets " + list(node) + " must hold two integers from 0 to 2^63 - 1");
            }
            out[i] = v.longValue();
        }
        return out;
    }

    private static int count(int[] shape) {
        int n = 1;
        for (int d : shape) n *= d; // cannot overflow: shape() bounded the product
        return n;
    }

    private SafetensorsFormatException fail(String name, String detail) {
        return new SafetensorsFormatException(file, name, detail);
    }

    /** A JSON array as "[a, b]", the way messages show shapes and offsets. */
    private static String list(JsonNode array) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < array.size(); i++) {
            if (sb.length() > 60) return sb.append(", ...]").toString();
            sb.append(i == 0 ? "" : ", ").append(show(array.get(i)));
        }
        return sb.append(']').toString();
    }

    /** A JSON value for a message, cut short so a hostile header cannot flood the log. */
    static String show(JsonNode node) {
        return Excerpt.of(node);
    }
}
