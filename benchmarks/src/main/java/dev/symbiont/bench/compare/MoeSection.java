package dev.symbiont.bench.compare;

import java.util.List;

/** The MoE layer's parameters, FLOPs and time against E and k: the K/E claim. */
final class MoeSection {
    private MoeSection() {}

    static Report.Section build(CompareResults r) {
        Report.SectionBuilder b = new Report.SectionBuilder("moe", "Mixture of experts: parameters and compute against E and k");
        b.text("One MoE layer (width " + LmFamily.D_MODEL + ", SwiGLU experts of hidden " + LmFamily.expertHidden(LmFamily.TOP_K)
                + ", dropless) forward + backward. Active parameters are the router's and k experts': a token computes with those "
                + "only, so time and FLOPs should follow k and not E, while the total grows with E. \"dense\" is a SwiGLU feed-forward "
                + "with the MoE's active parameters (hidden k·h): the cost of the same compute without routing.");
        List<Sweep.Metric> metrics = List.of(new Sweep.Metric("ms", "ms forward + backward", true, true),
                new Sweep.Metric("params_total", "total parameters", true, true), new Sweep.Metric("params_active", "active parameters", false, true),
                new Sweep.Metric("gflop", "GFLOP counted", false, true));
        b.text("Against the number of experts E, at top-k " + LmFamily.TOP_K + ":");
        Sweep.add(b, r, MoeSuite.EXPERTS, "experts", "E", metrics, Titles::of);
        b.text("Against top-k, at E = " + LmFamily.EXPERTS + ":");
        Sweep.add(b, r, MoeSuite.TOPK, "topk", "k", metrics, Titles::of);
        return b.build();
    }
}
