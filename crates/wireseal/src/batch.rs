//! Batch work across cores (rayon), with results in input order, identical to
//! doing the items one at a time.
//!
//! A [`Batch`] runs on rayon's global pool (all cores) or on a pool of a fixed
//! number of threads, which is how benchmarks compare one core with all.

use rayon::prelude::*;

/// Items per rayon task: small packets are cheap, so hand out chunks.
const MIN_CHUNK: usize = 16;

/// Where batch work runs.
#[derive(Debug, Default)]
pub struct Batch {
    pool: Option<rayon::ThreadPool>,
}

impl Batch {
    /// Runs on rayon's global pool (one thread per core).
    pub fn all_cores() -> Self {
        Self { pool: None }
    }

    /// Runs on a dedicated pool of `threads` threads (at least 1).
    pub fn with_threads(threads: usize) -> Self {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .expect("building a rayon pool");
        Self { pool: Some(pool) }
    }

    /// Number of worker threads this batch uses.
    pub fn threads(&self) -> usize {
        match &self.pool {
            Some(p) => p.current_num_threads(),
            None => rayon::current_num_threads(),
        }
    }

    /// `items.map(f)` in parallel, results in input order.
    pub fn map<T, R, F>(&self, items: &[T], f: F) -> Vec<R>
    where
        T: Sync,
        R: Send,
        F: Fn(&T) -> R + Sync + Send,
    {
        let run = || items.par_iter().with_min_len(MIN_CHUNK).map(&f).collect();
        match &self.pool {
            Some(p) => p.install(run),
            None => run(),
        }
    }

    /// Applies `f` to every item in place, in parallel. Items are handed
    /// out in chunks (cheap items: one packet each).
    pub fn for_each_mut<T, F>(&self, items: &mut [T], f: F)
    where
        T: Send,
        F: Fn(&mut T) + Sync + Send,
    {
        self.for_each_mut_chunked(items, MIN_CHUNK, f);
    }

    /// Like [`Batch::for_each_mut`] for items that are each a large job
    /// (a whole session's run of packets): every item may go to its own
    /// thread, so even a handful of jobs spreads over the cores.
    pub fn for_each_mut_coarse<T, F>(&self, items: &mut [T], f: F)
    where
        T: Send,
        F: Fn(&mut T) + Sync + Send,
    {
        self.for_each_mut_chunked(items, 1, f);
    }

    fn for_each_mut_chunked<T, F>(&self, items: &mut [T], min_len: usize, f: F)
    where
        T: Send,
        F: Fn(&mut T) + Sync + Send,
    {
        let mut run = || items.par_iter_mut().with_min_len(min_len).for_each(&f);
        match &self.pool {
            Some(p) => p.install(run),
            None => run(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_keeps_order() {
        let items: Vec<u64> = (0..10_000).collect();
        let serial: Vec<u64> = items.iter().map(|x| x * x + 1).collect();
        assert_eq!(Batch::all_cores().map(&items, |x| x * x + 1), serial);
        let b = Batch::with_threads(2);
        assert_eq!(b.threads(), 2);
        assert_eq!(b.map(&items, |x| x * x + 1), serial);
        let mut m = items.clone();
        b.for_each_mut(&mut m, |x| *x = *x * *x + 1);
        assert_eq!(m, serial);
        let mut m = items.clone();
        b.for_each_mut_coarse(&mut m, |x| *x = *x * *x + 1);
        assert_eq!(m, serial);
    }
}
