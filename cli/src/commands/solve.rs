//! `pentagrid solve`: the exact value and a best move of positions, which method decided, and
//! on request the value of every move. A position the tablebase covers (Irving's slices: 0–6
//! stones shipped, more with --tablebase) is answered from it at once (method `table`). Below
//! the midsolver's 18 stones the deep solver decides (a search whose 18-stone leaves the
//! midsolver values), with progress on standard error.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use clap::Args;
use pentago::{
    DeepLimits, DeepProgress, DeepSolution, DeepSolver, ExactOracle, LeafTable, MID_MIN_STONES,
    Move, Position, Solution, SolveLimits, SolveMethod, Solver, Value, best_of, move_groups, prove,
};
use pentagrid_tablebase::{MAX_SLICE, Tablebase};
use serde_json::json;

use super::solve_cluster::{self, ClusterSolve};
use super::target::Target;
use crate::input;
use crate::output::{errln, outln};

/// Solve positions exactly: win, draw or loss for the side to move, with a best move.
#[derive(Args)]
pub struct SolveArgs {
    /// The position, `start`, or `-` to read positions from standard input.
    position: String,
    /// Give up (value "unknown") after this many search nodes (below the midsolver's 18
    /// stones: the deep solver's nodes above its leaves; from 18 on the midsolver always decides).
    #[arg(long, default_value_t = 200_000_000)]
    max_nodes: u64,
    /// Give up after this many seconds (below 18 stones, as --max-nodes; a leaf's midsolve
    /// under way is finished first).
    #[arg(long)]
    seconds: Option<f64>,
    /// Below 18 stones: start from the leaf values saved by `--save` (a resumed solve).
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
    /// Below 18 stones: save the leaf values learnt to FILE at the end, decided or not, to
    /// resume with `--resume` (the stable format `# pentagrid-leaves 1`, see the README).
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Transposition table size: 2^BITS entries of 16 bytes.
    #[arg(long, default_value_t = 22, value_parser = clap::value_parser!(u32).range(10..=32))]
    table_bits: u32,
    /// Also print the exact value of every move (moves reaching the same position grouped).
    #[arg(long)]
    moves: bool,
    /// Write a proof DAG to FILE (one position): of the win from 18 stones on (format 1);
    /// below 18 stones of the exact value, with 18-stone leaves (format 2). Check it with
    /// `pentagrid check-proof FILE`.
    #[arg(long, value_name = "FILE")]
    proof: Option<PathBuf>,
    /// Refuse to write a proof with more nodes than this.
    #[arg(long, default_value_t = 1_000_000, requires = "proof")]
    max_proof_nodes: usize,
    /// Print JSON (one object per position).
    #[arg(long)]
    json: bool,
    /// Below 18 stones: queue a deep solve on the coordinator (--coordinator, --token-file)
    /// and follow it; its 18-stone leaves are solved by the cluster's workers. With --local,
    /// on an embedded cluster of --workers workers instead.
    #[arg(long)]
    cluster: bool,
    /// Leaves per job of a deep solve on a cluster (0: the coordinator's default, 8).
    #[arg(long, default_value_t = 0)]
    batch: u32,
    /// Stones of the leaves of a deep solve on a cluster (0: the default, 18; more makes
    /// leaves cheaper and the coordinator's top of the search larger).
    #[arg(long, default_value_t = 0)]
    leaf_stones: u32,
    // Its --tablebase options are also where the table answers come from.
    #[command(flatten)]
    target: Target,
}

