package dev.symbiont.train;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.nn.Parameter;
import dev.symbiont.optim.Optimizer;
import dev.symbiont.optim.ParamState;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An optimizer step that can be taken back on the backend, without reading anything: the values
 * of the parameters it will update and the optimizer's buffers are held before the step, and
 * after it every one becomes {@code where(skip, held, stepped)}. So a step flagged non-finite
 * leaves the parameters and the optimizer's moments as they were, as GradScaler skips an
 * overflowed step. Unlike a step never taken, the optimizer's step count still advances (its
 * bias correction then runs one step ahead), and so does the lr schedule.
 */
final class SkippedUpdate {
    private record Held(String name, Parameter parameter, Tensor value, Map<String, Tensor> buffers) {}

    private final Optimizer optimizer;
    private final List<Held> held = new ArrayList<>();

    /** Holds what {@code optimizer}'s next step will change. Buffers are replaced, not overwritten, by a step, so holding them is free. */
    SkippedUpdate(Optimizer optimizer) {
        this.optimizer = optimizer;
        try (var scope = GradMode.disabled()) {
            optimizer.parameters().forEach((name, p) -> {
                if (p.frozen() || p.grad() == null) return;
                ParamState state = optimizer.state(name);
                held.add(new Held(name, p, p.value().clone(), state == null ? Map.of() : Map.copyOf(state.buffers())));
            });
        }
    }

    /** After the step: takes it back where {@code skip} (0-dim float32) is not zero. */
    void undoIf(Tensor skip) {
        try (var scope = GradMode.disabled()) {
            for (Held h : held) {
                h.parameter().update(Tensor.where(skip, h.value(), h.parameter().value()));
                ParamState state = optimizer.state(h.name());
                if (state == null) continue;
                for (var e : Map.copyOf(state.buffers()).entrySet()) {
                    Tensor stepped = e.getValue(), before = h.buffers().get(e.getKey());
                    // A parameter's first step creates its buffers: taken back, they are zeros, as before any step.
                    state.setBuffer(e.getKey(), Tensor.where(skip, before == null ? Tensor.zerosLike(stepped) : before, stepped));
                }
            }
        }
    }
}
