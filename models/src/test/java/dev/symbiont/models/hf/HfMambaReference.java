package dev.symbiont.models.hf;

import java.util.Map;

import static dev.symbiont.models.hf.HfReference.add;
import static dev.symbiont.models.hf.HfReference.matVec;
import static dev.symbiont.models.hf.HfReference.rmsNorm;
import static dev.symbiont.models.hf.HfReference.row;

/**
 * Mamba's and Mamba-2's forward passes written from transformers' {@code modeling_mamba.py}
 * ({@code MambaMixer.slow_forward}) and {@code modeling_mamba2.py} ({@code Mamba2Mixer.torch_forward}), in plain loops
 * over double for one sequence: the selective scan as the recurrence one position at a time, Mamba-2's SSD as the same
 * recurrence with one scalar A per head (what its chunked form computes).
 */
final class HfMambaReference {
    private HfMambaReference() {}

    /** MambaConfig's sizes: d_inner, N, dt_rank, d_conv. */
    record Mamba(int hidden, int inner, int state, int rank, int kernel, int layers, int vocab, double eps, boolean tied) {}

    /** Mamba2Config's sizes: heads · headDim = d_inner, N, n_groups, d_conv. */
    record Mamba2(int hidden, int heads, int headDim, int state, int groups, int kernel, int layers, int vocab, double eps, boolean tied) {
        int inner() { return heads * headDim; }

        int convDim() { return inner() + 2 * groups * state; }
    }

    /** Logits (seq, vocab) of MambaForCausalLM: embeddings, L × (x + mixer(rms(x))), norm_f, head. */
    static double[][] mamba(Map<String, float[]> w, Mamba s, long[] ids) {
        int t = ids.length, di = s.inner, n = s.state;
        double[][] x = embed(w, ids, s.hidden);
        for (int l = 0; l < s.layers; l++) {
            String p = "backbone.layers." + l + ".";
            double[][] xs = new double[t][di], z = new double[t][di];
            for (int i = 0; i < t; i++) {
                double[] proj = matVec(w.get(p + "mixer.in_proj.weight"), rmsNorm(x[i], w.get(p + "norm.weight"), s.eps), 2 * di);
                System.arraycopy(proj, 0, xs[i], 0, di);                         // hidden_states, gate = chunk(2)
                System.arraycopy(proj, di, z[i], 0, di);
            }
            double[][] xc = siluConv(w, p + "mixer.conv1d.", xs, s.kernel);
            float[] aLog = w.get(p + "mixer.A_log"), d = w.get(p + "mixer.D"), dtBias = w.get(p + "mixer.dt_proj.bias");
            double[][] h = new double[di][n];
            for (int i = 0; i < t; i++) {
                double[] ssm = matVec(w.get(p + "mixer.x_proj.weight"), xc[i], s.rank + 2 * n);   // time_step, B, C
                double[] dtIn = java.util.Arrays.copyOfRange(ssm, 0, s.rank);
                double[] dt = matVec(w.get(p + "mixer.dt_proj.weight"), dtIn, di);
                double[] y = new double[di];
                for (int c = 0; c < di; c++) {
                    double delta = softplus(dt[c] + dtBias[c]);
                    for (int k = 0; k < n; k++) {
                        double a = -Math.exp(aLog[c * n + k]);
                        h[c][k] = Math.exp(a * delta) * h[c][k] + delta * ssm[s.rank + k] * xc[i][c];   // discrete_A·h + deltaB_u
                        y[c] += h[c][k] * ssm[s.rank + n + k];                                        // ssm_state @ C
                    }
                    y[c] = (y[c] + xc[i][c] * d[c]) * silu(z[i][c]);
                }
                add(x[i], matVec(w.get(p + "mixer.out_proj.weight"), y, s.hidden));
            }
        }
        return head(w, x, s.vocab, s.eps, s.tied);
    }

