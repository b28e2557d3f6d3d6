package dev.symbiont.text.hf;

import java.util.List;

/**
 * A {@code pre_tokenizer} of tokenizer.json: splits a piece into the words the model encodes one
 * by one (and may rewrite them, as ByteLevel maps bytes to characters). Empty pieces are dropped.
 */
@FunctionalInterface
interface PreTokenizer {
    PreTokenizer NONE = (piece, out) -> out.add(piece);

    /** Appends the pieces {@code piece} splits into to {@code out}, in order. */
    void split(Piece piece, List<Piece> out);
}
