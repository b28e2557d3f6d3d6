package dev.symbiont.fuzz;

import dev.symbiont.core.Generator;
import dev.symbiont.nn.Dropout;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Sequential;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.ParamGroup;
import dev.symbiont.train.TrainingCheckpoint;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TrainingCheckpoint#load} of a checkpoint of a small model with dropout and AdamW: the
 * position, the generator states, the model and the optimizer's state. A load is consistent when
 * the position it returns is a real one (no negative step, epoch or batch).
 */
final class CheckpointTarget implements FuzzTarget {
    @Override public String name() { return "checkpoint"; }

    @Override public String suffix() { return ".safetensors"; }

    @Override public Class<? extends Exception> failure() { return IOException.class; }

    static Sequential model() {
        return new Sequential(new Linear(4, 4, true, new Generator(1)), new Dropout(0.5, new Generator(2)));
    }

    static AdamW optimizer(Sequential m) { return new AdamW(ParamGroup.splitDecay(m, 0.01), AdamW.options(0.01)); }

    @Override
    public Object load(Path file) throws Exception {
        Sequential m = model();
        return TrainingCheckpoint.load(file, m, optimizer(m), null);
    }

    @Override
    public void check(Object loaded, Path file, byte[] bytes) {
        TrainingCheckpoint.Position p = (TrainingCheckpoint.Position) loaded;
        assertTrue(p.step() >= 0 && p.epoch() >= 0 && p.batch() >= 0, "position " + p);
    }

    /** The model and optimizer are built for every load (and the first load warms the library up): a fixed 64 MiB beside the usual bound. */
    @Override
    public long allocationBound(byte[] input) { return (64L << 20) + Fuzzer.allocationBound(input.length); }

    @Override
    public List<Mutation> formatMutations(Mutation generic) {
        return List.of(MetadataEdits::editValue, (in, rng) -> SafetensorsTarget.editHeader(in, rng, generic));
    }
}
