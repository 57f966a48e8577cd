//! `pentagrid games ratings`: the rating list of game record files — games of pentagrid's own
//! matches, or of any tool that writes the record format — fitted as `pentagrid ratings` fits
//! stored matches (ordo's or bayeselo's job for PGN files).

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Args;
use pentago::{Color, Record, Status};
use pentagrid_rating::{Encounter, Trinomial, rating_list};
use serde_json::json;

use super::games::{read, replayed};
use super::ratings::{RatingFlags, list_json, print_list};
use crate::output::{self, outln};

/// Rate the players of record files: maximum-likelihood Elo with 95% intervals, as `ratings`
/// does for stored matches. Players are told apart by name (the `Black`/`White` tags); every
/// game is replayed first, and games without a result are left out (and counted).
#[derive(Args)]
pub struct RecordRatingsArgs {
    /// The record files (`-`: standard input).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    options: RatingFlags,
    /// Print JSON: the rating list, plus the games rated and left out.
    #[arg(long)]
    json: bool,
}

/// What a set of records says for a rating list.
#[derive(Debug, Default, PartialEq)]
struct Tally {
    /// Results between players, by (black, white) name.
    results: BTreeMap<(String, String), Trinomial>,
    /// Each player's specification (empty when no record gave one).
    specs: BTreeMap<String, String>,
    /// Games with a result.
    rated: u64,
    /// Games without one (`Result "ongoing"`).
    unfinished: u64,
}

impl Tally {
    /// Adds one record; a name that records give two different specifications is an error
    /// (two players under one name would be rated as one).
    fn add(&mut self, record: &Record) -> Result<()> {
        for player in [&record.black, &record.white] {
            let known = self.specs.entry(player.name.clone()).or_default();
            if known.is_empty() {
                known.clone_from(&player.spec);
            } else if !player.spec.is_empty() && *known != player.spec {
                bail!(
                    "player {:?} is named for two specifications ({:?} and {:?}): give the \
                     players different names",
                    player.name,
                    known,
                    player.spec
                );
            }
        }
        let score = self
            .results
            .entry((record.black.name.clone(), record.white.name.clone()))
            .or_default();
        match record.result {
            Status::Ongoing => {
                self.unfinished += 1;
                return Ok(());
            }
            Status::Won(Color::Black) => score.wins += 1,
            Status::Won(Color::White) => score.losses += 1,
            Status::Draw => score.draws += 1,
        }
        self.rated += 1;
        Ok(())
    }

    /// Black's results against white, one encounter per ordered pair of names.
    fn encounters(&self) -> Vec<Encounter> {
        self.results
            .iter()
            .filter(|(_, score)| score.wins + score.draws + score.losses > 0)
            .map(|((black, white), score)| Encounter::new(black, white, *score))
            .collect()
    }
}

pub fn run(args: &RecordRatingsArgs) -> Result<()> {
    let mut tally = Tally::default();
    for file in &args.files {
        let records = read(file)?;
        replayed(&records).map_err(|e| e.context(format!("in {}", file.display())))?;
        for (line, record) in &records {
            tally
                .add(record)
                .map_err(|e| e.context(format!("{} line {line}", file.display())))?;
        }
    }
    let encounters = tally.encounters();
    if encounters.is_empty() {
        bail!(
            "no finished games in {} file(s) ({} unfinished): nothing to rate",
            args.files.len(),
            tally.unfinished
        );
    }
    let list = rating_list(&encounters, &args.options.options())?;
    if args.json {
        let mut value = list_json(&list);
        value["games_rated"] = json!(tally.rated);
        value["games_unfinished"] = json!(tally.unfinished);
        value["specs"] = json!(tally.specs);
        outln!("{value}");
        return Ok(());
    }
    outln!(
        "{} games rated from {} file(s){}",
        tally.rated,
        args.files.len(),
        match tally.unfinished {
            0 => String::new(),
            n => format!(" ({n} unfinished left out)"),
        }
    );
    print_list(&list, false)?;
    if args.options.long {
        outln!("players:");
        for (name, spec) in &tally.specs {
            let spec = if spec.is_empty() { "?" } else { spec };
            outln!(
                "  {} = {}",
                output::peer_full(name),
                output::peer_full(spec)
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(text: &str) -> Vec<Record> {
        pentago::parse_records(text).unwrap()
    }

    const TWO_GAMES: &str = "[Black \"a\"]\n[BlackSpec \"random\"]\n[White \"b\"]\n\
        [Result \"black\"]\n[Termination \"forfeit white time\"]\n\nblack\n\n\
        [Black \"b\"]\n[White \"a\"]\n[Result \"draw\"]\n[Termination \"adjudicated table\"]\n\ndraw\n";

    #[test]
    fn results_are_tallied_by_colour_and_specs_kept() {
        let mut tally = Tally::default();
        for record in records(TWO_GAMES) {
            tally.add(&record).unwrap();
        }
        assert_eq!(tally.rated, 2);
        let encounters = tally.encounters();
        assert_eq!(encounters.len(), 2);
        assert_eq!(encounters[0].a, "a");
        assert_eq!(encounters[0].score.wins, 1);
        assert_eq!(encounters[1].a, "b");
        assert_eq!(encounters[1].score.draws, 1);
        assert_eq!(tally.specs["a"], "random");
        assert_eq!(tally.specs["b"], "");
    }

    #[test]
    fn one_name_for_two_specs_is_refused_and_unfinished_games_are_counted_apart() {
        let mut tally = Tally::default();
        let text = "[Black \"a\"]\n[BlackSpec \"random\"]\n[White \"b\"]\n[Result \"ongoing\"]\n\nongoing\n\n\
            [Black \"a\"]\n[BlackSpec \"uct\"]\n[White \"b\"]\n[Result \"ongoing\"]\n\nongoing\n";
        let both = records(text);
        tally.add(&both[0]).unwrap();
        assert_eq!((tally.rated, tally.unfinished), (0, 1));
        assert!(tally.encounters().is_empty());
        let error = tally.add(&both[1]).unwrap_err().to_string();
        assert!(error.contains("two specifications"), "{error}");
    }
}
