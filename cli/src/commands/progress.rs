//! Progress bars on standard error for the client library's progress callbacks.

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use pentagrid_client::jobs::JobsProgress;
use pentagrid_client::puzzles::PuzzleProgress;
use pentagrid_client::study::StudyProgress;

/// The bars of one command, made as its steps begin, by label; drawn together, since steps
/// may run at the same time.
#[derive(Default)]
pub struct Bars {
    drawn: MultiProgress,
    bars: Vec<(String, ProgressBar)>,
}

impl Bars {
    /// The bar labelled `label` (made with `unit` and length `len` the first time).
    fn get(&mut self, label: &str, unit: &str, len: u64) -> ProgressBar {
        if let Some((_, bar)) = self.bars.iter().find(|(l, _)| l == label) {
            return bar.clone();
        }
        let bar = ProgressBar::new(len).with_style(
            ProgressStyle::with_template(&format!(
                "{label:>14} [{{bar:40}}] {{pos}}/{{len}} {unit} {{elapsed}} {{msg}}"
            ))
            .expect("valid template"),
        );
        let bar = self.drawn.add(bar);
        self.bars.push((label.to_owned(), bar.clone()));
        bar
    }

    /// Shows a batch of jobs.
    pub fn jobs(&mut self, label: &str, progress: JobsProgress) {
        let bar = self.get(label, "jobs", progress.total);
        bar.set_position(progress.finished);
        bar.set_message(format!("{} playouts", progress.playouts));
        if progress.finished >= progress.total {
            bar.finish();
        }
    }

    /// Shows a study of `opening` that analyses up to `positions` positions.
    pub fn study(&mut self, opening: &str, positions: u64, progress: StudyProgress) {
        match progress {
            StudyProgress::Build {
                positions: queued,
                playouts,
                solved,
                deep: (deep_started, deep_finished),
            } => {
                let bar = self.get(opening, "positions", positions);
                bar.set_position(queued.min(positions));
                let deep = if deep_started > 0 {
                    format!(", deep solves {deep_finished}/{deep_started} done")
                } else {
                    String::new()
                };
                bar.set_message(format!("{playouts} playouts, {solved} solved{deep}"));
            }
            StudyProgress::Games(progress) => {
                self.get(opening, "positions", positions).finish();
                self.jobs(&format!("{opening} games"), progress);
            }
            StudyProgress::Lines(progress) => {
                self.jobs(&format!("{opening} defence lines"), progress);
            }
        }
    }

    /// Shows a puzzle round toward `wanted` new puzzles.
    pub fn puzzles(&mut self, wanted: u64, progress: PuzzleProgress) {
        let bar = self.get("puzzles", "", wanted);
        bar.set_position(progress.found.min(wanted));
        bar.set_message(format!(
            "{} candidates checked, {} pending",
            progress.checked, progress.pending
        ));
    }

    /// Ends the puzzle bar, saying so when the candidates ran out.
    pub fn puzzles_done(&mut self, ran_dry: bool) {
        let bar = self.get("puzzles", "", 0);
        if ran_dry {
            bar.abandon_with_message("no fresh candidates left");
        } else {
            bar.finish();
        }
    }
}
