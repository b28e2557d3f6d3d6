package dev.symbiont.models.hf;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.meta.MetaBackend;
import dev.symbiont.io.ConfigPreflight;
import dev.symbiont.io.TensorInfo;
import dev.symbiont.models.CausalLM;
import dev.symbiont.nn.KeyList;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a Hugging Face checkpoint against its config before anything of the config's size
 * exists: the model is built on the meta device (shapes, no data), its state-dict keys renamed
 * as the checkpoint names them, and compared with the tensors the files hold. Every missing,
 * unexpected and mis-shaped tensor is listed in one error naming the keys and the files.
 */
final class HfPreflight {
    private HfPreflight() {}

    /**
     * The checkpoint key and stored shape of every tensor the model loads, in the model's order.
     *
     * @throws IllegalArgumentException naming config.json and the files when they disagree
     */
    static Map<String, TensorInfo> check(HfConfig config, WeightFiles files, Map<String, WeightFiles.Entry> entries, HfModelPlan plan) {
        CausalLM shape;
        try {
            shape = (CausalLM) ConfigPreflight.metaBuild(files.tensorCount(), plan.build());
        } catch (MetaBackend.BudgetExceededException e) {
            throw new IllegalArgumentException(config.file() + ": declares a model far larger than the " + files.tensorCount()
                    + " tensors of its weights; refusing to build it");
        }
        Map<String, TensorInfo> expected = new LinkedHashMap<>();
        Set<String> modelKeys = new HashSet<>();
        List<String> missing = new ArrayList<>(), mismatched = new ArrayList<>(), unexpected = new ArrayList<>();
        for (Map.Entry<String, Tensor> e : shape.stateDict().entrySet()) {
            KeyMap.Mapped hf = plan.keys().toHf(e.getKey());
            if (hf == null) throw new IllegalStateException("the key map names no checkpoint key for the model's '" + e.getKey() + "'");
            int[] stored = hf.transposed() ? new int[] {e.getValue().size(1), e.getValue().size(0)} : e.getValue().shape();
            modelKeys.add(hf.key());
            WeightFiles.Entry found = entries.get(hf.key());
            if (found == null) {
                if (!plan.optional().contains(hf.key())) missing.add(hf.key());
            } else if (!Arrays.equals(found.info().shape(), stored)) {
                mismatched.add(hf.key() + " in " + found.file() + " is " + Arrays.toString(found.info().shape()) + ", the config makes "
                        + Arrays.toString(stored));
            } else {
                expected.put(hf.key(), found.info());
            }
        }
        for (WeightFiles.Entry e : entries.values()) {
            if (!modelKeys.contains(e.key()) && !plan.ignored().test(e.key())) unexpected.add(e.key() + " in " + e.file());
        }
        if (missing.isEmpty() && mismatched.isEmpty() && unexpected.isEmpty()) return expected;
        StringBuilder why = new StringBuilder();
        if (!missing.isEmpty()) why.append("missing ").append(KeyList.of(missing));
        if (!unexpected.isEmpty()) why.append(why.isEmpty() ? "" : "; ").append("unexpected ").append(KeyList.of(unexpected));
        if (!mismatched.isEmpty()) why.append(why.isEmpty() ? "" : "; ").append("wrong shapes ").append(KeyList.of(mismatched));
        throw new IllegalArgumentException(files.dir() + ": the weights do not fit " + config.file().getFileName() + ": " + why);
    }
}
