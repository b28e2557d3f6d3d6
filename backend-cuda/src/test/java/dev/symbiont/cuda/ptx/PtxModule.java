package dev.symbiont.cuda.ptx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parsed PTX module: its functions and its module-level variables ({@code .global} and
 * {@code .const} with their initial bytes, {@code .shared} arrays every block gets a copy of,
 * and the {@code .extern .shared} array that dynamic shared memory starts at).
 */
final class PtxModule {
    /** A module-level variable: its space, size, alignment and initial bytes (zeros when none). */
    record Variable(String name, String space, int size, int align, byte[] init, boolean external) {}

    final String version;
    final Map<String, PtxFunction> functions = new LinkedHashMap<>();
    final Map<String, Variable> variables = new LinkedHashMap<>();

    private PtxModule(String version) { this.version = version; }

    static PtxModule parse(String text) {
        List<PtxSource.Statement> st = PtxSource.statements(text);
        String version = "?";
        List<Object[]> pending = new ArrayList<>();
        PtxModule module = null;
        for (int i = 0; i < st.size(); i++) {
            PtxSource.Statement s = st.get(i);
            String t = s.text();
            if (t.startsWith(".version")) { version = t.substring(8).strip(); continue; }
            if (module == null) module = new PtxModule(version);
            if (t.startsWith(".target") || t.startsWith(".address_size")) continue;
            if (t.contains(".entry ") || t.startsWith(".func") || t.contains(" .func")) {
                boolean entry = t.contains(".entry ");
                int j = i + 1;
                while (j < st.size() && isPerformanceDirective(st.get(j).text())) j++;
                if (j >= st.size() || !st.get(j).text().equals("{")) continue; // a declaration; the definition follows later
                int depth = 0, end = j;
                for (; end < st.size(); end++) {
                    String b = st.get(end).text();
                    if (b.equals("{")) depth++;
                    else if (b.equals("}") && --depth == 0) break;
                }
                module.addFunction(t, entry, st.subList(j + 1, end), s.line());
                i = end;
                continue;
            }
            if (t.startsWith(".global") || t.startsWith(".const") || t.startsWith(".shared") || t.startsWith(".extern")
                    || t.startsWith(".visible .global") || t.startsWith(".visible .const")) {
                module.addVariable(t, s.line());
                continue;
            }
            throw new PtxException("line " + s.line() + ": unexpected module-level statement '" + t + "'");
        }
        if (module == null) throw new PtxException("empty PTX module");
        return module;
    }

    private static boolean isPerformanceDirective(String t) {
        return t.startsWith(".maxntid") || t.startsWith(".reqntid") || t.startsWith(".minnctapersm") || t.startsWith(".maxnreg")
                || t.startsWith(".noreturn") || t.startsWith(".pragma");
    }

    private void addFunction(String header, boolean entry, List<PtxSource.Statement> body, int line) {
        String h = header.replaceAll("\\s+", " ");
        List<PtxFunction.Param> returns = new ArrayList<>();
        int nameStart;
        int funcAt = h.indexOf(entry ? ".entry " : ".func");
        String rest = h.substring(funcAt + (entry ? 7 : 5)).strip();
        if (rest.startsWith("(")) {
            int close = rest.indexOf(')');
            for (String p : rest.substring(1, close).split(",")) if (!p.isBlank()) returns.add(PtxFunction.param(p, line));
            rest = rest.substring(close + 1).strip();
        }
        nameStart = 0;
        int open = rest.indexOf('(');
        String name = (open < 0 ? rest : rest.substring(nameStart, open)).strip();
        List<PtxFunction.Param> params = new ArrayList<>();
        if (open >= 0) {
            String inside = rest.substring(open + 1, rest.lastIndexOf(')'));
            for (String p : inside.split(",")) if (!p.isBlank()) params.add(PtxFunction.param(p, line));
        }
        functions.put(name, new PtxFunction(name, entry, params, returns, List.copyOf(body), line));
    }

    private void addVariable(String text, int line) {
        Variable v = variable(text, line);
        variables.put(v.name(), v);
    }

    /** One variable declaration (module scope, or a kernel's own {@code .shared} array). */
    static Variable variable(String text, int line) {
        String decl = text, init = null;
        int eq = text.indexOf('=');
        if (eq >= 0) {
            decl = text.substring(0, eq).strip();
            init = text.substring(eq + 1).strip();
        }
        String[] t = decl.replace(".visible ", "").strip().split("\\s+");
        boolean external = t[0].equals(".extern");
        int i = external ? 1 : 0;
        String space = t[i++];
        int align = 0;
        if (t[i].equals(".align")) {
            align = Integer.parseInt(t[i + 1]);
            i += 2;
        }
        int elem = PtxTypes.size(t[i++], line);
        String name = t[i];
        int count = 1;
        int b = name.indexOf('[');
        if (b >= 0) {
            String n = name.substring(b + 1, name.indexOf(']'));
            count = n.isEmpty() ? 0 : Integer.parseInt(n);
            name = name.substring(0, b);
        }
        int size = elem * count;
        byte[] bytes = new byte[size];
        if (init != null) {
            String[] values = init.replace("{", "").replace("}", "").split(",");
            for (int k = 0; k < values.length && k < count; k++) {
                long v = Operands.parseInteger(values[k].strip(), line);
                for (int byteIndex = 0; byteIndex < elem; byteIndex++) bytes[k * elem + byteIndex] = (byte) (v >>> (8 * byteIndex));
            }
        }
        return new Variable(name, space, size, align == 0 ? elem : align, bytes, external);
    }
}
