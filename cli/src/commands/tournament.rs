//! `pentagrid tournament`: round robins and gauntlets on a cluster — queued as one match per
//! pairing, followed to the end and rated — and the stored ones listed and reprinted. The
//! workflows are [`pentagrid_client::tournaments`]; this module parses and prints.

use anyhow::Result;
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};

use pentago::{Adjudication, NamedPlayer, OpeningSource, Record, TimeLimit, TournamentKind};
use pentagrid_client::tournaments::{self, Tournament, TournamentPlan};
use serde_json::json;

use super::games::{GamesOut, today};
use super::matchplay::state_name;
use super::ratings::{RatingFlags, list_json, print_list};
use super::target::Target;
use crate::output::{self, outln};

/// Tournaments of engine configurations on a cluster: a round robin (everyone against
/// everyone) or a gauntlet (the first player against each other), every pairing a match of
/// game pairs from the same openings, stored and rated together.
#[derive(Args)]
pub struct TournamentArgs {
    #[command(subcommand)]
    command: TournamentCommand,
}

#[derive(Subcommand)]
enum TournamentCommand {
    /// Queue a tournament, follow it until every match ends, and print its rating list.
    Start {
        /// `round-robin` or `gauntlet` (the first --player meets each other one).
        #[arg(long, default_value = "round-robin")]
        kind: TournamentKind,
        /// A player (`uct:...`, `flat:playouts=N`, `random`, `engine:NAME`, …), optionally
        /// named: `NAME=SPEC` (output shows the name); two or more.
        #[arg(long = "player", value_name = "PLAYER", required = true)]
        players: Vec<NamedPlayer>,
        /// Game pairs per match.
        #[arg(long, default_value_t = 20)]
        pairs: u64,
        /// Openings: `random:plies=N`, `book:plies=N`, `file:PATH` (a suite, one position or
        /// move sequence a line) or `exact:stones=N,value=win|draw|loss` (see `match
        /// --openings`); every match plays the same ones.
        #[arg(long, default_value = "random:plies=2")]
        openings: OpeningSource,
        /// End each game as soon as its position's exact value is known: `exact` (from 20
        /// stones on, 0.1 s of solving a position) or `exact:stones=N,budget=SECONDS` (see
        /// `match --adjudicate`).
        #[arg(long, value_name = "exact[:stones=N,budget=SECONDS]")]
        adjudicate: Option<Adjudication>,
        /// Seed of the openings.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Every game's wall-clock time limit, refereed by the workers: `move:SECONDS` or
        /// `game:BASE+INCREMENT`; needed with `engine:NAME` players.
        #[arg(long, value_name = "LIMIT")]
        time: Option<TimeLimit>,
        /// Return once the matches are queued instead of following them.
        #[arg(long)]
        detach: bool,
        /// Append every game to this file as a game record (docs/game-records.md) as soon as
        /// its pair is stored.
        #[arg(long, value_name = "FILE", conflicts_with = "detach")]
        games_out: Option<PathBuf>,
        #[command(flatten)]
        rating: RatingFlags,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: Target,
    },
    /// Reprint a stored tournament: its matches and its rating list.
    Status {
        /// The tournament id `tournament start` printed.
        id: u64,
        #[command(flatten)]
        rating: RatingFlags,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: Target,
    },
    /// List the stored tournaments, newest first.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: Target,
    },
}

pub fn run(args: &TournamentArgs) -> Result<()> {
    match &args.command {
        TournamentCommand::Start {
            kind,
            players,
            pairs,
            openings,
            adjudicate,
            seed,
            time,
            detach,
            games_out,
            rating,
            json,
            target,
        } => {
            let plan = TournamentPlan {
                kind: *kind,
                players: players.clone(),
                pairs: *pairs,
                openings: openings.clone(),
                seed: *seed,
                time: *time,
                adjudicate: *adjudicate,
            };
            let follow = Follow {
                detach: *detach,
                games_out: games_out.as_deref(),
            };
            start(&plan, &follow, rating, *json, target)
        }
        TournamentCommand::Status {
            id,
            rating,
            json,
            target,
        } => {
            let tournament =
                target.read(async |client| Ok(tournaments::status(client, *id).await?))?;
            show(&tournament, rating, *json)
        }
        TournamentCommand::List { json, target } => {
            let all = target.read(async |client| Ok(tournaments::all(client).await?))?;
            list(&all, *json)
        }
    }
}

