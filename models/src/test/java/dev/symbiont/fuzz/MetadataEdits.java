package dev.symbiont.fuzz;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * A safetensors mutation that knows where configs live: one value of the header's
 * {@code __metadata__} replaced by a hostile one (a negative, a huge count, a fraction, text,
 * NaN, nothing), the header length kept in step, so the loaders' field checks are what is hit.
 */
final class MetadataEdits {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] VALUES = {"-1", "0", "1", "abc", "", "NaN", "Infinity", "1e309", "0.0", "2.5", "46341", "2147483647",
            "2147483648", "9223372036854775807", "-9223372036854775808", "65536", "1000000", "12345", "1,2", "1,", ",", "true"};

    private MetadataEdits() {}

    static byte[] editValue(byte[] in, Random rng) {
        try {
            if (in.length < 8) return in;
            long length = ByteBuffer.wrap(in, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
            if (length < 2 || length > in.length - 8) return in;
            ObjectNode header = (ObjectNode) JSON.readTree(new String(in, 8, (int) length, StandardCharsets.UTF_8));
            if (!(header.get("__metadata__") instanceof ObjectNode meta) || meta.isEmpty()) return in;
            List<String> keys = new ArrayList<>();
            meta.fieldNames().forEachRemaining(keys::add);
            String key = keys.get(rng.nextInt(keys.size()));
            if (rng.nextInt(8) == 0) meta.remove(key);
            else meta.put(key, VALUES[rng.nextInt(VALUES.length)]);
            byte[] text = JSON.writeValueAsBytes(header);
            byte[] out = Mutator.concat(new byte[8], text, Arrays.copyOfRange(in, 8 + (int) length, in.length));
            ByteBuffer.wrap(out, 0, 8).order(ByteOrder.LITTLE_ENDIAN).putLong(text.length);
            return out;
        } catch (Exception e) {
            return in;
        }
    }
}
