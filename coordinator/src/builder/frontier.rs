//! A build's frontier, kept in memory between rounds so that choosing the next positions costs
//! O(log n) heap operations per position, whatever the size of the book: a max-heap of
//! positions reached but not yet looked at, with lazy deletion (an entry is stale once its
//! position was handled, or a better priority for it was pushed), plus the build's positions in
//! flight. A position is expanded (its children pushed with their priorities) once: when it is
//! popped and already has a table, or when the job that analyses it finishes.
//!
//! After a restart the frontier starts again from the roots: positions that already have a
//! table are expanded as they are popped, so the first rounds walk the explored part of the
//! book again, a bounded number of pops per round, on a blocking thread.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, HashSet};

use pentago::Position;

use crate::jobs::JobQueue;
use crate::table_values::TableValues;
use pentagrid_store::{ProvenTable, Store, StoreError, Table, position_value};

/// Where a position sits in the best-first order: its priority and its ply below a root.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(super) struct Place {
    /// See the priority formula at the top of the builder.
    pub priority: f64,
    /// Plies below its root.
    pub ply: u32,
}

/// A position waiting in the best-first queue.
struct Node {
    place: Place,
    position: Position,
}

impl PartialEq for Node {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Node {}

impl PartialOrd for Node {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Node {
    fn cmp(&self, other: &Self) -> Ordering {
        self.place
            .priority
            .total_cmp(&other.place.priority)
            .then_with(|| other.position.key().bits().cmp(&self.position.key().bits()))
    }
}

/// A position whose analysis (or solve) is queued or running.
#[derive(Clone, Debug)]
pub(super) struct Flight {
    /// The job analysing it.
    pub job_id: u64,
    /// The canonical position.
    pub position: Position,
    /// Its place, once known (a flight restored after a restart learns it when the walk
    /// reaches it).
    pub place: Option<Place>,
    /// Whether the build queued the job (else another build or a client did, and the build
    /// only waits for its table).
    pub own: bool,
}

/// A position chosen for analysis.
#[derive(Clone, Debug)]
pub(super) struct Pick {
    /// The canonical position.
    pub position: Position,
    /// Its place.
    pub place: Place,
}

/// What one selection found.
#[derive(Debug, Default)]
pub(super) struct Selection {
    /// The positions chosen, best first.
    pub picks: Vec<Pick>,
    /// Whether the frontier may still hold work (it ran out of pops this round).
    pub unfinished: bool,
    /// Positions popped that the store already knew (a table, expanded or at the depth
    /// limit, or an exact value): the walk through the stored book that the picks waited on.
    pub walked: u64,
    /// The unproven positions chosen or walked whose stones are in the limits' deep range:
    /// the build's deep-solve candidates.
    pub deep: Vec<Position>,
}

/// How far one selection may go.
#[derive(Clone, Debug)]
pub(super) struct Limits {
    /// Deepest ply that gets expanded.
    pub depth: u32,
    /// Most positions to choose.
    pub room: usize,
    /// Most entries to pop.
    pub max_pops: usize,
    /// Entries the heap keeps when it is cut back.
    pub cap: usize,
    /// Stone counts of the deep-solve candidates (see `Build::deep_range`; empty: none).
    pub deep: std::ops::Range<u32>,
    /// Where table values come from: a covered position gets them when popped, instead of a
    /// job.
    pub table: TableValues,
}

/// The frontier of one build.
#[derive(Default)]
pub(super) struct Frontier {
    heap: BinaryHeap<Node>,
    /// Best priority pushed for each position not handled yet.
    best: HashMap<u64, f64>,
    /// Positions handled: picked, expanded or left as leaves.
    seen: HashSet<u64>,
    /// Positions in flight, by canonical key: every pop looks here, so a large window costs
    /// no more per pop than a small one.
    flights: HashMap<u64, Flight>,
}

impl Frontier {
    /// A frontier holding the roots (priority `1 / roots` each) and the flights found queued.
    pub fn new(roots: &[Position], flights: Vec<Flight>) -> Frontier {
        let mut frontier = Frontier {
            flights: flights
                .into_iter()
                .map(|flight| (flight.position.key().bits(), flight))
                .collect(),
            ..Frontier::default()
        };
        let share = 1.0 / roots.len().max(1) as f64;
        for root in roots {
            frontier.push(
                *root,
                Place {
                    priority: share,
                    ply: 0,
                },
            );
        }
        frontier
    }

