//! Deep solves on a cluster: starting one, following it to its value, listing them, and
//! reading back the proven leaf values (from which a certificate is written locally).

use pentago::{LeafTable, Move, Position, Value, ValueBounds};
use pentagrid_proto::{Client, v2, value_of_wire};

use crate::error::{ClientError, Result};
use crate::jobs::poll;

/// Where a deep solve stands.
#[derive(Clone, Debug, PartialEq)]
pub struct DeepStatus {
    /// Its id.
    pub id: u64,
    /// The position as submitted.
    pub position: Position,
    /// Whether the value is proven.
    pub done: bool,
    /// What is proven about the value for the side to move.
    pub bounds: ValueBounds,
    /// A move that achieves the value, once proven (none when the game is over).
    pub best: Option<Move>,
    /// Top nodes the coordinator's last pass visited.
    pub nodes: u64,
    /// Leaf values it took in from results.
    pub leaves_solved: u64,
    /// Leaves in its jobs still queued or leased.
    pub leaves_pending: u64,
    /// Leaves per job.
    pub batch: u32,
    /// Stones of its leaves.
    pub leaf_stones: u32,
}

impl DeepStatus {
    /// The proven value, once done.
    #[must_use]
    pub fn value(&self) -> Option<Value> {
        self.bounds.exact().filter(|_| self.done)
    }
}

fn bound(n: i32) -> Result<i8> {
    i8::try_from(n)
        .ok()
        .filter(|n| (-1..=1).contains(n))
        .ok_or_else(|| ClientError::Unreadable(format!("a bound {n} that is not -1, 0 or 1")))
}

impl TryFrom<&v2::DeepSolveStatusResponse> for DeepStatus {
    type Error = ClientError;

    fn try_from(r: &v2::DeepSolveStatusResponse) -> Result<DeepStatus> {
        let malformed = |what: &str, e: &dyn std::fmt::Display| {
            ClientError::Unreadable(format!("deep solve {} with a bad {what}: {e}", r.solve_id))
        };
        Ok(DeepStatus {
            id: r.solve_id,
            position: r.position.parse().map_err(|e| malformed("position", &e))?,
            done: r.state() == v2::DeepSolveState::Done,
            bounds: ValueBounds::from_i8(bound(r.lower)?, bound(r.upper)?),
            best: match r.best.as_str() {
                "" => None,
                text => Some(text.parse().map_err(|e| malformed("move", &e))?),
            },
            nodes: r.nodes,
            leaves_solved: r.leaves_solved,
            leaves_pending: r.leaves_pending,
            batch: r.batch,
            leaf_stones: r.leaf_stones,
        })
    }
}

/// Starts a deep solve of `position` with `batch` leaves per job and leaves of `leaf_stones`
/// stones (each 0: the coordinator's default, 8 leaves of 18 stones); returns its id.
pub async fn start(
    client: &Client,
    position: &Position,
    batch: u32,
    leaf_stones: u32,
) -> Result<u64> {
    let request = v2::StartDeepSolveRequest {
        position: position.to_string(),
        batch,
        leaf_stones,
    };
    Ok(client
        .clone()
        .start_deep_solve(request)
        .await?
        .into_inner()
        .solve_id)
}

/// Where deep solve `id` stands.
pub async fn status(client: &Client, id: u64) -> Result<DeepStatus> {
    let reply = client
        .clone()
        .deep_solve_status(v2::DeepSolveStatusRequest { solve_id: id })
        .await?
        .into_inner();
    DeepStatus::try_from(&reply)
}

/// Every deep solve of the coordinator, by id.
pub async fn list(client: &Client) -> Result<Vec<DeepStatus>> {
    let reply = client
        .clone()
        .list_deep_solves(v2::ListDeepSolvesRequest {})
        .await?
        .into_inner();
    reply.solves.iter().map(DeepStatus::try_from).collect()
}

/// Follows deep solve `id` until its value is proven, telling `progress` whenever it moved.
pub async fn follow(
    client: &Client,
    id: u64,
    mut progress: impl FnMut(&DeepStatus),
) -> Result<DeepStatus> {
    let mut last: Option<DeepStatus> = None;
    poll(async || {
        let now = status(client, id).await?;
        if last.as_ref() != Some(&now) {
            progress(&now);
        }
        let done = now.done;
        last = Some(now.clone());
        Ok(done.then_some(now))
    })
    .await
}

/// Every proven leaf value the coordinator stores (of all its deep solves), read page by page.
pub async fn leaves(client: &Client) -> Result<LeafTable> {
    let mut table = LeafTable::new();
    let mut after_key = 0;
    loop {
        let page = client
            .clone()
            .deep_leaves(v2::DeepLeavesRequest {
                after_key,
                limit: 0,
            })
            .await?
            .into_inner();
        for leaf in &page.leaves {
            let position: Position = leaf.position.parse().map_err(|e| {
                ClientError::Unreadable(format!("a bad leaf {}: {e}", leaf.position))
            })?;
            let value = value_of_wire(leaf.value).ok().flatten().ok_or_else(|| {
                ClientError::Unreadable(format!("leaf {position} without a value"))
            })?;
            table
                .insert(&position, value)
                .map_err(|e| ClientError::Unreadable(e.to_string()))?;
        }
        if page.next_after_key == 0 {
            return Ok(table);
        }
        after_key = page.next_after_key;
    }
}
