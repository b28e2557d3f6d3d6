package dev.symbiont.bench.compare;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The report's charts, drawn with JFreeChart and rendered headless to PNG: lines of a cost
 * against a size (log–log, so a power law is a straight line whose slope is its exponent),
 * stacked shares per family, and the roofline.
 */
public final class Charts {
    static {
        if (System.getProperty("java.awt.headless") == null) System.setProperty("java.awt.headless", "true"); // no display needed
    }

    private Charts() {}

    /** Tick labels as plain numbers (512, 0.25, 1.5e+10), not as powers of the axis' base. */
    private static final NumberFormat PLAIN = new NumberFormat() {
        @Override
        public StringBuffer format(double number, StringBuffer to, FieldPosition pos) { return to.append(Fmt.short3(number)); }

        @Override
        public StringBuffer format(long number, StringBuffer to, FieldPosition pos) { return to.append(number); }

        @Override
        public Number parse(String source, ParsePosition pos) { throw new UnsupportedOperationException("Charts: tick labels are not parsed"); }
    };

    /** A line: its name and (x, y) points; points with x ≤ 0 or y ≤ 0 are left off a log axis. */
    public record Line(String name, double[] xs, double[] ys) {}

    /**
     * A mark on the roofline: a kernel at its arithmetic intensity (FLOP/byte) and attained
     * GFLOP/s; kernels of one group (the GEMMs, a family's ops) share a colour and a legend entry.
     */
    public record Kernel(String group, String name, double intensity, double gflops) {}

    /** Lines of y against x on log–log axes; null when no line has a plottable point. */
    public static JFreeChart lines(String title, String xLabel, String yLabel, List<Line> lines) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (Line line : lines) {
            XYSeries s = new XYSeries(line.name(), true, true);
            for (int i = 0; i < line.xs().length; i++) if (line.xs()[i] > 0 && line.ys()[i] > 0) s.add(line.xs()[i], line.ys()[i]);
            if (s.getItemCount() > 0) data.addSeries(s);
        }
        if (data.getSeriesCount() == 0) return null;
        JFreeChart chart = ChartFactory.createXYLineChart(title, xLabel, yLabel, data, PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        plot.setDomainAxis(powersOfTwo(xLabel));
        plot.setRangeAxis(log(yLabel, 10));
        plot.setRenderer(new XYLineAndShapeRenderer(true, true));
        style(chart);
        return chart;
    }

    /** Stacked bars: for each group (a family), the shares of each part (a category) in {@code shares}, part → share per group. */
    public static JFreeChart stackedShares(String title, List<String> groups, Map<String, double[]> shares) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        shares.forEach((part, values) -> {
            for (int i = 0; i < groups.size(); i++) data.addValue(100 * values[i], part, groups.get(i));
        });
        if (groups.isEmpty()) return null;
        JFreeChart chart = ChartFactory.createStackedBarChart(title, "", "% of self time", data, PlotOrientation.HORIZONTAL, true, false, false);
        ((NumberAxis) chart.getCategoryPlot().getRangeAxis()).setRange(0, 100);
        style(chart);
        return chart;
    }

    /**
     * The roofline: attainable GFLOP/s = min(peak, bandwidth · intensity) for each measured
     * bandwidth (GB/s), and the kernels as points; null when there is no peak or bandwidth.
     */
    public static JFreeChart roofline(String title, double peakGflops, Map<String, Double> bandwidths, List<Kernel> kernels) {
        if (!(peakGflops > 0) || bandwidths.isEmpty()) return null;
        double lo = 1.0 / 64, hi = 1024;
        for (Kernel k : kernels) {
            if (k.intensity() > 0) { lo = Math.min(lo, k.intensity() / 2); hi = Math.max(hi, k.intensity() * 2); }
        }
        XYSeriesCollection data = new XYSeriesCollection();
        Map<String, Double> roofs = new LinkedHashMap<>(bandwidths);
        for (Map.Entry<String, Double> roof : roofs.entrySet()) {
            XYSeries s = new XYSeries("roof: " + roof.getKey() + " " + Fmt.sig(roof.getValue(), 3) + " GB/s", false, true);
            double ridge = peakGflops / roof.getValue();
            s.add(lo, roof.getValue() * lo);
            if (ridge > lo && ridge < hi) s.add(ridge, peakGflops);
            s.add(hi, Math.min(peakGflops, roof.getValue() * hi));
            data.addSeries(s);
        }
        int roofCount = data.getSeriesCount();
        Map<String, XYSeries> groups = new LinkedHashMap<>();
        for (Kernel k : kernels) {
            if (!(k.intensity() > 0 && k.gflops() > 0)) continue;
            groups.computeIfAbsent(k.group(), g -> new XYSeries(g, false, true)).add(k.intensity(), k.gflops());
        }
        groups.values().forEach(data::addSeries);
        JFreeChart chart = ChartFactory.createXYLineChart(title, "arithmetic intensity (FLOP/byte)", "GFLOP/s", data, PlotOrientation.VERTICAL,
                true, false, false);
        XYPlot plot = chart.getXYPlot();
        plot.setDomainAxis(powersOfTwo("arithmetic intensity (FLOP/byte)"));
        plot.setRangeAxis(log("GFLOP/s", 10));
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer();
        for (int i = 0; i < data.getSeriesCount(); i++) {
            boolean roof = i < roofCount;
            r.setSeriesLinesVisible(i, roof);
            r.setSeriesShapesVisible(i, !roof);
            if (roof) r.setSeriesStroke(i, new BasicStroke(2.5f));
        }
        plot.setRenderer(r);
        style(chart);
        return chart;
    }

    /**
     * Renders a tiny chart, so that Java2D and the fonts are loaded now: loading them registers
     * shutdown hooks, which the JVM refuses once it is shutting down — when an interrupted run
     * writes its report.
     */
    public static void prepare() {
        png(lines("", "x", "y", List.of(new Line("", new double[] {1, 2}, new double[] {1, 2}))), 16, 16);
    }

    /** The chart as PNG bytes of the given size. */
    public static byte[] png(JFreeChart chart, int width, int height) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            ChartUtils.writeChartAsPNG(out, chart, width, height);
        } catch (IOException e) {
            throw new UncheckedIOException("Charts.png: cannot render '" + chart.getTitle().getText() + "': " + e.getMessage(), e);
        }
        return out.toByteArray();
    }

    private static ValueAxis log(String label, int base) {
        LogAxis axis = new LogAxis(label);
        axis.setBase(base);
        axis.setSmallestValue(1e-9);
        axis.setNumberFormatOverride(PLAIN);
        return axis;
    }

    /** A base-2 log axis ticked at every power of two: the sizes the suites sweep. */
    private static ValueAxis powersOfTwo(String label) {
        LogAxis axis = (LogAxis) log(label, 2);
        axis.setAutoTickUnitSelection(false);
        axis.setTickUnit(new NumberTickUnit(1));
        return axis;
    }

    private static void style(JFreeChart chart) {
        chart.setBackgroundPaint(Color.WHITE);
        chart.getPlot().setBackgroundPaint(new Color(250, 250, 250));
        chart.setAntiAlias(true);
    }
}
