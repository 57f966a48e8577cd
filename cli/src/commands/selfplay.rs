//! `pentagrid selfplay`: engine-vs-engine games on this machine, each printed with its result.

use anyhow::{Result, ensure};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

use pentago::{Color, NamedPlayer, Player, Status, UctConfig, play_game, splitmix64};
use pentagrid_client::game_records::played_game_record;
use serde_json::json;

use super::games::{GamesOut, today};
use crate::input;
use crate::output::outln;

/// Play games between engines locally and print each game's moves and result.
#[derive(Args)]
pub struct SelfplayArgs {
    /// Number of games.
    #[arg(long, default_value_t = 1)]
    games: u64,
    /// Engine configuration for both sides (`uct:...`).
    #[arg(long, default_value = "uct:playouts=20000")]
    config: UctConfig,
    /// Player A, black in the first game: overrides --config (`uct:...`, `flat:playouts=N`,
    /// `random`), optionally named: `NAME=SPEC`.
    #[arg(long)]
    black: Option<NamedPlayer>,
    /// Player B, white in the first game: overrides --config.
    #[arg(long)]
    white: Option<NamedPlayer>,
    /// Swap colours every game (A is white in even-numbered games).
    #[arg(long)]
    alternate: bool,
    /// Start every game from this position.
    #[arg(long, default_value = "start")]
    from: String,
    /// Random seed (game `i` uses a seed derived from it).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads (UCT trees) per search (all cores by default).
    #[arg(long)]
    threads: Option<usize>,
    /// Append every game to this file as a game record (docs/game-records.md) as it ends.
    #[arg(long, value_name = "FILE")]
    games_out: Option<PathBuf>,
    /// Print one JSON object per game.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &SelfplayArgs) -> Result<()> {
    ensure!(args.games > 0, "--games must be at least 1");
    let start = input::parse_position(&args.from)?;
    ensure!(!start.is_over(), "the game is already over in {start}");
    let default = || NamedPlayer::from(Player::Uct(args.config.clone()));
    let a = args.black.clone().unwrap_or_else(default);
    let b = args.white.clone().unwrap_or_else(default);
    if let Some(engine) = [&a.player, &b.player].into_iter().find_map(Player::engine) {
        anyhow::bail!(
            "engine:{engine} plays only in matches on a cluster (`pentagrid match --time …`), \
             not in self-play"
        );
    }
    let mut games_out = args.games_out.as_deref().map(GamesOut::open).transpose()?;
    let date = today();
    let pool = super::thread_pool(args.threads)?;
    let threads = pool.current_num_threads();
    let bar = ProgressBar::new(args.games).with_style(
        ProgressStyle::with_template("{spinner} game {pos}/{len} [{bar:30}] {elapsed}")
            .expect("valid template"),
    );
    // Scores of A: wins, draws, losses.
    let mut score = [0u64; 3];
    for game_number in 1..=args.games {
        let a_is_black = !args.alternate || game_number % 2 == 1;
        let (black, white) = if a_is_black { (&a, &b) } else { (&b, &a) };
        let seed = splitmix64(args.seed ^ game_number);
        let game = pool.install(|| play_game(&start, &black.player, &white.player, seed, threads));
        if let Some(out) = games_out.as_mut() {
            let round = format!("game {game_number}");
            out.append(&[played_game_record(
                &game, black, white, "selfplay", &round, &date,
            )])?;
        }
        let a_color = if a_is_black {
            Color::Black
        } else {
            Color::White
        };
        score[match game.result {
            Status::Won(color) if color == a_color => 0,
            Status::Draw => 1,
            _ => 2,
        }] += 1;
        bar.suspend(|| -> Result<()> {
            if args.json {
                let line = json!({
                    "game": game_number,
                    "black": black.spec(),
                    "white": white.spec(),
                    "black_name": black.label(),
                    "white_name": white.label(),
                    "record": game,
                });
                outln!("{line}");
            } else {
                let moves: Vec<String> = game.moves.iter().map(ToString::to_string).collect();
                outln!(
                    "game {game_number}: {} -> {} ({} moves)",
                    moves.join(" "),
                    game.result,
                    game.moves.len()
                );
            }
            Ok(())
        })?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    if !args.json {
        let [wins, draws, losses] = score;
        let points = wins as f64 + 0.5 * draws as f64;
        outln!("A = {}", a.label());
        outln!("B = {}", b.label());
        outln!(
            "A scored {points} / {} ({:.1}%): {wins} wins, {draws} draws, {losses} losses",
            args.games,
            100.0 * points / args.games as f64
        );
    }
    Ok(())
}
