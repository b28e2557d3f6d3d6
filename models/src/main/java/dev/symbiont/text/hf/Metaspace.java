package dev.symbiont.text.hf;

import java.util.ArrayList;
import java.util.List;

/**
 * SentencePiece's word boundary marker, as pre-tokenizer and as decoder: spaces become the
 * replacement character ("▁", U+2581), one is put before the text as the prepend scheme says,
 * and with {@code split} each "▁" starts a new word ("▁Hello▁world" → "▁Hello", "▁world").
 * Decoding turns each "▁" back into a space, except in the first token, where the prepended one
 * is dropped (unless the scheme is "never").
 */
final class Metaspace implements PreTokenizer, Decoder {
    /** Where a "▁" is prepended: to every piece, only to the piece that starts the text, or nowhere. */
    enum PrependScheme { ALWAYS, FIRST, NEVER }

    private final char replacement;
    private final PrependScheme prependScheme;
    private final boolean split;

    Metaspace(char replacement, PrependScheme prependScheme, boolean split) {
        this.replacement = replacement;
        this.prependScheme = prependScheme;
        this.split = split;
    }

    @Override
    public void split(Piece piece, List<Piece> out) {
        String text = piece.text().replace(' ', replacement);
        boolean prepend = switch (prependScheme) {
            case ALWAYS -> true;
            case FIRST -> piece.atStart();
            case NEVER -> false;
        };
        if (prepend && !text.isEmpty() && text.charAt(0) != replacement) text = replacement + text;
        Piece replaced = new Piece(text, piece.atStart());
        if (split) SplitBehavior.MERGED_WITH_NEXT.split(replaced, SplitBehavior.segments(replacement, text), out);
        else if (!text.isEmpty()) out.add(replaced);
    }

    @Override
    public List<String> decode(List<String> tokens) {
        List<String> out = new ArrayList<>(tokens.size());
        for (int i = 0; i < tokens.size(); i++) {
            String token = tokens.get(i);
            out.add(i == 0 && prependScheme != PrependScheme.NEVER
                    ? token.replace(String.valueOf(replacement), "")
                    : token.replace(replacement, ' '));
        }
        return out;
    }
}
