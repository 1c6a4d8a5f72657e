//! A reproducible test-traffic profile for v2 sessions: packet sizes and
//! contents that a sender and a checker can both regenerate from a seed.
//!
//! `wireseal bip324 connect` sends it and checks every echo, and `wireseal
//! bench` measures it, so the two speak of the same traffic; it is also what
//! a user can point at their own v2 peer to test it. It is test traffic, not
//! a protocol rule: nothing in the transport depends on it, so it lives
//! beside the library, not in it.
//!
//! The size mix, [`mixed_sizes`]: 40 % of packets carry 1–32 bytes, 30 %
//! 33–128, 20 % 129–512, 10 % 513–4096 (about 323 bytes on average),
//! mostly small messages (inventory, pings, addresses) with some
//! transactions. The generator is SplitMix64: fast, seeded, not
//! cryptographic, and never used for anything secret.

/// SplitMix64, the seeded generator behind the profile.
#[derive(Debug, Clone)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi` (multiply-shift; the bias is below 2^-32).
    fn range(&mut self, lo: u32, hi: u32) -> u32 {
        let span = u64::from(hi - lo) + 1;
        lo + ((u128::from(self.next()) * u128::from(span)) >> 64) as u32
    }
}

/// `n` packet sizes of the mixed profile from `seed` (the same seed always
/// gives the same sizes).
pub fn mixed_sizes(seed: u64, n: usize) -> Vec<u32> {
    let mut rng = SplitMix64(seed);
    (0..n)
        .map(|_| {
            let (lo, hi) = match rng.range(0, 9) {
                0..=3 => (1, 32),
                4..=6 => (33, 128),
                7..=8 => (129, 512),
                _ => (513, 4096),
            };
            rng.range(lo, hi)
        })
        .collect()
}

/// The contents of packet `index` with `len` bytes, into `out` (cleared
/// first): byte `j` is `31 * index + j` (mod 256), so a checker can tell a
/// packet from its neighbours and from a shifted copy of itself.
pub fn contents(index: usize, len: usize, out: &mut Vec<u8>) {
    out.clear();
    out.extend((0..len).map(|j| index.wrapping_mul(31).wrapping_add(j) as u8));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_profile_shares_and_bounds() {
        let s = mixed_sizes(7, 100_000);
        assert_eq!(s, mixed_sizes(7, 100_000), "seeded");
        assert_ne!(s, mixed_sizes(8, 100_000), "the seed matters");
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
        assert_eq!(s.iter().min(), Some(&1));
        assert!(s.iter().max() > Some(&4080), "the top band is reached");
        let mean = s.iter().map(|&x| x as f64).sum::<f64>() / s.len() as f64;
        assert!((310.0..340.0).contains(&mean), "{mean}");
    }

    #[test]
    fn contents_follow_the_formula() {
        let mut out = vec![9u8; 3];
        contents(2, 5, &mut out);
        assert_eq!(out, [62, 63, 64, 65, 66]);
        contents(9, 0, &mut out);
        assert!(out.is_empty());
        contents(1000, 2, &mut out);
        assert_eq!(out, [(31_000 % 256) as u8, (31_001 % 256) as u8]);
    }
}
