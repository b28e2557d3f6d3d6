package dev.symbiont.bench.compare;

import org.jfree.chart.JFreeChart;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChartsTest {
    private static BufferedImage decode(byte[] png) throws Exception {
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
        assertNotNull(image, "a PNG ImageIO can read");
        return image;
    }

    /** Whether the image has more than one colour: something was drawn on the background. */
    private static boolean drawn(BufferedImage image) {
        int first = image.getRGB(0, 0);
        for (int y = 0; y < image.getHeight(); y += 7) for (int x = 0; x < image.getWidth(); x += 7) if (image.getRGB(x, y) != first) return true;
        return false;
    }

    @Test
    void should_render_each_kind_of_chart_to_a_png_of_the_size_asked() throws Exception {
        JFreeChart lines = Charts.lines("t", "L", "ms", List.of(new Charts.Line("gpt", new double[] {256, 512, 1024}, new double[] {1, 4, 16}),
                new Charts.Line("mamba", new double[] {256, 512, 1024}, new double[] {1, 2, 4})));
        Map<String, double[]> shares = new LinkedHashMap<>();
        shares.put("matmul", new double[] {0.6, 0.2});
        shares.put("scan", new double[] {0.1, 0.7});
        JFreeChart stacked = Charts.stackedShares("t", List.of("GPT", "Mamba-1"), shares);
        JFreeChart roofline = Charts.roofline("t", 100, Map.of("add", 10.0), List.of(new Charts.Kernel("GEMM", "GEMM 512³", 85, 60), new Charts.Kernel("streams", "add", 1 / 12.0, 0.8)));
        for (JFreeChart chart : List.of(lines, stacked, roofline)) {
            BufferedImage image = decode(Charts.png(chart, 640, 360));
            assertEquals(640, image.getWidth());
            assertEquals(360, image.getHeight());
            assertTrue(drawn(image), "a blank image for " + chart.getTitle().getText());
        }
    }

    @Test
    void should_give_no_chart_when_nothing_can_be_plotted_on_log_axes() {
        assertNull(Charts.lines("t", "L", "ms", List.of(new Charts.Line("none", new double[] {0, 256}, new double[] {1, 0}))));
        assertNull(Charts.roofline("t", 0, Map.of("add", 10.0), List.of()));
        assertNull(Charts.roofline("t", 100, Map.of(), List.of()));
    }

    @Test
    void should_write_every_figure_as_a_png_of_its_size_beside_the_markdown_and_html(@TempDir Path dir) throws Exception {
        Report report = ReportWriter.write(SyntheticResults.of("cpu"), dir);
        assertTrue(Files.size(dir.resolve("report.md")) > 0 && Files.size(dir.resolve("report.html")) > 0);
        for (Report.Figure f : report.figures()) {
            BufferedImage image = decode(Files.readAllBytes(dir.resolve("charts").resolve(f.name() + ".png")));
            assertEquals(f.width(), image.getWidth(), f.name());
            assertEquals(f.height(), image.getHeight(), f.name());
            assertTrue(drawn(image), f.name());
        }
        try (var pngs = Files.list(dir.resolve("charts"))) {
            assertEquals(report.figures().size(), pngs.count());
        }
    }
}
