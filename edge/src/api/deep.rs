//! Deep solves on the wire: reports and pages of proven leaves.

use pentago::{Position, Value};
use pentagrid_proto::{v2, value_to_wire};

use pentagrid_coordinator::deep::DeepReport;

/// Leaves per page of `DeepLeaves` when the request leaves it open, and the most it may ask:
/// about 60 bytes each, far below the message cap.
const LEAVES_PAGE: usize = 10_000;

/// The page size a `DeepLeaves` request asks for, within [`LEAVES_PAGE`].
pub(super) fn page_limit(limit: u32) -> usize {
    match limit as usize {
        0 => LEAVES_PAGE,
        n => n.min(LEAVES_PAGE),
    }
}

/// The wire form of a deep solve's report.
pub(super) fn report(report: &DeepReport) -> v2::DeepSolveStatusResponse {
    let r = &report.record;
    let value = r.value();
    let state = if r.done {
        v2::DeepSolveState::Done
    } else {
        v2::DeepSolveState::Running
    };
    v2::DeepSolveStatusResponse {
        solve_id: report.id,
        position: r.position.clone(),
        state: state as i32,
        value: value_to_wire(value) as i32,
        lower: r.lower,
        upper: r.upper,
        best: r.best.clone(),
        nodes: r.nodes,
        leaves_solved: r.leaves_solved,
        leaves_pending: report.leaves_pending,
        batch: r.batch,
        leaf_stones: r.leaf_stones,
    }
}

/// A page of proven leaves; the next page starts after the last key when the page is full.
pub(super) fn leaves_page(leaves: &[(Position, Value)], limit: usize) -> v2::DeepLeavesResponse {
    let next_after_key = if leaves.len() == limit {
        leaves.last().map_or(0, |(p, _)| p.canonical_key().bits())
    } else {
        0
    };
    v2::DeepLeavesResponse {
        leaves: leaves
            .iter()
            .map(|(position, value)| v2::DeepLeaf {
                position: position.to_string(),
                value: value_to_wire(Some(*value)) as i32,
            })
            .collect(),
        next_after_key,
    }
}
