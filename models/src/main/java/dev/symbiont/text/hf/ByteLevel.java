package dev.symbiont.text.hf;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

/**
 * GPT-2's byte-level step, as pre-tokenizer and as decoder. Text becomes UTF-8 bytes and each
 * byte a printable character (GPT-2's {@code bytes_to_unicode}: the 188 printable Latin-1 bytes
 * stand for themselves, the other 68 for U+0100 onwards), so a vocabulary of strings covers every
 * byte and any text encodes; decoding maps the characters back to bytes.
 */
final class ByteLevel implements PreTokenizer, Decoder {
    /**
     * GPT-2's split: contractions, letters, numbers and other symbols each form runs, a single
     * leading space stays with the run after it; whitespace before a word leaves its last space
     * to that word.
     */
    static final Pattern GPT2_SPLIT = Pattern.compile(
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+", OnigurumaPatterns.FLAGS);
    private static final char[] BYTE_CHAR = new char[256];
    private static final int[] CHAR_BYTE = new int[512]; // every mapped char is below U+0144; -1 where none

    static {
        java.util.Arrays.fill(CHAR_BYTE, -1);
        int n = 0;
        for (int b = 0; b < 256; b++) {
            boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            BYTE_CHAR[b] = (char) (printable ? b : 256 + n++);
            CHAR_BYTE[BYTE_CHAR[b]] = b;
        }
    }

    private final boolean addPrefixSpace;
    private final boolean useRegex;

    ByteLevel(boolean addPrefixSpace, boolean useRegex) {
        this.addPrefixSpace = addPrefixSpace;
        this.useRegex = useRegex;
    }

    /** The character byte {@code b} (0..255) is written as. */
    static char charOf(int b) { return BYTE_CHAR[b]; }

    /** The byte character {@code c} stands for, or -1 when it is not one of the 256. */
    static int byteOf(char c) { return c < CHAR_BYTE.length ? CHAR_BYTE[c] : -1; }

    /** The UTF-8 bytes of {@code text}, one character each. */
    static String toByteChars(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        char[] chars = new char[bytes.length];
        for (int i = 0; i < bytes.length; i++) chars[i] = BYTE_CHAR[bytes[i] & 0xFF];
        return new String(chars);
    }

    @Override
    public void split(Piece piece, List<Piece> out) {
        String text = piece.text();
        if (addPrefixSpace && !text.startsWith(" ")) text = " " + text;
        if (!useRegex) {
            out.add(new Piece(toByteChars(text), piece.atStart()));
            return;
        }
        int first = out.size();
        SplitBehavior.ISOLATED.split(new Piece(text, piece.atStart()), SplitBehavior.segments(GPT2_SPLIT, text), out);
        for (int i = first; i < out.size(); i++) out.set(i, new Piece(toByteChars(out.get(i).text()), out.get(i).atStart()));
    }

    /** All tokens as one text: byte characters become their bytes, a token with any other character its own UTF-8. */
    @Override
    public List<String> decode(List<String> tokens) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (String token : tokens) {
            byte[] mapped = new byte[token.length()];
            boolean allBytes = true;
            for (int i = 0; i < token.length() && allBytes; i++) {
                int b = byteOf(token.charAt(i));
                allBytes = b >= 0;
                if (allBytes) mapped[i] = (byte) b;
            }
            bytes.writeBytes(allBytes ? mapped : token.getBytes(StandardCharsets.UTF_8));
        }
        return List.of(bytes.toString(StandardCharsets.UTF_8));
    }
}
