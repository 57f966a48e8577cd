//! Reading and moving the opening book: tables of a position in the asker's frame (with exact
//! values where the solver settled them), export and import of rows, and stored games.

use std::collections::BTreeMap;

use pentago::{Move, Position, PositionKey, Symmetry, Value, move_groups};
use pentagrid_proto::v1;
use tonic::Status;

use crate::coordinator::{Coordinator, internal};
use crate::store::{BookEntry, Counts, ProvenTable, StoredGame, Table};

/// Most rows one export or import call carries.
pub const MAX_BOOK_ROWS: usize = 10_000;

/// Stored rows mapped back into the asker's frame, each with the moves merged into it and its
/// exact value when known, most played first.
fn book_rows(
    position: &Position,
    table: &Table,
    proven: &ProvenTable,
    back: Symmetry,
) -> Vec<v1::BookRow> {
    let groups = move_groups(position, true);
    let mut moves: Vec<Move> = table.keys().chain(proven.keys()).copied().collect();
    moves.sort_unstable();
    moves.dedup();
    let mut rows: Vec<v1::BookRow> = moves
        .into_iter()
        .map(|mv| {
            let counts = table.get(&mv).copied().unwrap_or_default();
            let mine: Move = back.apply_move(mv);
            let group = groups.iter().find(|g| g.contains(&mine));
            let (shown, also) = match group {
                Some(g) => (g[0], g[1..].iter().map(ToString::to_string).collect()),
                None => (mine, Vec::new()),
            };
            v1::BookRow {
                r#move: shown.to_string(),
                also,
                games: counts.games,
                wins: counts.wins,
                draws: counts.draws,
                proven: proven.get(&mv).map(|v| v.to_string()).unwrap_or_default(),
            }
        })
        .collect();
    rows.sort_by(|a, b| b.games.cmp(&a.games).then(a.r#move.cmp(&b.r#move)));
    rows
}

fn export_rows(key: u64, entry: &BookEntry, min_games: u64) -> Vec<v1::BookExportRow> {
    let Ok(position) = Position::from_key(PositionKey(key)) else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for (source, table) in [("playouts", &entry.playouts), ("games", &entry.games)] {
        for (mv, counts) in table.iter().filter(|(_, c)| c.games >= min_games.max(1)) {
            rows.push(v1::BookExportRow {
                position: position.to_string(),
                r#move: mv.to_string(),
                source: source.into(),
                games: counts.games,
                wins: counts.wins,
                draws: counts.draws,
                proven: entry
                    .proven
                    .get(mv)
                    .filter(|_| source == "playouts")
                    .map(ToString::to_string)
                    .unwrap_or_default(),
            });
        }
    }
    // Proven moves without playouts still travel, as rows with no games.
    for (mv, value) in &entry.proven {
        if min_games == 0 && !entry.playouts.contains_key(mv) {
            rows.push(v1::BookExportRow {
                position: position.to_string(),
                r#move: mv.to_string(),
                source: "playouts".into(),
                proven: value.to_string(),
                ..v1::BookExportRow::default()
            });
        }
    }
    rows
}

fn bad(row: usize, why: impl std::fmt::Display) -> Status {
    Status::invalid_argument(format!("row {}: {why}", row + 1))
}

/// Checks imported rows and groups them by canonical key: positions must be canonical, moves
/// legal there and already the representative of their group, counts consistent.
fn import_entries(rows: &[v1::BookExportRow]) -> Result<BTreeMap<u64, BookEntry>, Status> {
    let mut entries: BTreeMap<u64, BookEntry> = BTreeMap::new();
    // Rows come grouped by position: the group leaders are worked out once per position.
    let mut leaders: Option<(Position, Vec<Move>)> = None;
    for (index, row) in rows.iter().enumerate() {
        let position: Position = row.position.parse().map_err(|e| bad(index, e))?;
        let mv: Move = row.r#move.parse().map_err(|e| bad(index, e))?;
        if leaders.as_ref().is_none_or(|(p, _)| *p != position) {
            if position.canonical().position != position {
                return Err(bad(index, format!("{position} is not canonical")));
            }
            let firsts = move_groups(&position, true)
                .into_iter()
                .map(|g| g[0])
                .collect();
            leaders = Some((position, firsts));
        }
        position.play(mv).map_err(|e| bad(index, e))?;
        let (_, firsts) = leaders.as_ref().expect("set for this position above");
        if !firsts.contains(&mv) {
            return Err(bad(index, format!("{mv} is not its group's first move")));
        }
        if row.wins.saturating_add(row.draws) > row.games {
            return Err(bad(index, "wins + draws exceed games"));
        }
        let entry = entries.entry(position.key().bits()).or_default();
        let counts = Counts {
            games: row.games,
            wins: row.wins,
            draws: row.draws,
        };
        let table = match row.source.as_str() {
            "playouts" => &mut entry.playouts,
            "games" => &mut entry.games,
            other => return Err(bad(index, format!("unknown source {other:?}"))),
        };
        if counts.games > 0 {
            table.entry(mv).or_default().add(counts);
        }
        if !row.proven.is_empty() {
            let value: Value = row.proven.parse().map_err(|e| bad(index, e))?;
            entry.proven.insert(mv, value);
        }
    }
    Ok(entries)
}

impl Coordinator {
    /// The stored tables of a position, in the asker's frame.
    pub fn book_show(&self, request: &v1::BookShowRequest) -> Result<v1::BookShowResponse, Status> {
        let position: Position = request.position.parse().map_err(|e| {
            Status::invalid_argument(format!("bad position {:?}: {e}", request.position))
        })?;
        let canonical = position.canonical();
        let key = canonical.position.key().bits();
        let back = canonical.symmetry.inverse();
        let proven = self.store.proven_table(key).map_err(internal)?;
        let playouts = self.store.playout_table(key).map_err(internal)?;
        let games = self.store.game_table(key).map_err(internal)?;
        Ok(v1::BookShowResponse {
            position: position.to_string(),
            canonical: canonical.position.to_string(),
            playouts: book_rows(&position, &playouts, &proven, back),
            games: book_rows(&position, &games, &ProvenTable::new(), back),
        })
    }

    /// A page of book rows in canonical-key order.
    pub fn book_export(
        &self,
        request: &v1::BookExportRequest,
    ) -> Result<v1::BookExportResponse, Status> {
        let limit = (request.limit as usize).clamp(1, MAX_BOOK_ROWS);
        let entries = self
            .store
            .book_entries(request.after_key, limit)
            .map_err(internal)?;
        let next_key = if entries.len() == limit {
            entries.last().map_or(0, |(key, _)| *key)
        } else {
            0
        };
        Ok(v1::BookExportResponse {
            rows: entries
                .iter()
                .flat_map(|(key, entry)| export_rows(*key, entry, request.min_games))
                .collect(),
            next_key,
        })
    }

    /// Adds imported rows to the book; answers once durable. All rows or none.
    pub async fn book_import(
        &self,
        request: &v1::BookImportRequest,
    ) -> Result<v1::BookImportResponse, Status> {
        if request.rows.len() > MAX_BOOK_ROWS {
            return Err(Status::invalid_argument(format!(
                "at most {MAX_BOOK_ROWS} rows per call"
            )));
        }
        let entries = import_entries(&request.rows)?;
        self.store.import(&entries).map_err(internal)?;
        self.flush().await.map_err(internal)?;
        Ok(v1::BookImportResponse {
            rows: request.rows.len() as u64,
        })
    }

    /// Stored self-play games by job id (ids without a game are skipped).
    pub fn get_games(&self, request: &v1::GetGamesRequest) -> Result<v1::GetGamesResponse, Status> {
        if request.job_ids.len() > MAX_BOOK_ROWS {
            return Err(Status::invalid_argument(format!(
                "at most {MAX_BOOK_ROWS} games per call"
            )));
        }
        let mut games = Vec::new();
        for &job_id in &request.job_ids {
            if let Some(StoredGame {
                start,
                moves,
                result,
                black,
                white,
            }) = self.store.game(job_id).map_err(internal)?
            {
                games.push(v1::GameRecord {
                    job_id,
                    start,
                    moves,
                    result,
                    black,
                    white,
                });
            }
        }
        Ok(v1::GetGamesResponse { games })
    }
}
