//! Why a result is refused: one variant per refusal, with the data that shows it. Tests and
//! callers match on the variants; the wire status is chosen in `api/errors.rs`.

use pentago::{Color, Move, PlayError, Position, SolveMethod, Status, Value};
use thiserror::Error;

use pentagrid_model::{MAX_MOVE_MILLIS, MAX_SCORE_MILLI, UNKNOWN_SCORE};

use super::MAX_RESULT_SECONDS;

/// Why a result was refused: what is wrong with it, with the data that shows it.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum InvalidResult {
    /// The result is of another kind than its job.
    #[error("the result is not of the job's kind")]
    WrongKind,
    /// A deep-leaves result does not give one value per leaf.
    #[error("{values} values for {leaves} leaves")]
    LeafValues {
        /// Values given.
        values: usize,
        /// Leaves of the job.
        leaves: usize,
    },
    /// A deep-leaves result gives rotated values for some leaves but not one list per leaf.
    #[error("rotated values for {lists} leaves of {leaves}")]
    RotatedLists {
        /// Lists given.
        lists: usize,
        /// Leaves of the job.
        leaves: usize,
    },
    /// A deep-leaves result gives no value to a rotated variant whose game goes on.
    #[error("leaf {leaf}: the rotated variant {variant} goes on but has no value")]
    RotatedMissing {
        /// The leaf (from 1).
        leaf: usize,
        /// The variant.
        variant: Position,
    },
    /// A deep-leaves result gives a value to a rotated variant whose game is over.
    #[error("leaf {leaf}: the game is over in the rotated variant {variant}, yet it has a value")]
    RotatedOver {
        /// The leaf (from 1).
        leaf: usize,
        /// The variant.
        variant: Position,
    },
    /// A deep-leaves result gives one position (up to symmetry) two values.
    #[error("{position} is given two values, {first} and {second}")]
    ConflictingLeafValues {
        /// The position.
        position: Position,
        /// The first value given.
        first: Value,
        /// The other.
        second: Value,
    },
    /// An analysis reports a time that is not a real duration.
    #[error("seconds {0} is not a duration from 0 to {MAX_RESULT_SECONDS}")]
    Seconds(f64),
    /// An analysis of a position without a win at once has no rows.
    #[error("an analysis result needs at least one move row")]
    NoRows,
    /// More simulations than the job's budget.
    #[error("{simulations} simulations exceed the budget of {budget}")]
    SimulationsOverBudget {
        /// Simulations reported.
        simulations: u64,
        /// The job's playouts.
        budget: u64,
    },
    /// More games in the rows than the job's budget.
    #[error("{games} games in the table exceed the budget of {budget}")]
    GamesOverBudget {
        /// Games in the rows.
        games: u64,
        /// The job's playouts.
        budget: u64,
    },
    /// A move has two rows.
    #[error("move {0} appears twice")]
    RepeatedMove(Move),
    /// A row counts more wins and draws than games.
    #[error("move {mv}: wins {wins} + draws {draws} exceed games {games}")]
    DecidedOverGames {
        /// The row's move.
        mv: Move,
        /// Its games.
        games: u64,
        /// Its wins.
        wins: u64,
        /// Its draws.
        draws: u64,
    },
    /// A count (`what`) overflows.
    #[error("{what} overflow")]
    Overflow {
        /// What overflows.
        what: &'static str,
    },
    /// The counts of a move (merged with its symmetric moves) overflow.
    #[error("the counts of move {0} overflow")]
    CountsOverflow(Move),
    /// A move cannot be played where the result says it was.
    #[error("move {mv} is illegal in {position}: {error}")]
    IllegalMove {
        /// The move.
        mv: Move,
        /// Where it was played.
        position: Position,
        /// Why it cannot be.
        error: PlayError,
    },
    /// A game's move (`ply` counted from 1) cannot be played.
    #[error("move {ply} ({mv}) is illegal in {position}: {error}")]
    IllegalGameMove {
        /// Its number in the game, from 1.
        ply: usize,
        /// The move.
        mv: Move,
        /// Where it was played.
        position: Position,
        /// Why it cannot be.
        error: PlayError,
    },
    /// A game has no moves or more than a board holds.
    #[error("a game has 1 to 36 moves, not {0}")]
    GameLength(usize),
    /// A game's moves do not finish it.
    #[error("the game is not over after its moves ({0})")]
    GameNotOver(Position),
    /// A game's moves end in another result than reported.
    #[error("the moves end in {found}, not {reported}")]
    WrongResult {
        /// How the moves end.
        found: Status,
        /// What the result says.
        reported: Status,
    },
    /// A forfeit by a side that a built-in player played (only external engines forfeit).
    #[error("a forfeit by {0}, a built-in player")]
    ForfeitByBuiltIn(Color),
    /// A forfeit after the game was already over.
    #[error("a forfeit in a finished game ({0})")]
    ForfeitedGameOver(Position),
    /// A forfeited game whose result is not a win for the other side.
    #[error("a forfeit by {loser} is a win for the other side, not {reported}")]
    ForfeitResult {
        /// Who forfeited.
        loser: Color,
        /// What the result says.
        reported: Status,
    },
    /// Forfeits or engine output for a pair that was not refereed (it has no time limit).
    #[error(
        "game notes (a forfeit, engine output or a time scale) for a pair without a time limit"
    )]
    NotesUnrefereed,
    /// An adjudicated game in a pair whose job did not ask for adjudication.
    #[error("an adjudicated game, but the job did not ask for adjudication")]
    AdjudicationNotAsked,
    /// A game both forfeited and adjudicated.
    #[error("a game both forfeited and adjudicated")]
    ForfeitedAndAdjudicated,
    /// An adjudication after the game was over, below the job's stone count, or from a source
    /// that does not value such a position.
    #[error("no adjudication by {} at {position} ({} stones)", by.name(), position.stone_count())]
    BadAdjudication {
        /// The last position of the game.
        position: Position,
        /// Where the value is said to come from.
        by: SolveMethod,
    },
    /// An adjudicated game reported as still in progress.
    #[error("an adjudicated game's result must be a win or a draw")]
    AdjudicatedOngoing,
    /// An adjudicated game with moves past its end.
    #[error("an adjudicated game goes on after it was over ({0})")]
    AdjudicatedGameOver(Position),
    /// A game's move times are not one per move played.
    #[error(
        "move_millis has {times} times for the {moves} moves played: expected one per move, or none"
    )]
    MoveTimeCount {
        /// Times given.
        times: usize,
        /// Moves of the game.
        moves: usize,
    },
    /// A move is said to have taken longer than any move may.
    #[error(
        "move_millis: move {ply} took {millis} ms, over the {MAX_MOVE_MILLIS} ms a move may take"
    )]
    MoveTimeTooLong {
        /// The move (from 1).
        ply: usize,
        /// Its reported time.
        millis: u32,
    },
    /// A game's move scores are not one per move played.
    #[error(
        "move_score_milli has {scores} scores for the {moves} moves played: expected one per \
         move, or none"
    )]
    MoveScoreCount {
        /// Scores given.
        scores: usize,
        /// Moves of the game.
        moves: usize,
    },
    /// A move's score is neither a score nor the unknown sentinel.
    #[error(
        "move_score_milli: move {ply} has score {milli}: expected 0 to {MAX_SCORE_MILLI} \
         thousandths, or {UNKNOWN_SCORE} for unknown"
    )]
    MoveScoreOutOfRange {
        /// The move (from 1).
        ply: usize,
        /// Its reported score.
        milli: u32,
    },
    /// One game of a pair (`game` counted from 1) is wrong.
    #[error("game {game}: {error}")]
    PairGame {
        /// The game, 1 or 2.
        game: usize,
        /// What is wrong with it.
        error: Box<InvalidResult>,
    },
    /// Accuracy judged from another threshold than the job's.
    #[error("accuracy judged from {found} stones, not the job's {asked}")]
    AccuracyStones {
        /// The report's threshold.
        found: u32,
        /// The job's.
        asked: u32,
    },
    /// The job asked for accuracy and the result has none.
    #[error("the job asked for accuracy, the result has none")]
    AccuracyMissing,
    /// The result has accuracy the job did not ask for.
    #[error("accuracy was not asked for")]
    AccuracyNotAsked,
    /// A player's judged moves differ from the games'.
    #[error(
        "accuracy of {player}: {reported} moves judged, but the games have {judged} from {min_stones} stones on"
    )]
    AccuracyMoves {
        /// `A` or `B`.
        player: &'static str,
        /// Moves the report judged.
        reported: u32,
        /// Moves the games have past the threshold.
        judged: u32,
        /// The threshold.
        min_stones: u32,
    },
    /// A player has more drops than judged moves.
    #[error("accuracy of {player}: {drops} drops exceed {moves} moves")]
    AccuracyDrops {
        /// `A` or `B`.
        player: &'static str,
        /// Drops reported.
        drops: u32,
        /// Moves judged.
        moves: u32,
    },
    /// Two moves reaching the same position are given different values.
    #[error("{0} reaches a position already given another value")]
    ConflictingValues(Move),
    /// Not one verdict per candidate.
    #[error("{verdicts} verdicts for {candidates} candidates")]
    VerdictCount {
        /// Verdicts given.
        verdicts: usize,
        /// Candidates in the job.
        candidates: usize,
    },
    /// A puzzle (`candidate` counted from 1) is about another position than its candidate.
    #[error("candidate {candidate}: the puzzle is about another position")]
    PuzzleOfAnotherPosition {
        /// The candidate, from 1.
        candidate: usize,
    },
    /// A puzzle's proof does not hold by the rules.
    #[error("candidate {candidate}: {why}")]
    ProofFails {
        /// The candidate, from 1.
        candidate: usize,
        /// What the engine's proof check found.
        why: String,
    },
    /// A puzzle's length or first move disagrees with its proof (or the job's limit).
    #[error("candidate {candidate}: length or first move disagrees with the proof")]
    ProofDisagrees {
        /// The candidate, from 1.
        candidate: usize,
    },
    /// Not one solitaire outcome per deal of the job.
    #[error("{results} deal results for a job of {deals} deals")]
    DealCount {
        /// Outcomes given.
        results: usize,
        /// Deals in the job.
        deals: u64,
    },
    /// A solitaire deal cannot end as reported.
    #[error(
        "deal {deal} cannot end {} with {cards} cards on the foundations",
        if *won { "won" } else { "lost" }
    )]
    ImpossibleDeal {
        /// The deal.
        deal: u64,
        /// Whether it is reported won.
        won: bool,
        /// Cards reported on the foundations.
        cards: u32,
    },
    /// A checked puzzle could not be encoded for storage.
    #[error("candidate {candidate}: the puzzle could not be encoded: {why}")]
    PuzzleEncoding {
        /// The candidate, from 1.
        candidate: usize,
        /// The encoder's message.
        why: String,
    },
}