pub fn run(args: &SolveArgs) -> Result<()> {
    if args.cluster || args.target.local {
        let request = ClusterSolve {
            position: &args.position,
            batch: args.batch,
            leaf_stones: args.leaf_stones,
            proof: args.proof.as_deref(),
            max_proof_nodes: args.max_proof_nodes,
            table_bits: args.table_bits,
            json: args.json,
        };
        return solve_cluster::run(&args.target, &request);
    }
    let (limits, deep_limits) = limits(args)?;
    let positions = input::positions(&args.position)?;
    let mut solvers = Solvers {
        exact: Solver::new(args.table_bits),
        deep: deep_solver(args)?,
        limits,
        deep_limits,
    };
    if args.proof.is_some() {
        check_proof_args(args, &positions)?;
    }
    // Opened only when some position could be covered (reading a large user folder's block
    // indexes is not free).
    let table = if positions.iter().any(|p| p.stone_count() <= MAX_SLICE) {
        Some(args.target.table.options.open()?)
    } else {
        None
    };
    for position in positions {
        let from_table = match &table {
            Some(table) => table_solution(table, &position)?,
            None => None,
        };
        let (solution, deep_solution, table_moves) = match from_table {
            Some((solution, moves)) => (solution, None, moves),
            None => {
                let (solution, deep_solution) = solvers.solve(&position);
                (solution, deep_solution, None)
            }
        };
        if let Some(path) = &args.proof {
            // Proven after the solve, which it reuses: the statistics printed are the solve's
            // work, not the cheap second pass that builds the proof from what it learnt. A
            // solve the limits stopped is not given the limits a second time.
            ensure!(
                solution.value.is_some(),
                "no proof for {position}: not solved within --max-nodes and --seconds"
            );
            write_proof(args, path, &position, &mut solvers)?;
        }
        let moves = if args.moves && !position.is_over() {
            let values = match table_moves {
                Some(values) => values.into_iter().map(|(m, v)| (m, Some(v))).collect(),
                None => solvers.exact.solve_moves(&position, solvers.limits),
            };
            grouped_values(&position, &values)
        } else {
            Vec::new()
        };
        if args.json {
            let moves = args.moves.then_some(moves.as_slice());
            let line = solution_json(&position, &solution, deep_solution.as_ref(), moves);
            outln!("{line}");
        } else {
            print_solution(&position, &solution, deep_solution.as_ref(), &moves)?;
        }
    }
    if let Some(path) = &args.save {
        save_leaves(&solvers.deep, path)?;
    }
    Ok(())
}

/// Every move with its exact value.
type MoveValues = Vec<(Move, Value)>;

/// The tablebase's answer for `position` when it covers it (a finished game is left to the
/// solver, which reports it as such): the solution, with a best move where the tablebase also
/// covers the children, and the values of every move then.
fn table_solution(
    table: &Tablebase,
    position: &Position,
) -> Result<Option<(Solution, Option<MoveValues>)>> {
    if position.is_over() {
        return Ok(None);
    }
    let start = Instant::now();
    let Some(value) = table
        .probe(position)
        .with_context(|| format!("reading the tablebase for {position}"))?
    else {
        return Ok(None);
    };
    let moves = table
        .probe_moves(position)
        .with_context(|| format!("reading the tablebase for the moves of {position}"))?;
    let best = match moves.as_deref().and_then(best_of) {
        Some((mv, best)) => {
            ensure!(
                best == value,
                "the tablebase is inconsistent at {position}: value {value}, best move {best}"
            );
            Some(mv)
        }
        None => None,
    };
    let solution = Solution {
        value: Some(value),
        best,
        nodes: 0,
        seconds: start.elapsed().as_secs_f64(),
        method: SolveMethod::Table,
    };
    Ok(Some((solution, moves)))
}

/// The local solvers with their limits: alpha-beta and the midsolver from 18 stones on, the
/// deep solver below.
struct Solvers {
    exact: Solver,
    deep: DeepSolver,
    limits: SolveLimits,
    deep_limits: DeepLimits,
}

