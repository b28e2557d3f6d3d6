package dev.symbiont.io;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A validated safetensors header: what the file holds without its data. Entries keep the order
 * of the JSON header; {@code dataStart} is the file offset where the data section begins
 * (8 + the header length), so an entry's bytes lie at {@code dataStart + begin}.
 */
public record SafetensorsHeader(Map<String, TensorInfo> tensors, Map<String, String> metadata, long dataStart, long dataLength) {
    public SafetensorsHeader {
        tensors = Collections.unmodifiableMap(new LinkedHashMap<>(tensors));
        metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    }
}