/// Whether and how `tournament start` follows the tournament it queued.
struct Follow<'a> {
    /// Return once queued.
    detach: bool,
    /// Where games are appended as their pairs are stored.
    games_out: Option<&'a Path>,
}

fn start(
    plan: &TournamentPlan,
    follow: &Follow<'_>,
    rating: &RatingFlags,
    as_json: bool,
    target: &Target,
) -> Result<()> {
    let mut games_out = follow.games_out.map(GamesOut::open).transpose()?;
    let run = async |client: &pentagrid_client::Client| {
        let id = tournaments::start(client, plan).await?;
        if as_json {
            outln!("{}", json!({ "tournament_id": id }));
        } else {
            outln!(
                "tournament {id}: {} {} players, {} pairs per match queued \
                 (`pentagrid tournament status {id}` reprints it)",
                plan.kind,
                plan.players.len(),
                plan.pairs
            );
        }
        if follow.detach {
            return Ok(None);
        }
        let mut tell = |(done, all): (u64, u64)| {
            if as_json {
                output::progress_line(format_args!(
                    "{}",
                    json!({"pairs_done": done, "pairs": all})
                ))
            } else {
                output::progress_line(format_args!("{done} of {all} pairs stored"))
            }
        };
        let Some(out) = games_out.as_mut() else {
            return Ok(Some(tournaments::follow(client, id, &mut tell).await?));
        };
        let mut write = |records: &[Record]| out.append_io(records);
        let date = today();
        Ok(Some(
            tournaments::follow_with_games(client, id, &mut tell, &date, &mut write).await?,
        ))
    };
    // Detached on an embedded cluster, the matches wait in its database for the next --local
    // command (they resume as any queued match does).
    match target.run(run)? {
        Some(tournament) => show(&tournament, rating, as_json),
        None => Ok(()),
    }
}

fn show(tournament: &Tournament, rating: &RatingFlags, as_json: bool) -> Result<()> {
    let ratings = tournament.ratings(&rating.options())?;
    let (done, all) = tournament.progress();
    if as_json {
        let matches: Vec<_> = tournament
            .matches
            .iter()
            .map(|m| {
                let score = &m.score.games;
                json!({
                    "match_id": m.id, "a": output::player_spec(&m.a),
                    "b": output::player_spec(&m.b), "a_name": pentago::player_label(&m.a),
                    "b_name": pentago::player_label(&m.b), "pairs": m.pairs,
                    "pairs_done": m.pairs_done, "wins": score.wins, "draws": score.draws,
                    "losses": score.losses, "state": state_name(m.state),
                })
            })
            .collect();
        outln!(
            "{}",
            json!({
                "tournament_id": tournament.id, "kind": tournament.kind,
                "players": tournament.players(), "finished": tournament.finished(),
                "pairs_done": done, "pairs": all, "matches": matches,
                "ratings": list_json(&ratings),
            })
        );
        return Ok(());
    }
    outln!(
        "tournament {}  ({}, {} players, {} of {} pairs stored{})",
        tournament.id,
        output::peer(&tournament.kind),
        tournament.players().len(),
        done,
        all,
        if tournament.finished() {
            ""
        } else {
            ", running"
        }
    );
    for m in &tournament.matches {
        outln!(
            "  match {}: {} vs {}  {}-{}-{}  ({} of {} pairs, {})",
            m.id,
            output::player(&m.a),
            output::player(&m.b),
            m.score.games.wins,
            m.score.games.draws,
            m.score.games.losses,
            m.pairs_done,
            m.pairs,
            state_name(m.state)
        );
    }
    print_list(&ratings, rating.long)
}

fn list(all: &[Tournament], as_json: bool) -> Result<()> {
    for t in all {
        let (done, pairs) = t.progress();
        if as_json {
            outln!(
                "{}",
                json!({
                    "tournament_id": t.id, "kind": t.kind, "players": t.players(),
                    "matches": t.matches.len(), "pairs_done": done, "pairs": pairs,
                    "finished": t.finished(),
                })
            );
        } else {
            let players: Vec<String> = t.players().iter().map(|p| output::player(p)).collect();
            outln!(
                "tournament {}  {}  {} of {} pairs{}  {}",
                t.id,
                output::peer(&t.kind),
                done,
                pairs,
                if t.finished() { "" } else { " (running)" },
                players.join(", ")
            );
        }
    }
    if all.is_empty() && !as_json {
        outln!("no tournaments stored");
    }
    Ok(())
}