    /// Jobs the build itself has in flight.
    pub fn in_flight(&self) -> usize {
        self.flights.values().filter(|f| f.own).count()
    }

    /// Entries in the heap (stale ones included).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Notes that `job_id` analyses `pick` for the build.
    pub fn fly(&mut self, job_id: u64, pick: &Pick) {
        let flight = Flight {
            job_id,
            position: pick.position,
            place: Some(pick.place),
            own: true,
        };
        self.flights.insert(pick.position.key().bits(), flight);
    }

    /// Takes in the flights whose jobs finished: their children enter the heap. Costs one
    /// look at the queue for all flights, and a store read per flight whose job left it.
    pub fn settle(&mut self, store: &Store, jobs: &JobQueue, depth: u32) -> Result<(), StoreError> {
        let inactive = jobs.inactive(self.flights.values().map(|flight| flight.job_id));
        let mut landed = Vec::new();
        for (&key, flight) in &self.flights {
            if inactive.contains(&flight.job_id) && finished(store, flight.job_id)? {
                landed.push(key);
            }
        }
        for key in landed {
            let Some(flight) = self.flights.remove(&key) else {
                continue;
            };
            // Without a place, the walk has not reached the position yet and expands it then.
            if let Some(place) = flight.place {
                self.expand_if_analysed(store, flight.position, place, depth)?;
            }
        }
        Ok(())
    }

    /// Pops positions best first until `limits.room` are chosen or `limits.max_pops` were
    /// popped. A position the tablebase covers first gets its table values (see
    /// [`crate::table_values`]). A position with a table is expanded (below `limits.depth`, its
    /// proven moves left out); one with an exact value (proven by its own moves, see
    /// [`pentagrid_store::position_value`]) is a leaf, not analysed (a root is, once, but not
    /// expanded); one without a table is chosen unless the build queued it before (its job
    /// failed) or the job `pending` gives for its canonical key analyses it already. The heap is
    /// cut back to the best `limits.cap` entries whenever it grows past twice that.
    pub fn select(
        &mut self,
        store: &Store,
        build: u64,
        limits: Limits,
        pending: impl Fn(u64) -> Option<u64>,
    ) -> Result<Selection, StoreError> {
        let Limits {
            depth,
            room,
            max_pops,
            cap,
            deep: deep_range,
            table,
        } = limits;
        let mut deep = Vec::new();
        let mut picks = Vec::new();
        let (mut pops, mut walked) = (0, 0);
        while picks.len() < room {
            if pops == max_pops {
                return Ok(Selection {
                    picks,
                    unfinished: !self.heap.is_empty(),
                    walked,
                    deep,
                });
            }
            let Some(Node { place, position }) = self.heap.pop() else {
                break;
            };
            pops += 1;
            let key = position.key().bits();
            if self.seen.contains(&key) || self.best.get(&key).is_some_and(|&b| place.priority < b)
            {
                continue;
            }
            self.best.remove(&key);
            self.seen.insert(key);
            if let Some(flight) = self.flights.get_mut(&key) {
                flight.place.get_or_insert(place);
                continue;
            }
            if let Some(job_id) = pending(key) {
                let flight = Flight {
                    job_id,
                    position,
                    place: Some(place),
                    own: false,
                };
                self.flights.insert(key, flight);
                continue;
            }
            // A position the tablebase covers gets its moves' values here, without a job (and
            // they go up the book): it is then proven.
            table.fill(store, key)?;
            let proven = store.proven_table(key)?;
            let solved = !proven.is_empty() && position_value(&position, &proven).is_some();
            // A proven position is a leaf: not analysed, not expanded. Except a root, which is
            // analysed once (the build was asked for its statistics, shown beside its values).
            if solved && place.ply > 0 {
                walked += 1;
                continue;
            }
            if !solved && deep_range.contains(&position.stone_count()) {
                deep.push(position);
            }
            let playouts = store.playout_table(key)?;
            if playouts.is_empty() {
                if !store.build_has(build, key)? {
                    picks.push(Pick { position, place });
                }
                continue;
            }
            walked += 1;
            if place.ply < depth && !solved {
                self.expand(position, place, &playouts, &proven);
                if self.heap.len() > cap.saturating_mul(2) {
                    self.prune(cap);
                }
            }
        }
        Ok(Selection {
            picks,
            unfinished: false,
            walked,
            deep,
        })
    }

