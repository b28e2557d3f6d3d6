package dev.symbiont.peft;

import dev.symbiont.models.PretrainedModel;
import dev.symbiont.models.PretrainedModels;
import dev.symbiont.nn.Parameter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** The fingerprint a LoRA run keeps of its base: equal for equal weights, whatever the files, different for one changed value. */
class WeightFingerprintTest {
    @Test
    void equal_weights_agree_and_one_changed_value_does_not(@TempDir Path tmp) throws Exception {
        PretrainedModel base = TinyBases.llama(tmp.resolve("base"));
        String fingerprint = WeightFingerprint.of(base.model());
        assertEquals(32, fingerprint.length(), "16 bytes in hex");
        base.save(tmp.resolve("copy"));
        assertEquals(fingerprint, WeightFingerprint.of(PretrainedModels.load(tmp.resolve("copy")).model()), "the same weights saved again");
        Parameter norm = base.model().namedParameters().get("norm_f.weight");
        float[] v = norm.value().toFloatArray();
        v[3] = Math.nextUp(v[3]);
        norm.update(dev.symbiont.core.Tensor.fromArray(v, v.length));
        assertNotEquals(fingerprint, WeightFingerprint.of(base.model()), "one value one ulp away");
    }
}
