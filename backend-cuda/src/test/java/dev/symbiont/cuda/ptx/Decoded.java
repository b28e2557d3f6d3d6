package dev.symbiont.cuda.ptx;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A function decoded once for execution: registers resolved to indices, labels to instruction
 * indices, symbols to offsets in their state space, and each instruction to an {@link Op}. An
 * instruction or modifier the interpreter does not implement fails here, naming it and its line.
 */
final class Decoded {
    /** One executable instruction. The runner has already advanced the frame's pc past it. */
    interface Op {
        void run(Block b, Machine.Thread t, Machine.Frame f);
    }

    /** Where a symbol lives: its state space and byte offset there (global: an absolute address). */
    record Symbol(String space, long offset) {}

    final PtxModule module;
    final PtxFunction function;
    final String name;
    final List<Op> ops = new ArrayList<>();
    /** The ops as an array, for the runner. */
    Op[] code;
    final List<Integer> lines = new ArrayList<>();
    final List<String> texts = new ArrayList<>();
    final Map<String, Integer> registers = new HashMap<>();
    final Map<String, Integer> labels = new HashMap<>();
    final Map<String, Symbol> symbols;
    final Map<String, Symbol> paramSymbols = new HashMap<>();
    int registerCount;
    int paramAreaSize;
    int callAreaSize;
    int localSize;
    /** Static shared bytes a block of this kernel needs: the module's variables, then its own; dynamic shared follows. */
    final int staticShared;
    /** Call-area declarations in scope (a call block redeclares param0, param1, ...). */
    private final Deque<Map<String, Symbol>> callScopes = new ArrayDeque<>();
    private final List<Runnable> fixups = new ArrayList<>();

    /** Decodes the module's other functions on first call. */
    final java.util.function.Function<String, Decoded> library;

    Decoded(PtxModule module, PtxFunction function, Map<String, Symbol> moduleSymbols, int moduleShared,
            List<String> externShared, java.util.function.Function<String, Decoded> library) {
        this.library = library;
        this.module = module;
        this.function = function;
        this.name = function.name();
        this.symbols = new HashMap<>(moduleSymbols);
        this.staticShared = layOutShared(moduleShared, externShared);
        int offset = 0;
        for (PtxFunction.Param p : function.returns()) offset = place(p, offset);
        for (PtxFunction.Param p : function.params()) offset = place(p, offset);
        paramAreaSize = offset;
        callScopes.push(new HashMap<>());
        decodeBody();
        fixups.forEach(Runnable::run);
        code = ops.toArray(new Op[0]);
    }

    private int place(PtxFunction.Param p, int offset) {
        int at = align(offset, p.align());
        paramSymbols.put(p.name(), new Symbol("param", at));
        return at + p.size();
    }

    /**
     * Places this function's own .shared arrays after the module's, and the extern (dynamic) array
     * after both. A device function's own arrays would need the calling kernel's layout: refused.
     */
    private int layOutShared(int offset, List<String> externShared) {
        for (PtxSource.Statement s : function.body()) {
            if (!s.text().startsWith(".shared")) continue;
            if (!function.entry()) {
                throw new PtxException(name + ", line " + s.line() + ": .shared declared inside a device function is not supported");
            }
            PtxModule.Variable v = PtxModule.variable(s.text(), s.line());
            offset = align(offset, v.align());
            symbols.put(v.name(), new Symbol("shared", offset));
            offset += v.size();
        }
        int end = align(offset, 16);
        for (String n : externShared) symbols.put(n, new Symbol("shared", end));
        return end;
    }

    static int align(int offset, int alignment) { return (offset + alignment - 1) / alignment * alignment; }

