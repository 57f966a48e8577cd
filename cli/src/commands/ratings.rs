//! `pentagrid ratings`: the rating list of stored matches (maximum-likelihood Elo with 95%
//! intervals, one player anchored), and the printing of rating lists that `tournament` shares.
//! The fit is [`pentagrid_rating::rating_list`]; the matches come from [`pentagrid_client::tournaments`].

use anyhow::Result;
use clap::Args;
use pentagrid_client::tournaments;
use pentagrid_rating::{MAX_PRIOR_DRAWS, RatingList, RatingOptions};
use serde_json::json;

use super::target::Target;
use crate::output::{self, outln};

/// Print the rating list of the stored matches: maximum-likelihood Elo (Bradley–Terry, a draw
/// half a win) with 95% intervals, one player anchored, games and score per player and the
/// pairwise table. A virtual draw between every two players that met keeps perfect scores
/// finite.
#[derive(Args)]
pub struct RatingsArgs {
    /// Only matches between these players (each as the match names it); all matches when none
    /// is given.
    #[arg(long = "player", value_name = "PLAYER")]
    players: Vec<String>,
    #[command(flatten)]
    options: RatingFlags,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    target: Target,
}

/// How to anchor and regularise a rating list.
#[derive(Args)]
pub struct RatingFlags {
    /// The player held at --anchor-rating (default: the first player matched).
    #[arg(long)]
    anchor: Option<String>,
    /// The anchor's rating.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true, value_parser = finite)]
    anchor_rating: f64,
    /// Virtual draws added between every two players that met (above 0, at most 1000).
    #[arg(long, default_value_t = 1.0, value_parser = prior)]
    prior_draws: f64,
    /// Print every player's full specification after the table (players show by name).
    #[arg(long)]
    pub long: bool,
}

impl RatingFlags {
    /// The fit's options.
    pub fn options(&self) -> RatingOptions {
        RatingOptions {
            anchor: self.anchor.clone(),
            anchor_rating: self.anchor_rating,
            prior_draws: self.prior_draws,
        }
    }
}

fn finite(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && x.abs() <= 1e6)
        .ok_or_else(|| "expected a rating from -1000000 to 1000000".to_owned())
}

fn prior(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|x| *x > 0.0 && *x <= MAX_PRIOR_DRAWS)
        .ok_or_else(|| format!("expected a number of draws above 0 and at most {MAX_PRIOR_DRAWS}"))
}

pub fn run(args: &RatingsArgs) -> Result<()> {
    let options = args.options.options();
    let list = args
        .target
        .read(async |client| Ok(tournaments::ratings(client, &args.players, &options).await?))?;
    if args.json {
        outln!("{}", list_json(&list));
        Ok(())
    } else {
        print_list(&list, args.options.long)
    }
}

/// A rating list as JSON (stable: the field names of [`RatingList`]).
pub fn list_json(list: &RatingList) -> serde_json::Value {
    json!(list)
}

fn signed(x: f64) -> String {
    output::signed(x, 1)
}

/// Most columns of the player column: with them a rating table fits 80 columns; longer
/// names are listed whole under the table.
const PLAYER_COLUMNS: usize = 16;

/// Prints a rating list as a table (players by name: see [`output::player`]), one per group of
/// players linked by games, each ranked on its own; then the pairwise results; `long`: each
/// player's full specification after them.
pub fn print_list(list: &RatingList, long: bool) -> Result<()> {
    let mut legend = output::Legend::new(PLAYER_COLUMNS);
    let labels: Vec<String> = list
        .players
        .iter()
        .map(|p| legend.label(&pentago::player_label(&p.name)))
        .collect();
    let width = labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let groups = list.components.len();
    if groups > 1 {
        outln!(
            "{groups} groups of players never linked by games, each ranked on its own: ratings \
             compare only within a group (each anchored at its first player)"
        );
    }
    for group in 0..groups {
        if groups > 1 {
            outln!("group {}", group + 1);
        }
        print_group(list, &labels, group, width)?;
    }
    outln!("pairwise (first player's wins-draws-losses, rating difference):");
    for pair in &list.pairs {
        let d = pair.difference;
        outln!(
            "  {} vs {}: {}-{}-{}  {} [{}, {}]",
            legend.label(&pentago::player_label(&pair.a)),
            legend.label(&pentago::player_label(&pair.b)),
            pair.score.wins,
            pair.score.draws,
            pair.score.losses,
            signed(d.elo),
            signed(d.low),
            signed(d.high)
        );
    }
    legend.print()?;
    if long {
        outln!("players:");
        for p in &list.players {
            outln!(
                "  {} = {}",
                output::player(&p.name),
                output::peer_full(&output::player_spec(&p.name))
            );
        }
    }
    Ok(())
}

/// The table of one group of players (`list`'s component `group`), players by `labels`, their
/// column `width` wide.
fn print_group(list: &RatingList, labels: &[String], group: usize, width: usize) -> Result<()> {
    outln!(
        "{:>4}  {:<width$}  {:>8}  {:>20}  {:>6}  {:>6}",
        "rank",
        "player",
        "elo",
        "95% interval",
        "games",
        "score"
    );
    let members = list.players.iter().zip(labels);
    for (p, label) in members.filter(|(p, _)| p.component == group) {
        let mark = if p.name == list.anchor {
            " (anchor)"
        } else if list.component_anchors.get(group) == Some(&p.name) {
            " (group anchor)"
        } else {
            ""
        };
        let score = p
            .score()
            .map_or("-".to_owned(), |s| format!("{:.1}%", 100.0 * s));
        outln!(
            "{:>4}  {:<width$}  {:>8}  {:>20}  {:>6}  {:>6}{}",
            p.rank,
            label,
            signed(p.rating.elo),
            format!("[{}, {}]", signed(p.rating.low), signed(p.rating.high)),
            p.games,
            score,
            mark
        );
    }
    Ok(())
}
