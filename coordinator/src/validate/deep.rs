//! Checking a deep-leaves result: one exact value per leaf, kept under the leaf's canonical
//! key (a value for the side to move is the same in every frame).

use pentago::{Position, Value};

use super::InvalidResult;
use crate::store::ResultEffect;

/// The effect of `values` as the result of a job valuing `leaves`.
pub(super) fn leaves_effect(
    leaves: &[Position],
    values: &[Value],
) -> Result<ResultEffect, InvalidResult> {
    if leaves.len() != values.len() {
        return Err(InvalidResult::LeafValues {
            values: values.len(),
            leaves: leaves.len(),
        });
    }
    Ok(ResultEffect {
        deep_leaves: leaves
            .iter()
            .zip(values)
            .map(|(leaf, value)| (leaf.canonical_key().bits(), *value))
            .collect(),
        ..ResultEffect::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_leaf_keyed_canonically() {
        let leaf: Position = "xoxoxo/oxoxox/xoxoxo/....../....../......".parse().unwrap();
        let effect = leaves_effect(&[leaf], &[Value::Draw]).unwrap();
        assert_eq!(
            effect.deep_leaves,
            vec![(leaf.canonical_key().bits(), Value::Draw)]
        );
        assert_eq!(
            leaves_effect(&[leaf], &[]).unwrap_err(),
            InvalidResult::LeafValues {
                values: 0,
                leaves: 1
            }
        );
        assert!(leaves_effect(&[leaf, leaf], &[Value::Win, Value::Win, Value::Win]).is_err());
    }
}
