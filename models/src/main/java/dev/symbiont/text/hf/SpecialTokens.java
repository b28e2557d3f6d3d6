package dev.symbiont.text.hf;

import dev.symbiont.io.Excerpt;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The special tokens of a tokenizer once tokenizer_config.json is applied, as transformers
 * applies it: the tokens it names become added tokens (never split) when tokenizer.json lacks
 * them, and an explicit {@code add_bos_token}/{@code add_eos_token} replaces the post-processor
 * with {@code [bos] $A [eos]} (LlamaTokenizerFast's {@code update_post_processor}).
 *
 * @param added    every added token, tokenizer.json's and the configuration's
 * @param template what {@code encode(text, true)} puts around the text
 * @param eos      the ids generation stops at: the configured eos_token, then generation_config.json's
 */
record SpecialTokens(List<AddedToken> added, Template template, OptionalInt bos, int[] eos, OptionalInt pad,
                     OptionalInt modelMaxLength) {

    /** The resolved tokens; {@code defaults} stands in for unset bos/eos/unk tokens (GPT-2's files). */
    static SpecialTokens resolve(TokenizerConfig config, Path configDir, BpeModel model, List<AddedToken> fromJson,
                                 Template template, String defaults) throws IOException {
        SourceFile source = new SourceFile(configDir == null ? Path.of(TokenizerConfig.FILE) : configDir.resolve(TokenizerConfig.FILE));
        List<AddedToken> added = new ArrayList<>(fromJson);
        Set<String> contents = new LinkedHashSet<>();
        for (AddedToken t : fromJson) contents.add(t.content());
        for (AddedToken t : config.addedTokens()) {
            if (contents.add(t.content())) added.add(checked(source, t, model, added));
        }
        String bos = orDefault(config.bosToken(), defaults), eos = orDefault(config.eosToken(), defaults);
        String unk = orDefault(config.unkToken(), defaults);
        OptionalInt bosId = register(source, "bos_token", bos, model, added, contents);
        OptionalInt eosId = register(source, "eos_token", eos, model, added, contents);
        OptionalInt padId = register(source, "pad_token", config.padToken(), model, added, contents);
        register(source, "unk_token", unk, model, added, contents);
        if (config.addBosToken() != null || config.addEosToken() != null) {
            boolean addBos = Boolean.TRUE.equals(config.addBosToken()), addEos = Boolean.TRUE.equals(config.addEosToken());
            if (addBos && bosId.isEmpty()) throw source.error("add_bos_token", "is true but no bos_token is set");
            if (addEos && eosId.isEmpty()) throw source.error("add_eos_token", "is true but no eos_token is set");
            template = new Template(addBos ? new int[] {bosId.getAsInt()} : new int[0], addEos ? new int[] {eosId.getAsInt()} : new int[0]);
        }
        Set<Integer> eosIds = new LinkedHashSet<>();
        eosId.ifPresent(eosIds::add);
        for (int id : config.generationEosIds()) eosIds.add(id);
        if (padId.isEmpty()) padId = config.generationPadId();
        return new SpecialTokens(List.copyOf(added), template, bosId, eosIds.stream().mapToInt(Integer::intValue).toArray(),
                padId, config.modelMaxLength());
    }

    private static String orDefault(String token, String fallback) {
        return token != null ? token : fallback;
    }

    /** The id of a configured special token, adding it as a special added token when only the vocabulary has it. */
    private static OptionalInt register(SourceFile source, String field, String content, BpeModel model,
                                        List<AddedToken> added, Set<String> contents) throws IOException {
        if (content == null) return OptionalInt.empty();
        for (AddedToken t : added) if (t.content().equals(content)) return OptionalInt.of(t.id());
        int id = model.id(content);
        if (id < 0) {
            throw source.error(field, Excerpt.quote(content) + " is neither an added token nor in the vocabulary");
        }
        if (contents.add(content)) added.add(AddedToken.special(id, content));
        return OptionalInt.of(id);
    }

    /** An added token of the configuration, whose id must not contradict the vocabulary or another added token. */
    private static AddedToken checked(SourceFile source, AddedToken t, BpeModel model, List<AddedToken> added) throws IOException {
        String where = "added_tokens_decoder." + t.id();
        HfJson.checkDense(source, where, t.id(), t.content(), model.idLimit() + added.size() + 1);
        int inVocab = model.id(t.content());
        if (inVocab >= 0 && inVocab != t.id()) {
            throw source.error(where, Excerpt.quote(t.content()) + " has id " + inVocab + " in the vocabulary");
        }
        String holder = model.token(t.id());
        if (holder != null && !holder.equals(t.content())) {
            throw source.error(where, "the id is the vocabulary's " + Excerpt.quote(holder) + ", not " + Excerpt.quote(t.content()));
        }
        for (AddedToken other : added) {
            if (other.id() == t.id()) throw source.error(where, "the id is already the added token " + Excerpt.quote(other.content()));
        }
        return t;
    }
}
