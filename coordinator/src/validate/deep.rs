//! Checking a deep-leaves result: one exact value per leaf, kept under the leaf's canonical
//! key (a value for the side to move is the same in every frame).

use std::collections::HashMap;

use pentago::{Position, Value, rotated_variants};

use super::InvalidResult;
use pentagrid_store::ResultEffect;

/// The effect of `values` (and the leaves' `rotated` values, see
/// [`pentagrid_model::Outcome::DeepLeaves`]) as the result of a job valuing `leaves`.
pub(super) fn leaves_effect(
    leaves: &[Position],
    values: &[Value],
    rotated: &[Vec<Option<Value>>],
) -> Result<ResultEffect, InvalidResult> {
    if leaves.len() != values.len() {
        return Err(InvalidResult::LeafValues {
            values: values.len(),
            leaves: leaves.len(),
        });
    }
    if !rotated.is_empty() && rotated.len() != leaves.len() {
        return Err(InvalidResult::RotatedLists {
            lists: rotated.len(),
            leaves: leaves.len(),
        });
    }
    let mut seen = Values::default();
    let deep_leaves = leaves
        .iter()
        .zip(values)
        .map(|(leaf, value)| seen.add(leaf, *value))
        .collect::<Result<_, _>>()?;
    let deep_rotated = leaves
        .iter()
        .zip(rotated)
        .enumerate()
        .map(|(i, (leaf, family))| rotated_effect(i + 1, leaf, family, &mut seen))
        .collect::<Result<_, _>>()?;
    Ok(ResultEffect {
        deep_leaves,
        deep_rotated,
        ..ResultEffect::default()
    })
}

/// The canonical keys and values of one leaf's rotated variants (none when `family` is empty,
/// as for a leaf valued by alpha-beta).
fn rotated_effect(
    leaf_number: usize,
    leaf: &Position,
    family: &[Option<Value>],
    seen: &mut Values,
) -> Result<Vec<(u64, Value)>, InvalidResult> {
    if family.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for (variant, value) in rotated_variants(leaf).into_iter().zip(family) {
        match (variant.is_over(), value) {
            (false, Some(value)) => out.push(seen.add(&variant, *value)?),
            (true, None) => {}
            (false, None) => {
                return Err(InvalidResult::RotatedMissing {
                    leaf: leaf_number,
                    variant,
                });
            }
            (true, Some(_)) => {
                return Err(InvalidResult::RotatedOver {
                    leaf: leaf_number,
                    variant,
                });
            }
        }
    }
    Ok(out)
}

/// The values a result gives, by canonical key: one position may appear more than once (a
/// symmetric quadrant turns into itself), never with two values.
#[derive(Default)]
struct Values(HashMap<u64, Value>);

impl Values {
    fn add(&mut self, position: &Position, value: Value) -> Result<(u64, Value), InvalidResult> {
        let key = position.canonical_key().bits();
        match self.0.insert(key, value) {
            Some(first) if first != value => Err(InvalidResult::ConflictingLeafValues {
                position: *position,
                first,
                second: value,
            }),
            _ => Ok((key, value)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_leaf_keyed_canonically() {
        let leaf: Position = "xoxoxo/oxoxox/xoxoxo/....../....../......".parse().unwrap();
        let effect = leaves_effect(&[leaf], &[Value::Draw], &[]).unwrap();
        assert_eq!(
            effect.deep_leaves,
            vec![(leaf.canonical_key().bits(), Value::Draw)]
        );
        assert_eq!(
            leaves_effect(&[leaf], &[], &[]).unwrap_err(),
            InvalidResult::LeafValues {
                values: 0,
                leaves: 1
            }
        );
        assert!(leaves_effect(&[leaf, leaf], &[Value::Win, Value::Win, Value::Win], &[]).is_err());
        assert!(leaves_effect(&[leaf, leaf], &[Value::Win, Value::Draw], &[]).is_err());
    }

    /// A 22-stone leaf (a fast midsolve) and its true rotated values.
    fn leaf_with_family() -> (Position, Value, Vec<Option<Value>>) {
        let leaf: Position = "xoxoxo/oxoxox/xoxoxo/xoxo../....../......".parse().unwrap();
        let solved = pentago::midsolve(&leaf).unwrap();
        (leaf, solved.value, solved.rotated)
    }

    #[test]
    fn rotated_values_are_kept_under_their_variants_keys() {
        let (leaf, value, family) = leaf_with_family();
        let effect = leaves_effect(&[leaf], &[value], std::slice::from_ref(&family)).unwrap();
        let expected: Vec<(u64, Value)> = rotated_variants(&leaf)
            .iter()
            .zip(&family)
            .filter_map(|(p, v)| v.map(|v| (p.canonical_key().bits(), v)))
            .collect();
        assert!(expected.len() > 100);
        assert_eq!(effect.deep_rotated, vec![expected]);
        // A leaf valued without a midsolve has no list of its own.
        let effect = leaves_effect(&[leaf, leaf], &[value, value], &[family, vec![]]).unwrap();
        assert!(effect.deep_rotated[1].is_empty());
    }

    #[test]
    fn malformed_rotated_values_are_refused() {
        let (leaf, value, family) = leaf_with_family();
        assert_eq!(
            leaves_effect(
                &[leaf, leaf],
                &[value, value],
                std::slice::from_ref(&family)
            )
            .unwrap_err(),
            InvalidResult::RotatedLists {
                lists: 1,
                leaves: 2
            }
        );
        let ongoing = family.iter().position(Option::is_some).unwrap();
        let mut missing = family.clone();
        missing[ongoing] = None;
        assert!(matches!(
            leaves_effect(&[leaf], &[value], &[missing]),
            Err(InvalidResult::RotatedMissing { leaf: 1, .. })
        ));
        // The same position given two values: as a leaf of its own and as a variant.
        let variant = rotated_variants(&leaf)[ongoing];
        let truth = family[ongoing].unwrap();
        let other = if truth == Value::Win {
            Value::Loss
        } else {
            Value::Win
        };
        assert!(matches!(
            leaves_effect(&[leaf, variant], &[value, other], &[family, vec![]]),
            Err(InvalidResult::ConflictingLeafValues { .. })
        ));
    }
}
