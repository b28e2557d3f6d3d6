package dev.symbiont.cuda.ptx;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One instruction's text taken apart: its guard predicate, the opcode's base and modifiers
 * ({@code ld.global.nc.u32} → ld, [global, nc, u32]), and its operands split at top-level commas.
 */
record Insn(String guard, boolean negated, String base, List<String> mods, List<String> operands, String text) {

    static Insn parse(String text) {
        String s = text.strip();
        String guard = null;
        boolean negated = false;
        if (s.startsWith("@")) {
            int sp = s.indexOf(' ');
            String g = s.substring(1, sp);
            negated = g.startsWith("!");
            guard = negated ? g.substring(1) : g;
            s = s.substring(sp + 1).strip();
        }
        int sp = indexOfSpace(s);
        String opcode = sp < 0 ? s : s.substring(0, sp);
        String rest = sp < 0 ? "" : s.substring(sp + 1).strip();
        String[] parts = opcode.split("\\.");
        List<String> mods = new ArrayList<>(Arrays.asList(parts).subList(1, parts.length));
        return new Insn(guard, negated, parts[0], mods, split(rest), text);
    }

    private static int indexOfSpace(String s) {
        for (int i = 0; i < s.length(); i++) if (Character.isWhitespace(s.charAt(i))) return i;
        return -1;
    }

    /** Operands split at commas outside braces, brackets and parentheses. */
    static List<String> split(String rest) {
        List<String> out = new ArrayList<>();
        int depth = 0, start = 0;
        for (int i = 0; i < rest.length(); i++) {
            char c = rest.charAt(i);
            if (c == '{' || c == '[' || c == '(') depth++;
            else if (c == '}' || c == ']' || c == ')') depth--;
            else if (c == ',' && depth == 0) {
                out.add(rest.substring(start, i).strip());
                start = i + 1;
            }
        }
        String last = rest.substring(start).strip();
        if (!last.isEmpty()) out.add(last);
        return out;
    }

    boolean has(String mod) { return mods.contains(mod); }

    /** The last modifier that is a type ({@code .u32}, {@code .f64}, ...), with its dot. */
    String type() {
        for (int i = mods.size() - 1; i >= 0; i--) {
            String m = "." + mods.get(i);
            if (PtxTypes.isType(m)) return m;
        }
        throw new PtxException("no type on " + base);
    }

    /** The types in order (cvt has destination then source). */
    List<String> types() {
        List<String> out = new ArrayList<>();
        for (String m : mods) if (PtxTypes.isType("." + m)) out.add("." + m);
        return out;
    }

    String operand(int i) {
        if (i >= operands.size()) throw new PtxException(base + " needs operand " + (i + 1));
        return operands.get(i);
    }

    /** Fails on any modifier not in {@code allowed} (types always allowed). */
    void only(String... allowed) {
        List<String> ok = Arrays.asList(allowed);
        for (String m : mods) {
            if (!PtxTypes.isType("." + m) && !ok.contains(m)) {
                throw new PtxException("the interpreter does not implement modifier ." + m + " of " + base);
            }
        }
    }
}
