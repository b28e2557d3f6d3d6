package dev.symbiont.text;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits text into the chunks BPE works within, with GPT-2's rule: English contractions,
 * letters, digits and other symbols each form runs, and a single leading space stays with the
 * run that follows it (" world"), so merges learn word-initial forms and never cross words.
 * The chunks concatenate back to the text exactly.
 */
final class Pretokenizer {
    // GPT-2's pattern; UNICODE_CHARACTER_CLASS makes \s match all Unicode spaces, like Python's re.
    private static final Pattern GPT2 = Pattern.compile(
            "'(?:[sdmt]|ll|ve|re)| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
            Pattern.UNICODE_CHARACTER_CLASS);

    private Pretokenizer() {}

    static List<String> split(String text) {
        List<String> chunks = new ArrayList<>();
        Matcher m = GPT2.matcher(text);
        int end = 0;
        while (m.find()) {
            // The alternatives cover every character; keep any gap anyway so no text is ever lost.
            if (m.start() > end) chunks.add(text.substring(end, m.start()));
            chunks.add(m.group());
            end = m.end();
        }
        if (end < text.length()) chunks.add(text.substring(end));
        return chunks;
    }
}
