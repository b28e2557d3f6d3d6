package dev.symbiont.cuda.ptx;

import java.util.ArrayList;
import java.util.List;

/**
 * PTX text as a list of statements: comments removed, split at ';', '{', '}' and labels, each
 * with the line it starts on. A statement may span lines (nvcc writes a call over several).
 */
final class PtxSource {
    /** One statement: its text without the ';', or "{" / "}" / "label:". */
    record Statement(String text, int line) {}

    private PtxSource() {}

    static List<Statement> statements(String ptx) {
        List<Statement> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int line = 1, start = 1;
        int depthInit = 0; // braces of an initialiser or a vector operand belong to the statement
        for (int i = 0; i < ptx.length(); i++) {
            char c = ptx.charAt(i);
            if (c == '/' && i + 1 < ptx.length() && ptx.charAt(i + 1) == '/') {
                while (i < ptx.length() && ptx.charAt(i) != '\n') i++;
                i--;
                continue;
            }
            if (c == '/' && i + 1 < ptx.length() && ptx.charAt(i + 1) == '*') {
                int end = ptx.indexOf("*/", i + 2);
                for (int j = i; j < end; j++) if (ptx.charAt(j) == '\n') line++;
                i = end + 1;
                continue;
            }
            String sofar = current.toString().strip();
            if (c == '\n') {
                line++;
                if (sofar.startsWith(".version") || sofar.startsWith(".target") || sofar.startsWith(".address_size")) {
                    out.add(new Statement(sofar, start));   // these directives end at the line's end, without ';'
                    current.setLength(0);
                    continue;
                }
            }
            if (sofar.isEmpty()) start = line;
            boolean header = sofar.startsWith(".");  // a directive (an entry header) opens a scope; an instruction never starts with "."
            if (c == '{' && (sofar.endsWith("=") || depthInit > 0 || !sofar.isEmpty() && !header)) {
                depthInit++;                      // an initialiser or a vector operand: part of the statement
                current.append(c);
                continue;
            }
            if (c == '}' && depthInit > 0) { depthInit--; current.append(c); continue; }
            if (c == '{' || c == '}') {
                if (!sofar.isEmpty()) {           // an entry header "... )" before its body
                    out.add(new Statement(sofar, start));
                    current.setLength(0);
                }
                out.add(new Statement(String.valueOf(c), line));
                continue;
            }
            if (c == ';') {
                if (!sofar.isEmpty()) out.add(new Statement(sofar, start));
                current.setLength(0);
                continue;
            }
            if (c == ':' && isLabel(sofar)) {
                out.add(new Statement(sofar + ":", start));
                current.setLength(0);
                continue;
            }
            current.append(c);
        }
        String rest = current.toString().strip();
        if (!rest.isEmpty()) out.add(new Statement(rest, start));
        return out;
    }

    private static boolean isLabel(String text) {
        if (text.isEmpty()) return false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '.')) return false;
        }
        return !text.startsWith(".");
    }
}