    /// Expands a position whose job finished, if it got a table and no exact value.
    fn expand_if_analysed(
        &mut self,
        store: &Store,
        position: Position,
        place: Place,
        depth: u32,
    ) -> Result<(), StoreError> {
        let key = position.key().bits();
        if place.ply >= depth {
            return Ok(());
        }
        let proven = store.proven_table(key)?;
        if !proven.is_empty() && position_value(&position, &proven).is_some() {
            return Ok(());
        }
        let table = store.playout_table(key)?;
        self.expand(position, place, &table, &proven);
        Ok(())
    }

    /// Pushes the children of a position with their priorities (see the builder's formula),
    /// leaving out the moves with exact values (as an MCTS-solver does: a proven move is not
    /// explored again, and its playouts no longer count in the shares of the others).
    fn expand(&mut self, position: Position, place: Place, table: &Table, proven: &ProvenTable) {
        let open = || table.iter().filter(|(mv, _)| !proven.contains_key(mv));
        let total: u64 = open().map(|(_, c)| c.games).sum();
        for (mv, counts) in open() {
            let Ok(child) = position.play(*mv) else {
                continue;
            };
            if child.is_over() || counts.games == 0 {
                continue;
            }
            let n = counts.games as f64;
            let rate = (counts.wins as f64 + 0.5 * counts.draws as f64) / n;
            let sigma = (rate * (1.0 - rate) / (n + 1.0)).sqrt();
            let child_place = Place {
                priority: place.priority * (n / total as f64) * (1.0 + 2.0 * sigma),
                ply: place.ply + 1,
            };
            self.push(child.canonical().position, child_place);
        }
    }

    /// Pushes a canonical position unless it was handled or is waiting with a better priority.
    fn push(&mut self, position: Position, place: Place) {
        let key = position.key().bits();
        if self.seen.contains(&key) || self.best.get(&key).is_some_and(|&b| b >= place.priority) {
            return;
        }
        self.best.insert(key, place.priority);
        self.heap.push(Node { place, position });
    }