/// The limits of `--max-nodes` and `--seconds`, checked: the exact solvers' and the deep
/// solver's.
fn limits(args: &SolveArgs) -> Result<(SolveLimits, DeepLimits)> {
    ensure!(args.max_nodes > 0, "--max-nodes must be at least 1");
    let max_time = args
        .seconds
        .map(|s| {
            ensure!(
                s > 0.0 && s <= 1e6,
                "--seconds must be more than 0 and at most 1000000"
            );
            Ok(Duration::from_secs_f64(s))
        })
        .transpose()?;
    let limits = SolveLimits {
        max_nodes: args.max_nodes,
        max_time,
    };
    let deep_limits = DeepLimits {
        max_time,
        max_nodes: Some(args.max_nodes),
        ..DeepLimits::default()
    };
    Ok((limits, deep_limits))
}

impl Solvers {
    /// The solution of `position`, by the deep solver where it decides (with its own answer).
    fn solve(&mut self, position: &Position) -> (Solution, Option<DeepSolution>) {
        if deep_range(position) {
            let d = self.deep.solve(position, self.deep_limits.clone());
            (deep_answer(&d), Some(d))
        } else {
            (self.exact.solve(position, self.limits), None)
        }
    }

    /// A proof of `root`'s value in its text form, with its node count.
    fn prove(&mut self, root: &Position, max_proof_nodes: usize) -> Result<(String, usize)> {
        if deep_range(root) {
            let proof = self
                .deep
                .prove(root, self.deep_limits.clone())
                .with_context(|| format!("no proof for {root}"))?;
            ensure!(
                proof.nodes.len() <= max_proof_nodes,
                "no proof for {root}: it needs {} nodes, more than --max-proof-nodes",
                proof.nodes.len()
            );
            Ok((proof.to_text(), proof.nodes.len()))
        } else {
            let proof = prove(root, &mut self.exact, self.limits, max_proof_nodes)
                .with_context(|| format!("no proof for {root}"))?;
            Ok((proof.to_text(), proof.nodes.len()))
        }
    }
}

/// Checks `--proof`'s arguments before anything is solved: one position, a positive limit.
fn check_proof_args(args: &SolveArgs, positions: &[Position]) -> Result<()> {
    ensure!(
        positions.len() == 1,
        "--proof takes one position, not a list"
    );
    ensure!(
        args.max_proof_nodes > 0,
        "--max-proof-nodes must be at least 1"
    );
    Ok(())
}

/// Writes the proof `--proof` asks for (of the one position given, solved already) to `path`.
fn write_proof(
    args: &SolveArgs,
    path: &Path,
    position: &Position,
    solvers: &mut Solvers,
) -> Result<()> {
    let (text, nodes) = solvers.prove(position, args.max_proof_nodes)?;
    std::fs::write(path, text)
        .with_context(|| format!("writing the proof to {}", path.display()))?;
    errln!("proof of {nodes} nodes written to {}", path.display());
    Ok(())
}

/// A solution as one JSON object, with its deep solve and, when asked for, its moves' values.
fn solution_json(
    position: &Position,
    solution: &Solution,
    deep_solution: Option<&DeepSolution>,
    moves: Option<&[(Vec<Move>, Option<Value>)]>,
) -> serde_json::Value {
    let mut line = json!({
        "position": position.to_string(),
        "to_move": position.side_to_move(),
        "solution": solution,
    });
    if let Some(d) = deep_solution {
        line["deep"] = deep_json(d);
    }
    if let Some(moves) = moves {
        line["moves"] = moves
            .iter()
            .map(|(group, value)| {
                let names: Vec<String> = group.iter().map(Move::to_string).collect();
                json!({"moves": names, "value": value})
            })
            .collect();
    }
    line
}

/// A solution as a line, then one line per group of moves with their value.
fn print_solution(
    position: &Position,
    solution: &Solution,
    deep_solution: Option<&DeepSolution>,
    moves: &[(Vec<Move>, Option<Value>)],
) -> Result<()> {
    let value = solution.value.map_or("unknown", |v| v.name());
    let best = solution
        .best
        .map_or_else(|| "-".to_owned(), |m| m.to_string());
    let deep_part = deep_solution.map_or_else(String::new, |d| {
        let p = &d.progress;
        format!(
            " bounds {} leaves {} quick {} midsolved",
            d.bounds, p.leaves_quick, p.leaves_midsolved
        )
    });
    outln!(
        "{position} {value} best {best} by {} nodes {} time {:.3}s{deep_part}",
        solution.method.name(),
        solution.nodes,
        solution.seconds
    );
    print_groups(moves)
}

