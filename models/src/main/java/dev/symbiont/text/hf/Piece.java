package dev.symbiont.text.hf;

/**
 * A run of text on its way to the model. {@code atStart} is true when the piece begins where the
 * input text begins (Hugging Face's "original offset 0"), which Metaspace's {@code "first"}
 * prepend scheme asks about.
 */
record Piece(String text, boolean atStart) {}