    private void decodeBody() {
        for (PtxSource.Statement s : function.body()) {
            String t = s.text();
            try {
                if (t.equals("{")) { callScopes.push(new HashMap<>(callScopes.peek())); continue; }
                if (t.equals("}")) { callScopes.pop(); continue; }
                if (t.endsWith(":")) { labels.put(t.substring(0, t.length() - 1), ops.size()); continue; }
                if (t.startsWith(".reg")) { declareRegisters(t, s.line()); continue; }
                if (t.startsWith(".local")) { declareLocal(t, s.line()); continue; }
                if (t.startsWith(".param")) { declareCallParam(t, s.line()); continue; }
                if (t.startsWith(".shared") || t.startsWith(".loc") || t.startsWith(".pragma")) continue; // .shared: laid out above
                Op op = Instructions.decode(this, t, s.line());
                ops.add(op);
                lines.add(s.line());
                texts.add(t.replaceAll("\\s+", " "));
            } catch (PtxException e) {
                throw new PtxException(name + ", line " + s.line() + " (" + t.replaceAll("\\s+", " ") + "): " + e.getMessage());
            } catch (RuntimeException e) {
                throw new PtxException(name + ", line " + s.line() + " (" + t.replaceAll("\\s+", " ") + "): cannot decode: " + e);
            }
        }
        ops.add((b, th, f) -> Control.returnFrom(b, th, f)); // falling off the end returns
        lines.add(function.line());
        texts.add("<end of " + name + ">");
    }

    private void declareRegisters(String t, int line) {
        String[] parts = t.replace(",", " ").strip().split("\\s+");
        int i = 1;
        if (i < parts.length && parts[i].equals(".v2") || i < parts.length && parts[i].equals(".v4")) i++;
        i++; // the type
        for (; i < parts.length; i++) {
            String n = parts[i];
            int lt = n.indexOf('<');
            if (lt >= 0) {
                String base = n.substring(0, lt);
                int count = Integer.parseInt(n.substring(lt + 1, n.indexOf('>')));
                for (int k = 0; k < count; k++) registers.put(base + k, registerCount++);
            } else {
                registers.put(n, registerCount++);
            }
        }
    }

    private void declareLocal(String t, int line) {
        String[] p = t.strip().split("\\s+");
        int align = 1, i = 1;
        if (p[i].equals(".align")) { align = Integer.parseInt(p[i + 1]); i += 2; }
        int elem = PtxTypes.size(p[i++], line);
        String n = p[i];
        int count = 1, b = n.indexOf('[');
        if (b >= 0) { count = Integer.parseInt(n.substring(b + 1, n.indexOf(']'))); n = n.substring(0, b); }
        int at = align(localSize, Math.max(align, 8));
        symbols.put(n, new Symbol("local", at));
        localSize = at + elem * count;
    }

    private void declareCallParam(String t, int line) {
        PtxFunction.Param p = PtxFunction.param(t, line);
        int at = align(callAreaSize, p.align());
        callScopes.peek().put(p.name(), new Symbol("call", at));
        callAreaSize = at + p.size();
    }

    // ---- used by the instruction decoders ---------------------------------------------------------

    /** A register's index; an error naming it when undeclared. */
    int register(String n) {
        Integer i = registers.get(n.strip());
        if (i == null) throw new PtxException("undeclared register " + n);
        return i;
    }

    boolean isRegister(String n) { return registers.containsKey(n.strip()); }

    /** A symbol: this function's parameters, the call area in scope, locals, then module variables. */
    Symbol symbol(String n) {
        n = n.strip();
        Symbol s = callScopes.peek().get(n);
        if (s == null) s = paramSymbols.get(n);
        if (s == null) s = symbols.get(n);
        if (s == null) throw new PtxException("unknown symbol " + n);
        return s;
    }

    boolean isSymbol(String n) {
        n = n.strip();
        return callScopes.peek().containsKey(n) || paramSymbols.containsKey(n) || symbols.containsKey(n);
    }

    /** The instruction index of a label, resolved once the whole body is decoded. */
    void label(String label, java.util.function.IntConsumer target) {
        fixups.add(() -> {
            Integer at = labels.get(label.strip());
            if (at == null) throw new PtxException(name + ": unknown label " + label);
            target.accept(at);
        });
    }

    /** The call-area offsets of a call's argument names as declared in the current scope. */
    Symbol callSymbol(String n) { return symbol(n); }
}
