package dev.symbiont.models.hf;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Straightforward forward passes written from transformers' modeling code, in plain loops over
 * double, for one sequence: what a loaded model's logits are compared with. Weights are the
 * checkpoint's ({@link HfCheckpoint#weights}), by Hugging Face key.
 */
final class HfReference {
    private HfReference() {}

    /**
     * The Llama-family sizes ({@code modeling_llama.py}, {@code modeling_mistral.py}, {@code modeling_qwen2.py},
     * {@code modeling_mixtral.py}).
     *
     * @param invFreq RoPE's inverse frequencies, (headDim / 2)
     * @param topK    Mixtral's num_experts_per_tok; 0 for a dense MLP
     */
    record Llama(int hidden, int heads, int kvHeads, int headDim, int ff, int layers, int vocab, double eps, double[] invFreq,
                 boolean tied, int topK) {}

    /** HF's {@code inv_freq = 1 / base^(arange(0, dim, 2) / dim)}. */
    static double[] invFreq(int dim, double base) {
        double[] f = new double[dim / 2];
        for (int j = 0; j < f.length; j++) f[j] = 1 / Math.pow(base, 2.0 * j / dim);
        return f;
    }

    /** {@code _compute_llama3_parameters}: torch.where over the wavelengths, written as transformers writes it. */
    static double[] llama3(double[] invFreq, double factor, double low, double high, int original) {
        double lowWavelen = original / low, highWavelen = original / high;
        double[] out = new double[invFreq.length];
        for (int j = 0; j < out.length; j++) {
            double wavelen = 2 * Math.PI / invFreq[j];
            double llama = wavelen > lowWavelen ? invFreq[j] / factor : invFreq[j];
            double smooth = (original / wavelen - low) / (high - low);
            double smoothed = (1 - smooth) * llama / factor + smooth * llama;
            boolean medium = !(wavelen < highWavelen) && !(wavelen > lowWavelen);
            out[j] = medium ? smoothed : llama;
        }
        return out;
    }

    /** Logits (seq, vocab) of LlamaForCausalLM: embed, L × (x + attn(rms(x)), x + mlp(rms(x))), rms, lm_head. */
    static double[][] llama(Map<String, float[]> w, Llama s, long[] ids) { return llama(w, s, ids, new ArrayList<>()); }

    /**
     * As {@link #llama(Map, Llama, long[])}, adding each Mixtral layer's router logits (seq, E) to {@code routerLogits}, in
     * layer order (what {@code output_router_logits} returns).
     */
    static double[][] llama(Map<String, float[]> w, Llama s, long[] ids, List<double[][]> routerLogits) {
        int t = ids.length, qWidth = s.heads * s.headDim, kvWidth = s.kvHeads * s.headDim;
        double[][] x = new double[t][];
        for (int i = 0; i < t; i++) x[i] = row(w.get("model.embed_tokens.weight"), (int) ids[i], s.hidden);
        for (int l = 0; l < s.layers; l++) {
            String p = "model.layers." + l + ".";
            double[][] q = new double[t][], k = new double[t][], v = new double[t][], router = new double[t][];
            for (int i = 0; i < t; i++) {
                double[] h = rmsNorm(x[i], w.get(p + "input_layernorm.weight"), s.eps);
                q[i] = rope(linear(w, p + "self_attn.q_proj", h, qWidth), s.headDim, s.invFreq, i);
                k[i] = rope(linear(w, p + "self_attn.k_proj", h, kvWidth), s.headDim, s.invFreq, i);
                v[i] = linear(w, p + "self_attn.v_proj", h, kvWidth);
            }
            double[][] heads = causalAttention(q, k, v, s.heads, s.kvHeads, s.headDim);
            for (int i = 0; i < t; i++) {
                add(x[i], linear(w, p + "self_attn.o_proj", heads[i], s.hidden));
                double[] h = rmsNorm(x[i], w.get(p + "post_attention_layernorm.weight"), s.eps);
                if (s.topK > 0) {
                    float[] gate = w.get(p + "block_sparse_moe.gate.weight");
                    router[i] = matVec(gate, h, gate.length / s.hidden);
                    add(x[i], sparseMoe(w, p + "block_sparse_moe.", h, router[i], s));
                    continue;
                }
                double[] gate = linear(w, p + "mlp.gate_proj", h, s.ff), up = linear(w, p + "mlp.up_proj", h, s.ff);
                for (int j = 0; j < s.ff; j++) gate[j] = gate[j] / (1 + Math.exp(-gate[j])) * up[j];     // silu(gate) * up
                add(x[i], linear(w, p + "mlp.down_proj", gate, s.hidden));
            }
            if (s.topK > 0) routerLogits.add(router);
        }
        double[][] logits = new double[t][];
        float[] head = w.get(s.tied ? "model.embed_tokens.weight" : "lm_head.weight");
        for (int i = 0; i < t; i++) logits[i] = matVec(head, rmsNorm(x[i], w.get("model.norm.weight"), s.eps), s.vocab);
        return logits;
    }

