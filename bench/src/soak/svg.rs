//! A plain SVG line chart, written as text (no plotting dependency): panels stacked over one
//! time axis, each with its lines, a legend, and optionally a dashed target line.

use std::fmt::Write;

/// Width of the picture.
const WIDTH: f64 = 960.0;
/// Height of one panel, axes and title included.
const PANEL_HEIGHT: f64 = 300.0;
/// Space left of the plot area (y labels), right of it (legend), above it (title) and below it
/// (x labels).
const LEFT: f64 = 70.0;
const RIGHT: f64 = 190.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 40.0;

/// One line of a panel.
#[derive(Clone, Debug)]
pub struct Line {
    /// Legend text.
    pub label: String,
    /// Stroke colour.
    pub color: &'static str,
    /// (seconds, value) points, in time order.
    pub points: Vec<(f64, f64)>,
}

impl Line {
    /// A line.
    #[must_use]
    pub fn new(label: &str, color: &'static str, points: Vec<(f64, f64)>) -> Line {
        Line {
            label: label.to_owned(),
            color,
            points,
        }
    }
}

/// One chart of the picture.
#[derive(Clone, Debug)]
pub struct Panel {
    /// Its title (with the unit).
    pub title: String,
    /// Its lines.
    pub lines: Vec<Line>,
    /// A dashed horizontal line: its label and value.
    pub target: Option<(&'static str, f64)>,
}

/// A round step of about a fifth of `range`: 1, 2 or 5 times a power of ten.
fn step(range: f64) -> f64 {
    let raw = (range / 5.0).max(f64::MIN_POSITIVE);
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * magnitude)
}

/// `value` with as many decimals as `step` needs.
fn tick(value: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    format!("{value:.decimals$}")
}

/// Escapes text for SVG.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The picture: `title` above `panels` stacked over `0..seconds`.
#[must_use]
pub fn plot(title: &str, seconds: f64, panels: &[Panel]) -> String {
    let height = 30.0 + PANEL_HEIGHT * panels.len() as f64;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        svg,
        r#"<rect width="100%" height="100%" fill="white"/><text x="{LEFT}" y="22" font-size="15" font-weight="bold">{}</text>"#,
        escape(title)
    );
    for (index, panel) in panels.iter().enumerate() {
        draw_panel(&mut svg, panel, 30.0 + PANEL_HEIGHT * index as f64, seconds);
    }
    svg.push_str("</svg>\n");
    svg
}

fn draw_panel(svg: &mut String, panel: &Panel, top: f64, seconds: f64) {
    let (x0, x1) = (LEFT, WIDTH - RIGHT);
    let (y0, y1) = (top + PANEL_HEIGHT - BOTTOM, top + TOP);
    let highest = panel
        .lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .chain(panel.target.map(|t| t.1))
        .fold(0.0, f64::max);
    let y_step = step(highest * 1.05);
    let y_max = (highest * 1.05 / y_step).ceil().max(1.0) * y_step;
    let x_max = seconds.max(1.0);
    let x = |t: f64| x0 + (x1 - x0) * t / x_max;
    let y = |v: f64| y0 - (y0 - y1) * v / y_max;
    let _ = writeln!(
        svg,
        r#"<text x="{x0}" y="{}" font-size="13">{}</text>"#,
        top + 30.0,
        escape(&panel.title)
    );
    let _ = writeln!(
        svg,
        r##"<rect x="{x0}" y="{y1}" width="{}" height="{}" fill="none" stroke="#444"/>"##,
        x1 - x0,
        y0 - y1
    );
    for k in 0..=(y_max / y_step).round() as u32 {
        let v = f64::from(k) * y_step;
        let _ = writeln!(
            svg,
            r##"<line x1="{x0}" y1="{0:.1}" x2="{x1}" y2="{0:.1}" stroke="#ddd"/><text x="{1}" y="{2:.1}" text-anchor="end">{3}</text>"##,
            y(v),
            x0 - 6.0,
            y(v) + 4.0,
            tick(v, y_step)
        );
    }
    let x_step = step(x_max);
    for k in 0..=(x_max / x_step).floor() as u32 {
        let t = f64::from(k) * x_step;
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">{} s</text>"#,
            x(t),
            y0 + 16.0,
            tick(t, x_step)
        );
    }
    if let Some((label, value)) = panel.target {
        let _ = writeln!(
            svg,
            r#"<line x1="{x0}" y1="{0:.1}" x2="{x1}" y2="{0:.1}" stroke="black" stroke-dasharray="6 4"/><text x="{1}" y="{2:.1}">{3}</text>"#,
            y(value),
            x1 + 8.0,
            y(value) + 4.0,
            escape(label)
        );
    }
    for (i, line) in panel.lines.iter().enumerate() {
        let points: Vec<String> = line
            .points
            .iter()
            .map(|&(t, v)| format!("{:.1},{:.1}", x(t), y(v)))
            .collect();
        let _ = writeln!(
            svg,
            r#"<polyline fill="none" stroke="{}" stroke-width="1.5" points="{}"/>"#,
            line.color,
            points.join(" ")
        );
        let ly = y1 + 10.0 + 18.0 * i as f64;
        let _ = writeln!(
            svg,
            r#"<line x1="{0}" y1="{ly}" x2="{1}" y2="{ly}" stroke="{2}" stroke-width="3"/><text x="{3}" y="{4}">{5}</text>"#,
            x1 + 8.0,
            x1 + 28.0,
            line.color,
            x1 + 34.0,
            ly + 4.0,
            escape(&line.label)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_round() {
        assert_eq!(step(100.0), 20.0);
        assert_eq!(step(7.0), 2.0);
        assert_eq!(step(0.3), 0.1);
        assert_eq!(step(240.0), 50.0);
        assert_eq!(
            (tick(0.30000000000000004, 0.1), tick(40.0, 20.0)),
            ("0.3".into(), "40".into())
        );
    }

    #[test]
    fn a_plot_has_every_line_and_its_legend() {
        let panel = Panel {
            title: "latency <ms>".into(),
            lines: vec![
                Line::new("p99", "red", vec![(1.0, 3.0), (2.0, 80.0)]),
                Line::new("p50", "blue", vec![(1.0, 1.0)]),
            ],
            target: Some(("target", 50.0)),
        };
        let svg = plot("soak", 2.0, &[panel.clone(), panel]);
        assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<polyline").count(), 4);
        assert!(svg.contains("latency &lt;ms&gt;") && svg.contains(">p99</text>"));
        assert_eq!(svg.matches("stroke-dasharray").count(), 2);
    }
}
