package dev.symbiont.text.hf;

/**
 * A {@code normalizer} of tokenizer.json: rewrites a run of text before it is pre-tokenized (and
 * the content of added tokens marked {@code "normalized": true}, so they match the rewritten text).
 */
@FunctionalInterface
interface Normalizer {
    Normalizer IDENTITY = text -> text;

    String normalize(String text);
}