    /// Keeps the best `keep` entries that are not stale: the build can pick at most its
    /// remaining positions, so entries far below that rank would never be reached.
    fn prune(&mut self, keep: usize) {
        let mut nodes = std::mem::take(&mut self.heap).into_vec();
        // Stale entries go first: they would only be skipped when popped.
        nodes.retain(|node| {
            let key = node.position.key().bits();
            self.best.get(&key) == Some(&node.place.priority)
        });
        if keep < nodes.len() {
            nodes.select_nth_unstable_by(keep, |a, b| b.cmp(a));
            for dropped in nodes.drain(keep..) {
                let key = dropped.position.key().bits();
                if self.best.get(&key) == Some(&dropped.place.priority) {
                    self.best.remove(&key);
                }
            }
        }
        self.heap = BinaryHeap::from(nodes);
    }
}

/// Whether a job no longer in the queue has its final state stored: a job that is being
/// completed leaves the queue a moment before its result (and its table) is written.
fn finished(store: &Store, job_id: u64) -> Result<bool, StoreError> {
    Ok(store
        .job(job_id)?
        .is_none_or(|record| !record.state.is_unfinished()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentagrid_store::Counts;

    fn place(priority: f64) -> Place {
        Place { priority, ply: 1 }
    }

    fn limits(room: usize, max_pops: usize) -> Limits {
        Limits {
            depth: 36,
            room,
            max_pops,
            cap: 100,
            deep: 0..0,
            table: TableValues::none(),
        }
    }

    /// Two different canonical children of the start.
    fn two_children() -> (Position, Position) {
        let start = Position::START;
        let moves = start.legal_moves();
        let mut children = moves
            .iter()
            .map(|&mv| start.play(mv).unwrap().canonical().position);
        let a = children.next().unwrap();
        let b = children.find(|b| *b != a).unwrap();
        (a, b)
    }

    #[test]
    fn lazy_deletion_keeps_the_best_priority_and_pops_each_position_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let mut frontier = Frontier::default();
        let (a, b) = two_children();
        frontier.push(a, place(0.1));
        frontier.push(b, place(0.5));
        frontier.push(a, place(0.9));
        frontier.push(a, place(0.2));
        let selection = frontier
            .select(&store, 1, limits(10, 100), |_| None)
            .unwrap();
        let picked: Vec<(Position, f64)> = selection
            .picks
            .iter()
            .map(|p| (p.position, p.place.priority))
            .collect();
        assert_eq!(picked, vec![(a, 0.9), (b, 0.5)]);
        assert!(!selection.unfinished);
        // Handled positions never come back.
        frontier.push(a, place(5.0));
        assert_eq!(frontier.len(), 0);
    }

    #[test]
    fn selection_counts_the_stored_positions_it_walks_through() {
        use pentagrid_store::BookEntry;
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        // The start has a stored table with one move: the walk expands it, then picks its child.
        let start = Position::START;
        let mv = start.legal_moves()[0];
        let counts = Counts {
            games: 10,
            wins: 5,
            draws: 0,
        };
        let entry = BookEntry {
            playouts: Table::from([(mv, counts)]),
            ..BookEntry::default()
        };
        store.import_one(&start, entry);
        let mut frontier = Frontier::new(&[start], Vec::new());
        let selection = frontier
            .select(&store, 1, limits(10, 100), |_| None)
            .unwrap();
        assert_eq!(selection.walked, 1);
        let picked: Vec<Position> = selection.picks.iter().map(|p| p.position).collect();
        assert_eq!(picked, vec![start.play(mv).unwrap().canonical().position]);
        // Stale entries and picks are not part of the walk.
        let (_, b) = two_children();
        frontier.push(b, place(0.1));
        frontier.push(b, place(0.2));
        let again = frontier
            .select(&store, 1, limits(10, 100), |_| None)
            .unwrap();
        assert_eq!((again.walked, again.picks.len()), (0, 1));
    }

    #[test]
    fn proven_moves_are_not_explored_and_proven_positions_are_leaves() {
        use pentago::{MoveGroups, Value};
        use pentagrid_store::BookEntry;
        let start = Position::START;
        let firsts: Vec<_> = MoveGroups::of(&start, true)
            .iter()
            .map(|g| g[0])
            .take(2)
            .collect();
        let counts = Counts {
            games: 10,
            wins: 5,
            draws: 0,
        };
        let playouts: Table = firsts.iter().map(|&mv| (mv, counts)).collect();
        let picks_under = |proven: ProvenTable| {
            let dir = tempfile::tempdir().unwrap();
            let store = Store::open(dir.path()).unwrap();
            let entry = BookEntry {
                playouts: playouts.clone(),
                proven: pentagrid_store::rows_of(&proven, pentagrid_model::ExactSource::Solver),
                ..BookEntry::default()
            };
            store.import_one(&start, entry);
            let mut frontier = Frontier::new(&[start], Vec::new());
            let selection = frontier
                .select(&store, 1, limits(10, 100), |_| None)
                .unwrap();
            let picked: Vec<Position> = selection.picks.iter().map(|p| p.position).collect();
            (picked, selection.walked)
        };
        let child = |mv| start.play(mv).unwrap().canonical().position;
        let (both, _) = picks_under(ProvenTable::new());
        assert_eq!(both.len(), 2);
        // A move proven lost is not explored again; the other takes the whole share.
        let (picked, walked) = picks_under(ProvenTable::from([(firsts[0], Value::Loss)]));
        assert_eq!((picked, walked), (vec![child(firsts[1])], 1));
        // A move proven won proves the position: it is a leaf.
        let (picked, walked) = picks_under(ProvenTable::from([(firsts[1], Value::Win)]));
        assert_eq!((picked.len(), walked), (0, 1));
    }

    #[test]
    fn a_position_the_table_covers_gets_its_values_and_is_a_leaf_without_a_pick() {
        use pentagrid_model::ExactSource;
        use pentagrid_store::BookEntry;
        use std::sync::Arc;
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let start = Position::START;
        let (a, b) = two_children();
        let counts = Counts {
            games: 10,
            wins: 5,
            draws: 0,
        };
        let into = |child: Position| {
            let moves = start.legal_moves();
            moves
                .iter()
                .copied()
                .find(|&m| start.play(m).unwrap().canonical().position == child)
                .unwrap()
        };
        // The start is analysed, with rows into `a` and `b`; `a` has an analysis of its own.
        let entry = BookEntry {
            playouts: Table::from([(into(a), counts), (into(b), counts)]),
            ..BookEntry::default()
        };
        store.import_one(&start, entry);
        let entry = BookEntry {
            playouts: Table::from([(a.legal_moves()[0], counts)]),
            ..BookEntry::default()
        };
        store.import_one(&a, entry);
        // Slice 2 only: the moves of one-stone positions are covered, the start's are not.
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tablebase/data/irving/slice-2.pentago");
        let mut tablebase = pentagrid_tablebase::Tablebase::empty();
        tablebase.add_slice_file(&folder).unwrap();
        let table = TableValues::new(Arc::new(tablebase));
        let mut frontier = Frontier::new(&[start], Vec::new());
        let with_table = Limits {
            table: table.clone(),
            ..limits(10, 100)
        };
        let selection = frontier.select(&store, 1, with_table, |_| None).unwrap();
        // Neither child is picked for a job, and `a`'s analysed move is not expanded.
        assert!(selection.picks.is_empty(), "{:?}", selection.picks);
        assert_eq!((selection.walked, frontier.len()), (3, 0));
        for position in [a, b] {
            let rows = store.proven_rows(position.key().bits()).unwrap();
            assert!(!rows.is_empty());
            assert!(rows.values().all(|p| p.source == ExactSource::Table));
            assert!(
                store
                    .position_value(position.key().bits())
                    .unwrap()
                    .is_some()
            );
        }
        // Their values went up to the start's moves into them.
        let up = store.proven_rows(start.key().bits()).unwrap();
        assert_eq!(up.len(), 2, "{up:?}");
        assert!(up.values().all(|p| p.source == ExactSource::Propagated));
        // A root is analysed once even when the table covers it (its statistics were asked
        // for), then not expanded.
        let dir = tempfile::tempdir().unwrap();
        let bare = Store::open(dir.path()).unwrap();
        let mut frontier = Frontier::new(&[b], Vec::new());
        let with_table = Limits {
            table,
            ..limits(10, 100)
        };
        let selection = frontier.select(&bare, 1, with_table, |_| None).unwrap();
        assert_eq!(selection.picks.len(), 1);
        assert!(bare.position_value(b.key().bits()).unwrap().is_some());
    }

    #[test]
    fn selection_stops_after_its_pops_and_pruning_keeps_the_best() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let mut frontier = Frontier::default();
        let table: Table = Position::START
            .legal_moves()
            .iter()
            .take(20)
            .enumerate()
            .map(|(i, &mv)| {
                let counts = Counts {
                    games: 10 + i as u64,
                    wins: 5,
                    draws: 0,
                };
                (mv, counts)
            })
            .collect();
        frontier.expand(Position::START, place(1.0), &table, &ProvenTable::new());
        let pushed = frontier.len();
        assert!(pushed > 3, "{pushed}");
        let first = frontier.select(&store, 1, limits(10, 1), |_| None).unwrap();
        assert_eq!((first.picks.len(), first.unfinished), (1, true));
        frontier.prune(1);
        assert_eq!(frontier.len(), 1);
        let rest = frontier
            .select(&store, 1, limits(10, 100), |_| None)
            .unwrap();
        assert!(rest.picks[0].place.priority <= first.picks[0].place.priority);
        assert_eq!((rest.picks.len(), rest.unfinished), (1, false));
    }
}