    /**
     * MixtralSparseMoeBlock for one token h with router logits = gate · h: softmax over the E experts, the k largest (ties to
     * the lower index), their weights divided by their sum, Σ weight · w2(silu(w1 h) ⊙ w3 h) over the chosen experts.
     */
    private static double[] sparseMoe(Map<String, float[]> w, String p, double[] h, double[] logits, Llama s) {
        double[] probs = softmax(logits);
        int[] chosen = topK(probs, s.topK);
        double chosenMass = 0;
        for (int e : chosen) chosenMass += probs[e];
        double[] out = new double[s.hidden];
        for (int e : chosen) {
            String x = p + "experts." + e + ".";
            double[] a = matVec(w.get(x + "w1.weight"), h, s.ff), b = matVec(w.get(x + "w3.weight"), h, s.ff);
            for (int j = 0; j < s.ff; j++) a[j] = a[j] / (1 + Math.exp(-a[j])) * b[j];
            double[] y = matVec(w.get(x + "w2.weight"), a, s.hidden);
            for (int j = 0; j < s.hidden; j++) out[j] += probs[e] / chosenMass * y[j];
        }
        return out;
    }

    /** softmax over one row. */
    static double[] softmax(double[] logits) {
        double[] p = new double[logits.length];
        double max = Double.NEGATIVE_INFINITY, sum = 0;
        for (double l : logits) max = Math.max(max, l);
        for (int e = 0; e < p.length; e++) sum += p[e] = Math.exp(logits[e] - max);
        for (int e = 0; e < p.length; e++) p[e] /= sum;
        return p;
    }

    /** The indices of the k largest values, largest first, ties to the lower index. */
    static int[] topK(double[] v, int k) {
        int[] chosen = new int[k];
        boolean[] taken = new boolean[v.length];
        for (int i = 0; i < k; i++) {
            int best = -1;
            for (int e = 0; e < v.length; e++) if (!taken[e] && (best < 0 || v[e] > v[best])) best = e;
            taken[best] = true;
            chosen[i] = best;
        }
        return chosen;
    }

    /** GPT-2's sizes ({@code modeling_gpt2.py}); {@code prefix} is "transformer." or "". */
    record Gpt2(int width, int heads, int layers, int vocab, double eps, String prefix) {}