    /** Logits (seq, vocab) of Mamba2ForCausalLM: as {@link #mamba}, with Mamba-2's mixer and its gated RMSNorm. */
    static double[][] mamba2(Map<String, float[]> w, Mamba2 s, long[] ids) {
        int t = ids.length, di = s.inner(), n = s.state, heads = s.heads, hd = s.headDim, gn = s.groups * n;
        double[][] x = embed(w, ids, s.hidden);
        for (int l = 0; l < s.layers; l++) {
            String p = "backbone.layers." + l + ".";
            double[][] z = new double[t][di], xbc = new double[t][s.convDim()], dtIn = new double[t][heads];
            for (int i = 0; i < t; i++) {
                double[] proj = matVec(w.get(p + "mixer.in_proj.weight"), rmsNorm(x[i], w.get(p + "norm.weight"), s.eps), di + s.convDim() + heads);
                System.arraycopy(proj, 0, z[i], 0, di);                          // gate, hidden_states_B_C, dt
                System.arraycopy(proj, di, xbc[i], 0, s.convDim());
                System.arraycopy(proj, di + s.convDim(), dtIn[i], 0, heads);
            }
            double[][] conv = siluConv(w, p + "mixer.conv1d.", xbc, s.kernel);
            float[] aLog = w.get(p + "mixer.A_log"), d = w.get(p + "mixer.D"), dtBias = w.get(p + "mixer.dt_bias");
            double[][][] h = new double[heads][hd][n];
            for (int i = 0; i < t; i++) {
                double[] y = new double[di];
                for (int hh = 0; hh < heads; hh++) {
                    int g = hh / (heads / s.groups);                             // B and C repeat_interleave over heads
                    double delta = softplus(dtIn[i][hh] + dtBias[hh]), a = -Math.exp(aLog[hh]);
                    for (int q = 0; q < hd; q++) {
                        double xv = conv[i][hh * hd + q], out = 0;
                        for (int k = 0; k < n; k++) {
                            h[hh][q][k] = Math.exp(delta * a) * h[hh][q][k] + delta * conv[i][di + g * n + k] * xv;
                            out += h[hh][q][k] * conv[i][di + gn + g * n + k];
                        }
                        y[hh * hd + q] = out + d[hh] * xv;
                    }
                }
                for (int c = 0; c < di; c++) y[c] *= silu(z[i][c]);               // MambaRMSNormGated: norm(y · silu(gate))
                add(x[i], matVec(w.get(p + "mixer.out_proj.weight"), rmsNorm(y, w.get(p + "mixer.norm.weight"), s.eps), s.hidden));
            }
        }
        return head(w, x, s.vocab, s.eps, s.tied);
    }

    private static double[][] embed(Map<String, float[]> w, long[] ids, int hidden) {
        double[][] x = new double[ids.length][];
        for (int i = 0; i < ids.length; i++) x[i] = row(w.get("backbone.embeddings.weight"), (int) ids[i], hidden);
        return x;
    }

    private static double[][] head(Map<String, float[]> w, double[][] x, int vocab, double eps, boolean tied) {
        double[][] logits = new double[x.length][];
        float[] head = w.get(tied ? "backbone.embeddings.weight" : "lm_head.weight");
        for (int i = 0; i < x.length; i++) logits[i] = matVec(head, rmsNorm(x[i], w.get("backbone.norm_f.weight"), eps), vocab);
        return logits;
    }

    /** act(conv1d(x)[..., :seq_len]): depthwise, kernel K, K − 1 zeros before the first position, with its bias; x (seq, channels). */
    private static double[][] siluConv(Map<String, float[]> w, String p, double[][] x, int kernel) {
        float[] weight = w.get(p + "weight"), bias = w.get(p + "bias");
        int t = x.length, channels = x[0].length;
        double[][] out = new double[t][channels];
        for (int i = 0; i < t; i++) {
            for (int c = 0; c < channels; c++) {
                double v = bias[c];
                for (int j = 0; j < kernel; j++) {
                    int at = i - (kernel - 1) + j;
                    if (at >= 0) v += weight[c * kernel + j] * x[at][c];
                }
                out[i][c] = silu(v);
            }
        }
        return out;
    }

    private static double silu(double v) { return v / (1 + Math.exp(-v)); }

    private static double softplus(double v) { return v > 20 ? v : Math.log1p(Math.exp(v)); }
}
