//! The opening book as a service: a position's tables in the asker's frame (with exact values
//! where the solver settled them), export and import of rows, and stored games.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use pentago::{Move, MoveGroups, Position, PositionKey, Symmetry, Value};
use pentagrid_model::ExactSource;
use thiserror::Error;

use crate::jobs::JobQueue;
use crate::offload::blocking;
use crate::paging::{self, PageError, check_start};
use crate::table_values::{Backfill, TableValues};
use pentagrid_store::game::Game;
use pentagrid_store::{
    BookEntry, Counts, ImportMark, ImportOutcome, Proven, ProvenRows, Store, StoreError, Table,
};

pub use pentagrid_model::limits::{MAX_BOOK_ROWS, MAX_IMPORT_ROWS};
pub use pentagrid_model::{BookRow, BookTables, ExportRow, TableSource};
/// An export page ends after the position that brings it to this many rows (a position has at
/// most a few hundred), so a page stays far below the message cap.
pub const EXPORT_PAGE_ROWS: usize = 3_000;
/// Stored positions one tick's backfill of table values looks at (see [`Book::backfill_tick`]).
pub const BACKFILL_PER_TICK: usize = 256;
/// Games answered per page unless asked for fewer, and at most (a game is at most about
/// 600 bytes on the wire).
pub const GAMES_PAGE_SIZE: u64 = 500;

/// A page of exported rows.
#[derive(Clone, Debug, Default)]
pub struct ExportPage {
    /// The rows.
    pub rows: Vec<ExportRow>,
    /// Where to continue; 0 when done.
    pub next_key: u64,
}

/// A page of stored self-play games, by job id (a client's `match_games::GamesPage` is a page of
/// a match's games).
#[derive(Clone, Debug, Default)]
pub struct StoredGamesPage {
    /// The stored games of the page's ids, with their job ids, in the ids' order.
    pub games: Vec<(u64, Game)>,
    /// Where the next page starts in the ids; 0 after the last page.
    pub next_offset: u64,
}

