//! Seeded random streams: one generator type and the seeding that makes parallel work
//! reproducible, shared by both games' playouts and deals.

use rand::SeedableRng;

/// The games' random generator: PCG XSH-RR 64/32, small state, fast, reproducible by seed.
pub type EngineRng = rand_pcg::Pcg32;

/// A generator seeded from `seed` and a stream number, so parallel work can draw independent,
/// reproducible streams (`stream` is typically a chunk or thread index).
#[must_use]
pub fn seeded_rng(seed: u64, stream: u64) -> EngineRng {
    EngineRng::seed_from_u64(splitmix64(seed ^ splitmix64(stream.wrapping_add(0x9E37))))
}

/// SplitMix64 finaliser: spreads nearby seeds to unrelated generator states.
#[must_use]
pub const fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use rand::RngExt;

    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let draw = |seed, stream| seeded_rng(seed, stream).random::<u64>();
        assert_eq!(draw(7, 0), draw(7, 0));
        assert_ne!(draw(7, 0), draw(7, 1));
        assert_ne!(draw(7, 0), draw(8, 0));
        assert_ne!(splitmix64(0), splitmix64(1));
    }
}