/// Prints move groups with their values, a line each (`  win     c4-1R c4-1L`).
pub(super) fn print_groups(groups: &[(Vec<Move>, Option<Value>)]) -> Result<()> {
    for (group, value) in groups {
        let names: Vec<String> = group.iter().map(Move::to_string).collect();
        let value = value.map_or("unknown", |v| v.name());
        outln!("  {value:<7} {}", names.join(" "));
    }
    Ok(())
}

/// Saves the deep solver's leaf values to `path` (`--save`).
fn save_leaves(deep: &DeepSolver, path: &Path) -> Result<()> {
    std::fs::write(path, deep.leaves().to_text())
        .with_context(|| format!("writing the leaves to {}", path.display()))?;
    errln!(
        "{} leaf values saved to {}",
        deep.leaves().len(),
        path.display()
    );
    Ok(())
}

/// The deep solver, resumed from `--resume`'s leaves, reporting progress on standard error
/// at most every two seconds.
fn deep_solver(args: &SolveArgs) -> Result<DeepSolver> {
    let mut deep = DeepSolver::new(args.table_bits);
    if let Some(path) = &args.resume {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let leaves = LeafTable::parse(&text)
            .with_context(|| format!("{} is not a leaves file", path.display()))?;
        errln!(
            "resuming with {} leaf values from {}",
            leaves.len(),
            path.display()
        );
        deep = deep.with_leaves(leaves);
    }
    let mut last = Instant::now();
    Ok(deep.with_progress(move |p: &DeepProgress| {
        if last.elapsed() >= Duration::from_secs(2) {
            last = Instant::now();
            errln!(
                "deep: {:.0}s nodes {} leaves {} quick {} midsolved {} reused; value {}",
                p.seconds,
                p.nodes,
                p.leaves_quick,
                p.leaves_midsolved,
                p.leaves_reused,
                p.bounds()
            );
        }
    }))
}

/// The fewest stones the deep solver is used from: below, its two-ply-and-more top with an
/// attempt at every leaf cannot finish, and alpha-beta within the limits answers as before.
const DEEP_MIN_STONES: u32 = 14;

/// Whether the deep solver decides `position` (14 to 17 stones).
fn deep_range(position: &Position) -> bool {
    (DEEP_MIN_STONES..MID_MIN_STONES).contains(&position.stone_count())
}

/// A deep solve as the solver's answer.
fn deep_answer(d: &DeepSolution) -> Solution {
    Solution {
        value: d.value,
        best: d.best,
        nodes: d.progress.nodes,
        seconds: d.progress.seconds,
        method: SolveMethod::Deep,
    }
}

fn deep_json(d: &DeepSolution) -> serde_json::Value {
    let p = &d.progress;
    json!({
        "lower": d.bounds.lower,
        "upper": d.bounds.upper,
        "leaves_quick": p.leaves_quick,
        "leaves_midsolved": p.leaves_midsolved,
        "leaves_reused": p.leaves_reused,
    })
}

/// The moves grouped by the position they reach (see [`move_groups`]), best value first, each
/// group with its value (unknown where the search hit the limits).
pub(super) fn grouped_values(
    position: &Position,
    values: &[(Move, Option<Value>)],
) -> Vec<(Vec<Move>, Option<Value>)> {
    let mut groups: Vec<(Vec<Move>, Option<Value>)> = move_groups(position, false)
        .into_iter()
        .map(|group| {
            let value = values
                .iter()
                .find(|(m, _)| *m == group[0])
                .and_then(|v| v.1);
            (group, value)
        })
        .collect();
    groups.sort_by_key(|(_, value)| std::cmp::Reverse(value.map(Value::as_i8)));
    groups
}
