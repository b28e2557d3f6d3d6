package dev.symbiont.bench.compare;

import dev.symbiont.io.AtomicFiles;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes the report of some results into a directory: {@code charts/<name>.png} for every
 * figure, {@code report.md} linking them and {@code report.html} embedding them, each file
 * atomically.
 */
public final class ReportWriter {
    private ReportWriter() {}

    /** Builds the report from {@code results} and writes its files under {@code directory}; returns the report. */
    public static Report write(CompareResults results, Path directory) throws IOException {
        Report report = ReportBuilder.build(results);
        Map<String, byte[]> pngs = new LinkedHashMap<>();
        for (Report.Figure f : report.figures()) {
            byte[] png = Charts.png(f.chart(), f.width(), f.height());
            pngs.put(f.name(), png);
            AtomicFiles.write(directory.resolve("charts").resolve(f.name() + ".png"), out -> out.write(png));
        }
        byte[] md = MarkdownWriter.write(report).getBytes(StandardCharsets.UTF_8);
        AtomicFiles.write(directory.resolve("report.md"), out -> out.write(md));
        byte[] html = HtmlWriter.write(report, pngs).getBytes(StandardCharsets.UTF_8);
        AtomicFiles.write(directory.resolve("report.html"), out -> out.write(html));
        return report;
    }
}
