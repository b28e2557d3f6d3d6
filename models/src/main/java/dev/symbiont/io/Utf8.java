package dev.symbiont.io;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8 checks for JSON files. A JSON parser handed bytes guesses their encoding from
 * the first four (a NUL among them means UTF-16 or UTF-32), so a loader that wants UTF-8 checks
 * the bytes itself: every sequence well formed (no overlong forms, no encoded surrogates) and no
 * NUL byte, which JSON text cannot hold raw and whose absence leaves the parser only UTF-8.
 */
public final class Utf8 {
    private Utf8() {}

    /** The index of the first lone surrogate of {@code text} (a char with no UTF-8 form), or -1 when there is none. */
    public static int firstLoneSurrogate(CharSequence text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /** The offset of the first byte that is not strict UTF-8 or is NUL, or -1 when there is none. */
    public static int firstBadByte(byte[] bytes) {
        int nul = 0;
        while (nul < bytes.length && bytes[nul] != 0) nul++;
        int malformed = firstMalformed(bytes, nul);
        return malformed >= 0 ? malformed : nul < bytes.length ? nul : -1;
    }

    /** The offset of the first malformed sequence in {@code bytes[0, end)}, or -1. */
    private static int firstMalformed(byte[] bytes, int end) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes, 0, end);
        CharBuffer out = CharBuffer.allocate(Math.min(8192, end + 1));
        while (true) {
            CoderResult result = decoder.decode(in, out, true);
            if (result.isError()) return in.position();
            if (result.isUnderflow()) return -1;
            out.clear(); // overflow: only validity matters, so drop the decoded chars
        }
    }
}