/// Why a book call was refused.
#[derive(Debug, Error)]
pub enum BookError {
    /// Too many rows or games asked for in one call.
    #[error("at most {1} {0} per call, not {2}")]
    TooMany(&'static str, usize, usize),
    /// A bad page size or start.
    #[error(transparent)]
    Page(#[from] PageError),
    /// An imported row is wrong (1-based row number).
    #[error("row {row}: {why}")]
    BadRow {
        /// The row, counted from 1.
        row: usize,
        /// What is wrong.
        why: String,
    },
    /// The book was imported before (its digest is recorded), and not asked for again.
    #[error(
        "this book was imported before (its rows' SHA-256 digest {0} is recorded): importing \
         it again would add its counts twice; nothing was imported. Ask for it again \
         explicitly (`pentagrid book import --again`) if that is what you want"
    )]
    AlreadyImported(String),
    /// An import's call does not follow the import of the same book under way (a part
    /// skipped, or the book cut into another number of parts): nothing was imported.
    #[error(
        "part {part} of {parts} of this book does not follow the import of it under way, which          expects part {expected} of {parts_under_way} next; nothing was imported. Import the          whole book again: the parts already applied are skipped"
    )]
    ImportOutOfOrder {
        /// The call's part.
        part: u32,
        /// The call's parts.
        parts: u32,
        /// The part the import under way expects.
        expected: u32,
        /// The parts of the import under way.
        parts_under_way: u32,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Stored rows mapped back into the asker's frame, each with the moves merged into it and its
/// exact value when known, most played first.
fn book_rows(
    groups: &MoveGroups,
    table: &Table,
    proven: &ProvenRows,
    back: Symmetry,
) -> Vec<BookRow> {
    let mut moves: Vec<Move> = table.keys().chain(proven.keys()).copied().collect();
    moves.sort_unstable();
    moves.dedup();
    let mut rows: Vec<BookRow> = moves
        .into_iter()
        .map(|mv| {
            let mine: Move = back.apply_move(mv);
            let (shown, also) = match groups.group_of(mine) {
                Some(g) => (g[0], g[1..].to_vec()),
                None => (mine, Vec::new()),
            };
            let counts = table.get(&mv).copied().unwrap_or_default();
            BookRow {
                mv: shown,
                also,
                games: counts.games,
                wins: counts.wins,
                draws: counts.draws,
                proven: proven.get(&mv).map(|p| p.value),
                proven_by: proven.get(&mv).map(|p| p.source),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.games
            .cmp(&a.games)
            .then_with(|| a.mv.to_string().cmp(&b.mv.to_string()))
    });
    rows
}

/// A position's export rows: each row of both tables with at least `min_games` games, with
/// the move's exact value beside its counts wherever the solver settled it (in both sources:
/// the value is the move's, whatever counted it), then — when `min_games` is 0 — a row with no
/// games for each proven move that has no row yet.
fn export_rows(key: u64, entry: &BookEntry, min_games: u64) -> Vec<ExportRow> {
    let Ok(position) = Position::from_key(PositionKey(key)) else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for (source, table) in [
        (TableSource::Playouts, &entry.playouts),
        (TableSource::Games, &entry.games),
    ] {
        for (mv, counts) in table.iter().filter(|(_, c)| c.games >= min_games.max(1)) {
            rows.push(ExportRow {
                position,
                mv: *mv,
                source,
                games: counts.games,
                wins: counts.wins,
                draws: counts.draws,
                proven: entry.proven.get(mv).map(|p| p.value),
                proven_by: entry.proven.get(mv).map(|p| p.source),
            });
        }
    }
    let with_rows: BTreeSet<Move> = rows.iter().map(|row| row.mv).collect();
    for (mv, proven) in &entry.proven {
        if min_games == 0 && !with_rows.contains(mv) {
            rows.push(ExportRow {
                position,
                mv: *mv,
                source: TableSource::Playouts,
                games: 0,
                wins: 0,
                draws: 0,
                proven: Some(proven.value),
                proven_by: Some(proven.source),
            });
        }
    }
    rows
}

fn bad(row: usize, why: impl std::fmt::Display) -> BookError {
    BookError::BadRow {
        row: row + 1,
        why: why.to_string(),
    }
}

/// Checks imported rows and groups them by canonical key: positions must be canonical, moves
/// legal there and already the representative of their group, counts consistent.
pub fn import_entries(rows: &[ExportRow]) -> Result<BTreeMap<u64, BookEntry>, BookError> {
    let mut entries: BTreeMap<u64, BookEntry> = BTreeMap::new();
    // Rows come grouped by position: the group leaders are worked out once per position.
    let mut leaders: Option<(Position, Vec<Move>)> = None;
    for (index, row) in rows.iter().enumerate() {
        let (position, mv) = (row.position, row.mv);
        if leaders.as_ref().is_none_or(|(p, _)| *p != position) {
            if position.canonical().position != position {
                return Err(bad(index, format!("{position} is not canonical")));
            }
            let firsts = MoveGroups::of(&position, true)
                .iter()
                .map(|g| g[0])
                .collect();
            leaders = Some((position, firsts));
        }
        position.play(mv).map_err(|e| bad(index, e))?;
        let (_, firsts) = leaders.as_ref().expect("set for this position above");
        if !firsts.contains(&mv) {
            return Err(bad(index, format!("{mv} is not its group's first move")));
        }
        let counts = Counts {
            games: row.games,
            wins: row.wins,
            draws: row.draws,
        };
        if counts
            .wins
            .checked_add(counts.draws)
            .is_none_or(|decided| decided > counts.games)
        {
            return Err(bad(index, "wins + draws exceed games"));
        }
        let entry = entries.entry(position.key().bits()).or_default();
        let table = match row.source {
            TableSource::Playouts => &mut entry.playouts,
            TableSource::Games => &mut entry.games,
        };
        if counts.games > 0 {
            table
                .entry(mv)
                .or_default()
                .add(counts)
                .map_err(|_| bad(index, format!("the counts of {mv} overflow across rows")))?;
        }
        if let Some(value) = row.proven {
            // The importer did not prove it: stored as imported, whatever the row names.
            let source = ExactSource::Imported;
            entry.proven.insert(mv, Proven { value, source });
        }
    }
    Ok(entries)
}

/// Gives the imported positions the tablebase covers their table values (source `table`,
/// every move group): the importer knows those values itself, whatever the file said (a value
/// the file contradicts is logged and replaced by the table's).
fn with_table_values(table: &TableValues, entries: &mut BTreeMap<u64, BookEntry>) {
    for (key, entry) in entries.iter_mut() {
        let Ok(position) = Position::from_key(PositionKey(*key)) else {
            continue;
        };
        let values = match table.moves(&position) {
            Ok(Some(values)) => values,
            Ok(None) => continue,
            Err(error) => {
                tracing::error!(%error, %position, "tablebase probe failed: imported values kept");
                continue;
            }
        };
        for (mv, value) in values {
            let source = ExactSource::Table;
            if let Some(said) = entry.proven.insert(mv, Proven { value, source })
                && said.value != value
            {
                tracing::warn!(
                    %position,
                    mv = %mv,
                    imported = said.value.as_i8(),
                    table = value.as_i8(),
                    "an imported exact value contradicts the tablebase; the table's is stored"
                );
            }
        }
    }
}

/// The exact value of `position` and its proven line (see [`BookTables::proven_line`]): the
/// best move each stored proven position names (mapped into the asker's frame), followed
/// while it leads to a proven position, at most to the end of the game (36 plies).
fn proven_line(
    store: &Store,
    position: &Position,
) -> Result<(Option<Value>, Vec<Move>), StoreError> {
    let mut line = Vec::new();
    let mut value = None;
    let mut at = *position;
    while !at.is_over() && line.len() < 36 {
        let canonical = at.canonical();
        let Some((proven, best)) = store.position_value(canonical.position.key().bits())? else {
            break;
        };
        value.get_or_insert(proven);
        let mv = canonical.symmetry.inverse().apply_move(best);
        line.push(mv);
        at = at.play_unchecked(mv);
    }
    Ok((value, line))
}

/// The book service.
pub struct Book {
    store: Arc<Store>,
    jobs: Arc<JobQueue>,
    table: TableValues,
    /// Where the walk that gives the book its table values stands.
    walk: std::sync::Mutex<TableWalk>,
}

/// Where the walk over the stored book that gives it its table values stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TableWalk {
    /// Not looked at yet: the first tick reads whether a walk with these slices finished.
    Unchecked,
    /// The next tick starts at this canonical key.
    At(u64),
    /// Nothing (more) to walk this run.
    Done,
}

impl Book {
    pub(crate) fn new(store: Arc<Store>, jobs: Arc<JobQueue>, table: TableValues) -> Book {
        Book {
            store,
            jobs,
            table,
            walk: std::sync::Mutex::new(TableWalk::Unchecked),
        }
    }

    /// One step of the walk that gives a book stored before (or without) the tablebase its
    /// table values: at most [`BACKFILL_PER_TICK`] stored positions per tick, from the book's
    /// first key to its last. Positions stored meanwhile get theirs with their results, so one
    /// walk suffices; a finished walk is recorded with its slices and not made again while
    /// the coordinator keeps running with them (a start without the tablebase clears the
    /// record).
    pub async fn backfill_tick(&self) -> Result<(), BookError> {
        let walk = *self.walk.lock().unwrap_or_else(|p| p.into_inner());
        let from = match walk {
            TableWalk::Done => return Ok(()),
            TableWalk::At(from) => from,
            TableWalk::Unchecked => {
                let (store, stones) = (self.store.clone(), self.table.stones());
                let walked = blocking(move || store.table_walk()).await?;
                if stones.is_none() || walked == stones {
                    self.set_walk(TableWalk::Done);
                    return Ok(());
                }
                0
            }
        };
        let done = self.backfill_table(from, BACKFILL_PER_TICK).await?;
        if done.filled > 0 {
            tracing::info!(
                looked = done.looked,
                filled = done.filled,
                "book positions given their table values"
            );
        }
        if done.next_key != 0 {
            self.set_walk(TableWalk::At(done.next_key));
            return Ok(());
        }
        let (store, stones) = (self.store.clone(), self.table.stones());
        blocking(move || store.set_table_walk(stones.as_deref())).await?;
        self.jobs.durable().await?;
        self.set_walk(TableWalk::Done);
        Ok(())
    }

    fn set_walk(&self, walk: TableWalk) {
        *self.walk.lock().unwrap_or_else(|p| p.into_inner()) = walk;
    }

    /// Gives up to `limit` stored positions from canonical key `from` on the table values they
    /// lack (see [`TableValues::backfill`]), on the blocking pool; answers once durable.
    pub async fn backfill_table(&self, from: u64, limit: usize) -> Result<Backfill, BookError> {
        let (store, table) = (self.store.clone(), self.table.clone());
        let done = blocking(move || table.backfill(&store, from, limit)).await?;
        self.jobs.durable().await?;
        Ok(done)
    }

    /// The stored tables of a position, in the asker's frame.
    pub fn show(&self, position: &Position) -> Result<BookTables, BookError> {
        let canonical = position.canonical();
        let key = canonical.position.key().bits();
        let back = canonical.symmetry.inverse();
        let proven = self.store.proven_rows(key)?;
        let playouts = self.store.playout_table(key)?;
        let games = self.store.game_table(key)?;
        // Game rows show the exact values of their own moves; proven moves without games are
        // listed once, among the playout rows.
        let proven_games: ProvenRows = proven
            .iter()
            .filter(|(mv, _)| games.contains_key(mv))
            .map(|(mv, p)| (*mv, *p))
            .collect();
        let groups = MoveGroups::of(position, true);
        let (value, proven_line) = proven_line(&self.store, position)?;
        // The first move of the line is the canonical position's proving move, mapped back.
        let proven_by = proven_line
            .first()
            .and_then(|&mv| proven.get(&canonical.symmetry.apply_move(mv)))
            .map(|p| p.source);
        Ok(BookTables {
            position: *position,
            canonical: canonical.position,
            playouts: book_rows(&groups, &playouts, &proven, back),
            games: book_rows(&groups, &games, &proven_games, back),
            proven: value,
            proven_by,
            proven_line,
        })
    }

    /// A page of book rows in canonical-key order from `from_key` on (inclusive; 0: from the
    /// start). The page's `next_key` is where the next page starts, 0 after the last page.
    /// Read on the blocking pool: a page is up to [`MAX_BOOK_ROWS`] positions.
    pub async fn export(
        &self,
        from_key: u64,
        limit: usize,
        min_games: u64,
    ) -> Result<ExportPage, BookError> {
        let limit = limit.clamp(1, MAX_BOOK_ROWS);
        let store = self.store.clone();
        blocking(move || {
            let entries = store.book_entries(from_key, limit)?;
            let mut page = ExportPage::default();
            for (index, (key, entry)) in entries.iter().enumerate() {
                page.rows.extend(export_rows(*key, entry, min_games));
                let last_read = index + 1 == entries.len();
                if page.rows.len() >= EXPORT_PAGE_ROWS || last_read {
                    // More may be stored after a full read; keys are below 3^36, so the
                    // successor of one never overflows (and is never 0, which means "done").
                    if !last_read || entries.len() == limit {
                        page.next_key = key + 1;
                    }
                    break;
                }
            }
            Ok(page)
        })
        .await
    }

    /// Adds imported rows to the book; answers once durable. All rows or none. Checked and
    /// written on the blocking pool. Exact values are stored as imported, except in the
    /// positions the tablebase covers, which get the table's values.
    /// With a `mark`, a book imported before is refused at its first call unless asked for
    /// again ([`BookError::AlreadyImported`]), parts an interrupted import of it applied are
    /// skipped (a retry adds nothing twice), and its digest is recorded with its last.
    pub async fn import(
        &self,
        rows: Vec<ExportRow>,
        mark: Option<ImportMark>,
    ) -> Result<usize, BookError> {
        if rows.len() > MAX_IMPORT_ROWS {
            return Err(BookError::TooMany("rows", MAX_IMPORT_ROWS, rows.len()));
        }
        let (store, table) = (self.store.clone(), self.table.clone());
        let count = rows.len();
        blocking(move || {
            let mut entries = import_entries(&rows)?;
            with_table_values(&table, &mut entries);
            match (store.import(&entries, mark.as_ref())?, mark) {
                (ImportOutcome::Imported | ImportOutcome::AlreadyApplied, _) | (_, None) => Ok(()),
                (ImportOutcome::SeenBefore, Some(mark)) => {
                    let hex: String = mark.digest.iter().map(|b| format!("{b:02x}")).collect();
                    Err(BookError::AlreadyImported(hex))
                }
                (ImportOutcome::OutOfOrder { expected, parts }, Some(mark)) => {
                    Err(BookError::ImportOutOfOrder {
                        part: mark.part,
                        parts: mark.parts,
                        expected,
                        parts_under_way: parts,
                    })
                }
            }
        })
        .await?;
        self.jobs.durable().await?;
        Ok(count)
    }

    /// A page of stored self-play games: those of `job_ids[offset..]`, at most `page_size`
    /// ids (0: [`GAMES_PAGE_SIZE`]); ids without a game are skipped. Bad pages are refused
    /// before anything is read.
    pub fn games(
        &self,
        job_ids: &[u64],
        offset: u64,
        page_size: u64,
    ) -> Result<StoredGamesPage, BookError> {
        if job_ids.len() > MAX_BOOK_ROWS {
            return Err(BookError::TooMany("game ids", MAX_BOOK_ROWS, job_ids.len()));
        }
        let size = paging::page_size("page_size", page_size, GAMES_PAGE_SIZE, GAMES_PAGE_SIZE)?;
        let count = job_ids.len() as u64;
        check_start("offset", offset, count)?;
        let end = (offset + size).min(count);
        let mut page = StoredGamesPage {
            games: Vec::new(),
            next_offset: if end < count { end } else { 0 },
        };
        for &job_id in &job_ids[offset as usize..end as usize] {
            if let Some(game) = self.store.game(job_id)? {
                page.games.push((job_id, game));
            }
        }
        Ok(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentagrid_store::ProvenTable;

    fn counts(games: u64) -> Counts {
        Counts {
            games,
            wins: games / 2,
            draws: 0,
        }
    }

    fn counts_of(row: &ExportRow) -> Counts {
        Counts {
            games: row.games,
            wins: row.wins,
            draws: row.draws,
        }
    }

    /// A late position with playouts for one move, games for two, and exact values for three.
    fn solved_entry() -> (u64, BookEntry, [Move; 3]) {
        let position: Position = "ox.oxx/x.o.oo/oxo.ox/.xxxoo/xooxxx/.xooox".parse().unwrap();
        let canonical = position.canonical().position;
        let moves: Vec<Move> = MoveGroups::of(&canonical, true)
            .iter()
            .map(|g| g[0])
            .take(3)
            .collect();
        let [both, games_only, proven_only] = moves.try_into().unwrap();
        let entry = BookEntry {
            playouts: Table::from([(both, counts(40))]),
            games: Table::from([(both, counts(6)), (games_only, counts(3))]),
            proven: pentagrid_store::rows_of(
                &ProvenTable::from([
                    (both, Value::Win),
                    (games_only, Value::Loss),
                    (proven_only, Value::Draw),
                ]),
                ExactSource::Solver,
            ),
        };
        (
            canonical.key().bits(),
            entry,
            [both, games_only, proven_only],
        )
    }

    #[test]
    fn a_proven_position_shows_its_value_and_line_in_the_askers_frame() {
        use pentagrid_store::ResultEffect;
        use pentagrid_store::job::{Job, JobState};
        let undecided = |p: &Position| {
            !p.is_over()
                && MoveGroups::of(p, true)
                    .iter()
                    .all(|g| !p.play_unchecked(g[0]).is_over())
        };
        // A late position with a child none of whose moves the rules decide.
        let (position, child) = (0..)
            .find_map(|seed| {
                let position = pentago::random_opening(seed, 30).canonical().position;
                if !undecided(&position) {
                    return None;
                }
                let child = MoveGroups::of(&position, true)
                    .iter()
                    .map(|g| position.play_unchecked(g[0]).canonical().position)
                    .find(|c| undecided(c))?;
                Some((position, child))
            })
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let asked = Symmetry::ALL[3].apply(&position);
        assert_eq!(proven_line(&store, &asked).unwrap(), (None, Vec::new()));
        // The position has a table; its child is solved lost: the position is won.
        let first = MoveGroups::of(&position, true).iter().next().unwrap()[0];
        let entry = BookEntry {
            playouts: Table::from([(first, counts(10))]),
            ..BookEntry::default()
        };
        store.import_one(&position, entry);
        let all_lost: ProvenTable = MoveGroups::of(&child, true)
            .iter()
            .map(|g| (g[0], Value::Loss))
            .collect();
        let effect = ResultEffect {
            proven: Some((child.key().bits(), all_lost)),
            ..ResultEffect::default()
        };
        store
            .apply(1, &Job::in_state(JobState::Done), "r1", &effect)
            .unwrap();
        let (value, line) = proven_line(&store, &asked).unwrap();
        assert_eq!(value, Some(Value::Win));
        // Into the child (proven lost), then the child's best move, into a position not proven.
        assert_eq!(line.len(), 2, "{line:?}");
        let reached = asked.play(line[0]).unwrap();
        assert_eq!(reached.canonical().position, child);
        let after = reached.play(line[1]).unwrap();
        assert!(
            store
                .position_value(after.canonical().position.key().bits())
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn exported_rows_carry_exact_values_beside_the_counts_of_both_sources() {
        let (key, entry, [both, games_only, proven_only]) = solved_entry();
        let rows = export_rows(key, &entry, 0);
        let row = |source, mv| {
            rows.iter()
                .find(|r| r.source == source && r.mv == mv)
                .unwrap_or_else(|| panic!("no {source:?} row for {mv}"))
        };
        assert_eq!(row(TableSource::Playouts, both).proven, Some(Value::Win));
        assert_eq!(row(TableSource::Games, both).proven, Some(Value::Win));
        assert_eq!(counts_of(row(TableSource::Games, both)), counts(6));
        assert_eq!(
            row(TableSource::Games, games_only).proven,
            Some(Value::Loss)
        );
        // A proven move without counts travels once, as a row with no games.
        let bare = row(TableSource::Playouts, proven_only);
        assert_eq!(
            (counts_of(bare), bare.proven),
            (Counts::default(), Some(Value::Draw))
        );
        assert_eq!(rows.len(), 4);
        assert!(rows.iter().all(|r| r.proven.is_some()));
        assert!(
            rows.iter()
                .all(|r| r.proven_by == Some(ExactSource::Solver))
        );
        // Rows with too few games are left out, proven or not.
        let busy = export_rows(key, &entry, 5);
        assert_eq!(busy.len(), 2);
        assert!(
            busy.iter()
                .all(|r| r.mv == both && r.proven == Some(Value::Win))
        );
        // And they read back into the same entry, the importer's values as imported.
        let imported = import_entries(&rows).unwrap();
        let values = pentagrid_store::values_of(&entry.proven);
        let expected = BookEntry {
            proven: pentagrid_store::rows_of(&values, ExactSource::Imported),
            ..entry
        };
        assert_eq!(imported[&key], expected);
    }
}
