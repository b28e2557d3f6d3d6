package dev.symbiont.peft;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.HostTransfer;
import dev.symbiont.nn.Module;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * A short fingerprint of a model's weights: SHA-256 over its state dict's keys, shapes and float32
 * values, the first 16 bytes in hex. Adapters trained on one base model mean nothing on another,
 * so a LoRA run records its base's fingerprint and a resume on other weights is refused; weights
 * equal in value give the same fingerprint whatever files or dtype they were read from.
 */
public final class WeightFingerprint {
    /** Values are read to the host this many at a time. */
    private static final int CHUNK = 1 << 20;

    private WeightFingerprint() {}

    /** The fingerprint of {@code model}'s state dict, read one piece of one tensor at a time. */
    public static String of(Module model) {
        MessageDigest sha = sha256();
        try (var read = HostTransfer.CHECKPOINT.allow()) {
            for (Map.Entry<String, Tensor> e : model.stateDict().entrySet()) {
                Tensor t = e.getValue();
                sha.update((e.getKey() + java.util.Arrays.toString(t.shape()) + "\n").getBytes(StandardCharsets.UTF_8));
                Tensor flat = (t.dtype() == DType.FLOAT32 ? t : t.to(DType.FLOAT32)).contiguous().flatten();
                for (int at = 0; at < flat.numel(); at += CHUNK) {
                    float[] values = flat.narrow(0, at, Math.min(CHUNK, flat.numel() - at)).toFloatArray();
                    ByteBuffer bytes = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
                    bytes.asFloatBuffer().put(values);
                    sha.update(bytes.array());
                }
            }
        }
        return HexFormat.of().formatHex(sha.digest(), 0, 16);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("WeightFingerprint: the JDK has no SHA-256", e);
        }
    }
}