    /** Logits (seq, vocab) of GPT2LMHeadModel: wte + wpe, L × (x + attn(ln_1 x), x + mlp(ln_2 x)), ln_f, wteᵀ. */
    static double[][] gpt2(Map<String, float[]> w, Gpt2 s, long[] ids) {
        int t = ids.length, d = s.width;
        String pre = s.prefix;
        double[][] x = new double[t][];
        for (int i = 0; i < t; i++) {
            x[i] = row(w.get(pre + "wte.weight"), (int) ids[i], d);
            add(x[i], row(w.get(pre + "wpe.weight"), i, d));
        }
        for (int l = 0; l < s.layers; l++) {
            String p = pre + "h." + l + ".";
            double[][] q = new double[t][d], k = new double[t][d], v = new double[t][d];
            for (int i = 0; i < t; i++) {
                double[] qkv = conv1d(w, p + "attn.c_attn", layerNorm(x[i], w, p + "ln_1", s.eps), 3 * d);
                System.arraycopy(qkv, 0, q[i], 0, d);
                System.arraycopy(qkv, d, k[i], 0, d);
                System.arraycopy(qkv, 2 * d, v[i], 0, d);
            }
            double[][] heads = causalAttention(q, k, v, s.heads, s.heads, d / s.heads);
            for (int i = 0; i < t; i++) {
                add(x[i], conv1d(w, p + "attn.c_proj", heads[i], d));
                double[] h = conv1d(w, p + "mlp.c_fc", layerNorm(x[i], w, p + "ln_2", s.eps), 4 * d);
                for (int j = 0; j < h.length; j++) {
                    double u = h[j];
                    h[j] = 0.5 * u * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (u + 0.044715 * u * u * u)));     // gelu_new
                }
                add(x[i], conv1d(w, p + "mlp.c_proj", h, d));
            }
        }
        double[][] logits = new double[t][];
        for (int i = 0; i < t; i++) logits[i] = matVec(w.get(pre + "wte.weight"), layerNorm(x[i], w, pre + "ln_f", s.eps), s.vocab);
        return logits;
    }

    /** softmax(q_h·k_{h/g}ᵀ / √d) v_{h/g} over positions ≤ each query's (repeat_kv: head h reads kv head h / (heads / kvHeads)). */
    private static double[][] causalAttention(double[][] q, double[][] k, double[][] v, int heads, int kvHeads, int dim) {
        int t = q.length, group = heads / kvHeads;
        double[][] out = new double[t][heads * dim];
        for (int h = 0; h < heads; h++) {
            int kh = h / group;
            for (int i = 0; i < t; i++) {
                double[] p = new double[i + 1];
                double max = Double.NEGATIVE_INFINITY, sum = 0;
                for (int j = 0; j <= i; j++) {
                    double dot = 0;
                    for (int c = 0; c < dim; c++) dot += q[i][h * dim + c] * k[j][kh * dim + c];
                    p[j] = dot / Math.sqrt(dim);
                    max = Math.max(max, p[j]);
                }
                for (int j = 0; j <= i; j++) sum += p[j] = Math.exp(p[j] - max);
                for (int j = 0; j <= i; j++) for (int c = 0; c < dim; c++) out[i][h * dim + c] += p[j] / sum * v[j][kh * dim + c];
            }
        }
        return out;
    }

    /** rotate_half RoPE of every head of x at position m: x·cos + rotate_half(x)·sin, θ repeated over both halves. */
    private static double[] rope(double[] x, int dim, double[] invFreq, int m) {
        double[] out = new double[x.length];
        int half = dim / 2;
        for (int h = 0; h < x.length / dim; h++) {
            for (int j = 0; j < half; j++) {
                double c = Math.cos(m * invFreq[j]), sn = Math.sin(m * invFreq[j]);
                double a = x[h * dim + j], b = x[h * dim + j + half];
                out[h * dim + j] = a * c - b * sn;
                out[h * dim + j + half] = b * c + a * sn;
            }
        }
        return out;
    }

    /** x · rsqrt(mean(x²) + eps) · w. */
    static double[] rmsNorm(double[] x, float[] weight, double eps) {
        double ms = 0;
        for (double v : x) ms += v * v;
        double r = 1 / Math.sqrt(ms / x.length + eps);
        double[] out = new double[x.length];
        for (int i = 0; i < x.length; i++) out[i] = x[i] * r * weight[i];
        return out;
    }

    /** (x − mean) / √(var + eps) · w + b. */
    private static double[] layerNorm(double[] x, Map<String, float[]> w, String prefix, double eps) {
        double mean = 0, var = 0;
        for (double v : x) mean += v / x.length;
        for (double v : x) var += (v - mean) * (v - mean) / x.length;
        float[] g = w.get(prefix + ".weight"), b = w.get(prefix + ".bias");
        double[] out = new double[x.length];
        for (int i = 0; i < x.length; i++) out[i] = (x[i] - mean) / Math.sqrt(var + eps) * g[i] + b[i];
        return out;
    }

    /** nn.Linear: W (out, in) · x + b, the bias when the checkpoint has one. */
    private static double[] linear(Map<String, float[]> w, String prefix, double[] x, int out) {
        double[] y = matVec(w.get(prefix + ".weight"), x, out);
        float[] b = w.get(prefix + ".bias");
        if (b != null) for (int i = 0; i < out; i++) y[i] += b[i];
        return y;
    }

    /** GPT-2's Conv1D: x · W (in, out) + b. */
    private static double[] conv1d(Map<String, float[]> w, String prefix, double[] x, int out) {
        float[] weight = w.get(prefix + ".weight"), b = w.get(prefix + ".bias");
        double[] y = new double[out];
        for (int o = 0; o < out; o++) {
            double s = b[o];
            for (int i = 0; i < x.length; i++) s += x[i] * weight[i * out + o];
            y[o] = s;
        }
        return y;
    }

    static double[] matVec(float[] m, double[] x, int rows) {
        double[] y = new double[rows];
        for (int r = 0; r < rows; r++) {
            double s = 0;
            for (int c = 0; c < x.length; c++) s += m[r * x.length + c] * x[c];
            y[r] = s;
        }
        return y;
    }

    static double[] row(float[] table, int index, int width) {
        double[] out = new double[width];
        for (int i = 0; i < width; i++) out[i] = table[index * width + i];
        return out;
    }

    static void add(double[] x, double[] y) {
        for (int i = 0; i < x.length; i++) x[i] += y[i];
    }
}
