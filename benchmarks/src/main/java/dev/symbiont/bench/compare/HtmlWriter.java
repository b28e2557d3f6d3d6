package dev.symbiont.bench.compare;

import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The report as one self-contained HTML page: every chart embedded as a base64 PNG, so the file
 * can be mailed or archived alone.
 */
public final class HtmlWriter {
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    private HtmlWriter() {}

    /** The page; {@code pngs} holds each figure's PNG by its name. */
    public static String write(Report report, Map<String, byte[]> pngs) {
        StringBuilder html = new StringBuilder("""
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8">
                <meta name="viewport" content="width=device-width, initial-scale=1">
                <title>""").append(escape(report.title())).append("""
                </title>
                <style>
                body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
                table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
                th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
                th { background: #f3f3f3; }
                figure { margin: 1.5em 0; } figcaption { font-style: italic; color: #555; }
                img { max-width: 100%; height: auto; }
                code { background: #f3f3f3; padding: 0 0.2em; }
                </style></head><body>
                """);
        html.append("<h1>").append(escape(report.title())).append("</h1>\n<ul>\n");
        for (Report.Section s : report.sections()) {
            html.append("<li><a href=\"#").append(s.id()).append("\">").append(escape(s.title())).append("</a></li>\n");
        }
        html.append("</ul>\n");
        for (Report.Section s : report.sections()) {
            html.append("<h2 id=\"").append(s.id()).append("\">").append(escape(s.title())).append("</h2>\n");
            for (Report.Block b : s.blocks()) {
                switch (b) {
                    case Report.Text t -> html.append("<p>").append(inline(t.text())).append("</p>\n");
                    case Report.Table t -> table(html, t);
                    case Report.Figure f -> {
                        byte[] png = pngs.get(f.name());
                        if (png == null) throw new IllegalArgumentException("HtmlWriter: no PNG for figure '" + f.name() + "'");
                        html.append("<figure><img alt=\"").append(escape(f.caption())).append("\" width=\"").append(f.width()).append("\" height=\"")
                                .append(f.height()).append("\" src=\"data:image/png;base64,").append(Base64.getEncoder().encodeToString(png))
                                .append("\"><figcaption>").append(escape(f.caption())).append("</figcaption></figure>\n");
                    }
                }
            }
        }
        return html.append("</body></html>\n").toString();
    }

    private static void table(StringBuilder html, Report.Table t) {
        html.append("<table>\n<tr>");
        for (String h : t.header()) html.append("<th>").append(inline(h)).append("</th>");
        html.append("</tr>\n");
        for (List<String> row : t.rows()) {
            html.append("<tr>");
            for (String c : row) html.append("<td>").append(inline(c)).append("</td>");
            html.append("</tr>\n");
        }
        html.append("</table>\n");
    }

    /** Escaped text with {@code `code`} spans and **bold** kept. */
    static String inline(String text) {
        String escaped = escape(text).replaceAll("\\*\\*([^*]+)\\*\\*", "<strong>$1</strong>");
        Matcher m = CODE.matcher(escaped);
        return m.replaceAll(r -> "<code>" + Matcher.quoteReplacement(r.group(1)) + "</code>");
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
