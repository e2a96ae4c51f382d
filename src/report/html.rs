//! The few pieces of HTML the report is made of: escaped text, tables, the page around them.
//! Every piece of user text (names, descriptions, warnings, command lines) goes through
//! [`escape`]; the charts' SVG comes from plotters, which escapes its own text.

use std::fmt::Write;

/// `text` safe inside an element or a quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters (but line breaks and tabs) would only confuse a reader.
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A table: a header row and rows of cells, every cell escaped; columns after the first are
/// right-aligned (numbers), unless `left` lists them.
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub left: Vec<usize>,
}

impl Table {
    pub fn new(header: Vec<String>) -> Self {
        Table {
            header,
            rows: Vec::new(),
            left: vec![0],
        }
    }

    pub fn html(&self) -> String {
        let align = |i: usize| {
            if self.left.contains(&i) {
                ""
            } else {
                " class=\"num\""
            }
        };
        let mut out = String::from("<div class=\"scroll\"><table>\n<thead><tr>");
        for (i, cell) in self.header.iter().enumerate() {
            let _ = write!(out, "<th{}>{}</th>", align(i), escape(cell));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for row in &self.rows {
            out.push_str("<tr>");
            for (i, cell) in row.iter().enumerate() {
                let _ = write!(out, "<td{}>{}</td>", align(i), escape(cell));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table></div>\n");
        out
    }
}

/// A list of escaped items, or nothing when there are none.
pub fn list(items: &[String]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let mut out = String::from("<ul>\n");
    for item in items {
        let _ = writeln!(out, "<li>{}</li>", escape(item));
    }
    out.push_str("</ul>\n");
    out
}

/// A chart figure: the SVG inline (scaled to the page), its title and the one-line reading.
pub fn figure(svg: &str, file_stem: &str, reading: &str) -> String {
    // plotters writes `<svg width="1600" height="1000" ...>`: scale it to the column.
    let svg = match svg.find("<svg") {
        Some(start) => {
            let body = &svg[start + 4..];
            format!(
                "<svg viewBox=\"0 0 1600 1000\" preserveAspectRatio=\"xMidYMid meet\" role=\"img\" aria-label=\"{}\" class=\"chart\"{}",
                escape(file_stem),
                body.replacen("width=\"1600\" height=\"1000\"", "", 1)
            )
        }
        None => String::new(),
    };
    format!(
        "<figure id=\"{id}\">\n{svg}\n<figcaption><code>{id}</code>: {}</figcaption>\n</figure>\n",
        escape(reading),
        id = escape(file_stem)
    )
}

/// The whole page: `title` in the head and as the heading, then `body`.
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<main>\n<h1>{title}</h1>\n{body}</main>\n</body>\n</html>\n",
        title = escape(title)
    )
}

/// The page's look: readable measure, the charts' font, tables that scroll when wide.
const STYLE: &str = "body { font-family: 'DejaVu Sans', Verdana, sans-serif; color: #222; background: #fff; margin: 0; line-height: 1.45; }
main { max-width: 1200px; margin: 0 auto; padding: 24px 32px 64px; }
h1 { font-size: 1.9em; margin-bottom: 0.2em; }
h2 { font-size: 1.35em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
.question { white-space: pre-line; background: #f6f6f6; border-left: 4px solid #0072B2; padding: 12px 16px; }
.muted { color: #5f5f5f; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.6em 0; }
td:first-child { white-space: nowrap; }
th, td { padding: 4px 10px; border-bottom: 1px solid #e4e4e4; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
figure { margin: 1.5em 0; }
svg.chart { width: 100%; height: auto; border: 1px solid #eee; }
figcaption { margin-top: 0.4em; }
code { background: #f3f3f3; padding: 1px 4px; border-radius: 3px; }
pre { background: #f6f6f6; padding: 8px 12px; overflow-x: auto; white-space: pre-wrap; }
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_text_is_escaped() {
        assert_eq!(
            escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;"
        );
        assert_eq!(escape("a\u{1b}[31mb\nc"), "a\u{fffd}[31mb\nc");
        let mut table = Table::new(vec!["<a>".into(), "b".into()]);
        table.rows.push(vec!["x&y".into(), "1".into()]);
        let html = table.html();
        assert!(
            html.contains("<th>&lt;a&gt;</th><th class=\"num\">b</th>"),
            "{html}"
        );
        assert!(
            html.contains("<td>x&amp;y</td><td class=\"num\">1</td>"),
            "{html}"
        );
    }

    #[test]
    fn a_figure_scales_its_svg() {
        let svg = "<svg width=\"1600\" height=\"1000\" xmlns=\"http://www.w3.org/2000/svg\"><text>a</text></svg>";
        let html = figure(svg, "cost", "reads <well>");
        assert!(html.contains("<svg viewBox=\"0 0 1600 1000\""), "{html}");
        assert!(!html.contains("width=\"1600\""), "{html}");
        assert!(html.contains("reads &lt;well&gt;"), "{html}");
    }
}
