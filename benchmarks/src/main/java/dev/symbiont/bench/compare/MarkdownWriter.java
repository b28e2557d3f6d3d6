package dev.symbiont.bench.compare;

import java.util.List;

/** The report as GitHub-flavoured Markdown: figures link to {@code charts/<name>.png} beside it. */
public final class MarkdownWriter {
    private MarkdownWriter() {}

    public static String write(Report report) {
        StringBuilder md = new StringBuilder("# ").append(report.title()).append("\n\n");
        for (Report.Section s : report.sections()) md.append("- [").append(s.title()).append("](#").append(s.id()).append(")\n");
        md.append('\n');
        for (Report.Section s : report.sections()) {
            md.append("<a id=\"").append(s.id()).append("\"></a>\n\n## ").append(s.title()).append("\n\n");
            for (Report.Block b : s.blocks()) {
                switch (b) {
                    case Report.Text t -> md.append(t.text()).append("\n\n");
                    case Report.Table t -> table(md, t);
                    case Report.Figure f -> md.append("![").append(f.caption()).append("](charts/").append(f.name()).append(".png)\n\n*")
                            .append(f.caption()).append("*\n\n");
                }
            }
        }
        return md.toString();
    }

    private static void table(StringBuilder md, Report.Table t) {
        row(md, t.header());
        md.append('|');
        for (int i = 0; i < t.header().size(); i++) md.append(" --- |");
        md.append('\n');
        for (List<String> r : t.rows()) row(md, r);
        md.append('\n');
    }

    private static void row(StringBuilder md, List<String> cells) {
        md.append('|');
        for (String c : cells) md.append(' ').append(c.replace("|", "\\|").replace("\n", " ")).append(" |");
        md.append('\n');
    }
}
