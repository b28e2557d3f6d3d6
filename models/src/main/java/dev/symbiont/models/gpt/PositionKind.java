package dev.symbiont.models.gpt;

/** How a {@link Gpt} sees positions: a learned table added to the token embeddings (GPT-2, key {@code pos_emb}) or RoPE inside attention (Llama). */
public enum PositionKind { LEARNED, ROPE }
