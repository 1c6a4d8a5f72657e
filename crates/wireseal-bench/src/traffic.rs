//! Traffic profiles shared by the bench and the CLI's v2 traffic generator.

use rand::{Rng, SeedableRng};

/// Packet sizes of the mixed traffic profile from a seeded generator: 40%
/// 1–32 bytes, 30% 33–128, 20% 129–512, 10% 513–4096 (about 323 bytes on
/// average).
pub fn mixed_sizes(seed: u64, n: usize) -> Vec<u32> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let (lo, hi) = match rng.gen_range(0..10u32) {
                0..=3 => (1, 32),
                4..=6 => (33, 128),
                7..=8 => (129, 512),
                _ => (513, 4096),
            };
            rng.gen_range(lo..=hi)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_profile_shares_and_bounds() {
        let s = mixed_sizes(7, 100_000);
        assert_eq!(s, mixed_sizes(7, 100_000), "seeded");
        assert!(s.iter().all(|&x| (1..=4096).contains(&x)));
        let share = |lo: u32, hi: u32| {
            s.iter().filter(|&&x| (lo..=hi).contains(&x)).count() as f64 / s.len() as f64
        };
        for (lo, hi, want) in [
            (1, 32, 0.4),
            (33, 128, 0.3),
            (129, 512, 0.2),
            (513, 4096, 0.1),
        ] {
            assert!((share(lo, hi) - want).abs() < 0.01, "{lo}-{hi}");
        }
        let mean = s.iter().map(|&x| x as f64).sum::<f64>() / s.len() as f64;
        assert!((310.0..340.0).contains(&mean), "{mean}");
    }
}
