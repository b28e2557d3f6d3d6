package dev.symbiont.bench.compare;

import org.jfree.chart.JFreeChart;

import java.util.ArrayList;
import java.util.List;

/**
 * The comparison report as a document model, written by {@link MarkdownWriter} and
 * {@link HtmlWriter} alike: sections of text, tables and figures (charts rendered to PNG).
 *
 * @param title    the document's title
 * @param sections in reading order
 */
public record Report(String title, List<Section> sections) {

    /** A titled part of the report; {@code id} is its anchor and the prefix of its charts' file names. */
    public record Section(String id, String title, List<Block> blocks) {}

    /** What a section holds. */
    public sealed interface Block permits Text, Table, Figure {}

    /** A paragraph; {@code `code`} spans are kept as code in both writers. */
    public record Text(String text) implements Block {}

    /** A table: a header row and rows of the same width. */
    public record Table(List<String> header, List<List<String>> rows) implements Block {
        public Table {
            for (List<String> row : rows) {
                if (row.size() != header.size()) {
                    throw new IllegalArgumentException("Report.Table: a row has " + row.size() + " cells, the header " + header.size() + ": " + row);
                }
            }
            header = List.copyOf(header);
            rows = List.copyOf(rows);
        }
    }

    /** A chart, saved as {@code charts/<name>.png} at width × height pixels. */
    public record Figure(String name, String caption, JFreeChart chart, int width, int height) implements Block {
        /** A figure at the report's usual size. */
        public Figure(String name, String caption, JFreeChart chart) { this(name, caption, chart, 800, 480); }
    }

    /** Builds a section's blocks in order. */
    public static final class SectionBuilder {
        private final String id, title;
        private final List<Block> blocks = new ArrayList<>();

        public SectionBuilder(String id, String title) {
            this.id = id;
            this.title = title;
        }

        public SectionBuilder text(String text) { blocks.add(new Text(text)); return this; }

        public SectionBuilder table(List<String> header, List<List<String>> rows) {
            if (!rows.isEmpty()) blocks.add(new Table(header, rows));
            return this;
        }

        public SectionBuilder figure(String name, String caption, JFreeChart chart) {
            if (chart != null) blocks.add(new Figure(id + "-" + name, caption, chart));
            return this;
        }

        public Section build() { return new Section(id, title, List.copyOf(blocks)); }
    }

    /** Every figure of the report, in order. */
    public List<Figure> figures() {
        return sections.stream().flatMap(s -> s.blocks().stream()).filter(b -> b instanceof Figure).map(b -> (Figure) b).toList();
    }
}
