//! Measurement helpers: calibrated batches, several samples, the median.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Bench settings shared by every section.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// `--full`: longer samples and larger workloads.
    pub full: bool,
}

impl Ctx {
    /// Time budget for one measurement.
    pub fn budget(&self) -> Duration {
        if self.full {
            Duration::from_millis(1500)
        } else {
            Duration::from_millis(200)
        }
    }

    /// Number of samples whose median is reported.
    pub fn samples(&self) -> usize {
        if self.full {
            15
        } else {
            7
        }
    }

    /// Median seconds per call of `f`.
    pub fn time_per_op<R>(&self, mut f: impl FnMut() -> R) -> f64 {
        let n = self.calibrate(&mut f);
        let mut v: Vec<f64> = (0..self.samples()).map(|_| sample(&mut f, n)).collect();
        median(&mut v)
    }

    /// Median seconds per call of `a` and of `b`, sampled alternately (a, b,
    /// a, b, ...) so that load on a shared machine hits both alike. Use it
    /// for any two figures whose ratio is reported.
    pub fn time_pair_per_op<RA, RB>(
        &self,
        a: impl FnMut() -> RA,
        b: impl FnMut() -> RB,
    ) -> (f64, f64) {
        let t = self.time_pair_ratio_per_op(self.samples(), a, b);
        (t.a, t.b)
    }

    /// Like [`Ctx::time_pair_per_op`] over `samples` alternated pairs (at
    /// least 3), with the median of the per-pair ratios `a / b` as well: a
    /// burst of load on a shared machine spoils one pair's ratio rather
    /// than shifting either median.
    pub fn time_pair_ratio_per_op<RA, RB>(
        &self,
        samples: usize,
        mut a: impl FnMut() -> RA,
        mut b: impl FnMut() -> RB,
    ) -> PairTimes {
        let (na, nb) = (self.calibrate(&mut a), self.calibrate(&mut b));
        PairTimes::of((0..samples.max(3)).map(|_| (sample(&mut a, na), sample(&mut b, nb))))
    }

    /// Like [`Ctx::time_pair_job`], with the median of the per-pair ratios
    /// `a / b` as well.
    pub fn time_pair_ratio_job<RA, RB>(
        &self,
        samples: usize,
        mut a: impl FnMut() -> RA,
        mut b: impl FnMut() -> RB,
    ) -> PairTimes {
        PairTimes::of((0..samples.max(3)).map(|_| (job(&mut a), job(&mut b))))
    }

    /// How many calls of `f` fill one sample's share of the budget.
    fn calibrate<R>(&self, f: &mut impl FnMut() -> R) -> u64 {
        calls_per_sample(self.budget().as_secs_f64() / self.samples() as f64, f)
    }

    /// Median seconds for one call of `f` that does a whole, large job (no
    /// calibration; `samples` runs, at least 3).
    pub fn time_job<R>(&self, samples: usize, mut f: impl FnMut() -> R) -> f64 {
        let mut v: Vec<f64> = (0..samples.max(3)).map(|_| job(&mut f)).collect();
        median(&mut v)
    }

    /// Median seconds of whole jobs `a` and `b` (no calibration), run
    /// alternately `samples` times each (at least 3), so that load drift
    /// hits both alike: one core against all, ours against a peer.
    pub fn time_pair_job<RA, RB>(
        &self,
        samples: usize,
        a: impl FnMut() -> RA,
        b: impl FnMut() -> RB,
    ) -> (f64, f64) {
        let t = self.time_pair_ratio_job(samples, a, b);
        (t.a, t.b)
    }
}

/// Two figures sampled in alternated pairs: the median seconds of each and
/// the median of the per-pair ratios `a / b`.
#[derive(Debug, Clone, Copy)]
pub struct PairTimes {
    /// Median seconds of `a`.
    pub a: f64,
    /// Median seconds of `b`.
    pub b: f64,
    /// Median of `a_i / b_i` over the pairs.
    pub ratio: f64,
}

impl PairTimes {
    fn of(pairs: impl Iterator<Item = (f64, f64)>) -> Self {
        let (mut va, mut vb, mut vr) = (Vec::new(), Vec::new(), Vec::new());
        for (a, b) in pairs {
            va.push(a);
            vb.push(b);
            vr.push(a / b.max(1e-12));
        }
        Self {
            a: median(&mut va),
            b: median(&mut vb),
            ratio: median(&mut vr),
        }
    }
}

/// Seconds of one call of `f`.
fn job<R>(f: &mut impl FnMut() -> R) -> f64 {
    let t = Instant::now();
    black_box(f());
    t.elapsed().as_secs_f64()
}

/// Seconds per call of `f`, over `n` calls.
fn sample<R>(f: &mut impl FnMut() -> R, n: u64) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        black_box(f());
    }
    t.elapsed().as_secs_f64() / n as f64
}

/// Median of `v` (sorted in place).
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// How many calls of `f` fill one sample of `per` seconds (grown by 4x until
/// a quarter of `per` is reached, then scaled up).
pub(super) fn calls_per_sample<R>(per: f64, f: &mut impl FnMut() -> R) -> u64 {
    let mut n: u64 = 1;
    loop {
        let t = Instant::now();
        for _ in 0..n {
            black_box(f());
        }
        let el = t.elapsed().as_secs_f64();
        if el >= per / 4.0 || n >= 1 << 30 {
            let scale = (per / el.max(1e-9)).clamp(1.0, 1e6);
            return ((n as f64) * scale).ceil() as u64;
        }
        n *= 4;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn pair_ratio_is_the_median_of_each_pairs_ratio() {
        let p = PairTimes::of([(2.0, 1.0), (4.0, 1.0), (30.0, 10.0)].into_iter());
        assert_eq!((p.a, p.b, p.ratio), (4.0, 1.0, 3.0));
    }

    #[test]
    fn sleeping_job_is_timed() {
        let c = Ctx { full: false };
        let t = c.time_job(3, || std::thread::sleep(Duration::from_millis(5)));
        assert!(t >= 0.005, "{t}");
    }
}
