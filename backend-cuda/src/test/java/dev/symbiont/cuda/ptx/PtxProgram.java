package dev.symbiont.cuda.ptx;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A module loaded into the interpreter: parsed once, its .global and .const variables placed in
 * device memory with their initial bytes, its .shared variables laid out for every block (each
 * kernel's own arrays and then the extern dynamic array after them), and functions decoded on first use.
 */
final class PtxProgram {
    final PtxModule module;
    /** Bytes of the module-scope static .shared variables (a kernel's own arrays follow them). */
    final int moduleShared;
    private final List<String> externShared = new ArrayList<>();
    private final Map<String, Decoded.Symbol> symbols = new HashMap<>();
    private final Map<String, Decoded> decoded = new HashMap<>();

    PtxProgram(String ptx, DeviceMemory memory) {
        this.module = PtxModule.parse(ptx);
        int shared = 0;
        for (PtxModule.Variable v : module.variables.values()) {
            if (v.space().equals(".shared") && !v.external()) {
                shared = Decoded.align(shared, v.align());
                symbols.put(v.name(), new Decoded.Symbol("shared", shared));
                shared += v.size();
            }
        }
        moduleShared = shared;
        for (PtxModule.Variable v : module.variables.values()) {
            if (v.space().equals(".shared") && v.external()) externShared.add(v.name());
            if (v.space().equals(".global") || v.space().equals(".const")) {
                long address = memory.allocate(Math.max(v.size(), 1));
                if (address < 0) throw new PtxException("no device memory left for module variable " + v.name());
                memory.slice(address, v.size(), "initialise").copyFrom(MemorySegment.ofArray(v.init()));
                symbols.put(v.name(), new Decoded.Symbol("global", address));
            }
        }
    }

    /** The decoded function {@code name}; an error naming the module's kernels when there is none. */
    synchronized Decoded function(String name) {
        Decoded d = decoded.get(name);
        if (d != null) return d;
        PtxFunction f = module.functions.get(name);
        if (f == null) throw new PtxException("the module has no function " + name + "; it has " + module.functions.keySet());
        d = new Decoded(module, f, symbols, moduleShared, externShared, this::function);
        decoded.put(name, d);
        return d;
    }
}
