package dev.symbiont.io;

import dev.symbiont.core.Tensor;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** A loaded safetensors file: its tensors in header order and its {@code __metadata__} strings. */
public record SafetensorsFile(Map<String, Tensor> tensors, Map<String, String> metadata) {
    public SafetensorsFile {
        tensors = Collections.unmodifiableMap(new LinkedHashMap<>(tensors));
        metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    }
}
