package dev.symbiont.cuda.ptx;

import java.util.List;

/**
 * A kernel ({@code .entry}) or device function ({@code .func}) as parsed: its parameters in
 * order, its return parameters, and the statements of its body.
 */
record PtxFunction(String name, boolean entry, List<Param> params, List<Param> returns, List<PtxSource.Statement> body, int line) {

    /** A parameter: name, size in bytes and alignment ({@code .param .align 8 .b8 p[144]} is 144 bytes, 8-aligned). */
    record Param(String name, int size, int align) {}

    /** Parses {@code .param .u64 name} or {@code .param .align 8 .b8 name[144]}. */
    static Param param(String text, int line) {
        String[] t = text.strip().split("\\s+");
        if (t.length < 3 || !t[0].equals(".param")) throw new PtxException("line " + line + ": cannot read parameter '" + text + "'");
        int align = 0, i = 1;
        if (t[1].equals(".align")) {
            align = Integer.parseInt(t[2]);
            i = 3;
        }
        int elem = PtxTypes.size(t[i], line);
        String name = t[i + 1];
        int count = 1;
        int bracket = name.indexOf('[');
        if (bracket >= 0) {
            count = Integer.parseInt(name.substring(bracket + 1, name.indexOf(']')));
            name = name.substring(0, bracket);
        }
        return new Param(name, elem * count, align == 0 ? elem : align);
    }
}
