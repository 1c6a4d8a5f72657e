//! The batch's scheduling: order, coverage, and where the work runs.

use super::*;
use std::time::Duration;

/// A two-thread batch that assumes a fan-out costs `nanos`.
fn two_threads_costing(nanos: u64) -> Batch {
    let b = Batch::with_threads(2);
    Batch {
        fan_out: FanOutCost::new(nanos),
        ..b
    }
}

#[test]
fn work_below_the_break_even_stays_on_the_calling_thread() {
    let me = std::thread::current().id();
    let items: Vec<u32> = (0..5_000).collect();
    // A fan-out assumed to cost 20 ms: 5,000 additions never pay for it.
    let b = two_threads_costing(20_000_000);
    let where_: Vec<_> = b.map(&items, |_| std::thread::current().id());
    assert!(where_.iter().all(|t| *t == me));
    let mut seen = vec![None; items.len()];
    b.for_each_mut_coarse(&mut seen, |s| *s = Some(std::thread::current().id()));
    assert!(seen.iter().all(|t| *t == Some(me)));
}

#[test]
fn work_above_the_break_even_spreads_and_teaches_the_cost() {
    let me = std::thread::current().id();
    let b = two_threads_costing(1_000);
    let before = b.fan_out.nanos();
    // 16 items of 2 ms: after the first, 30 ms are left alone.
    let items: Vec<u32> = (0..16).collect();
    let where_ = b.map(&items, |_| {
        std::thread::sleep(Duration::from_millis(2));
        std::thread::current().id()
    });
    assert_eq!(where_[0], me, "the first chunk times the work");
    assert!(where_.iter().any(|t| *t != me), "spread over the pool");
    assert_ne!(b.fan_out.nanos(), before, "the fan-out was measured");
}

#[test]
fn small_calls_that_stay_alone_stop_timing_and_costly_ones_still_spread() {
    let me = std::thread::current().id();
    let b = two_threads_costing(1_000);
    // Four cheap items: alone, and after a few such calls untimed.
    for _ in 0..32 {
        assert!(b
            .map(&[1u32, 2, 3, 4], |_| std::thread::current().id())
            .iter()
            .all(|t| *t == me));
    }
    assert!(
        b.small.untimed() || b.small.untimed(),
        "quiet small calls go untimed"
    );
    // Four items of 20 ms on a fresh batch: timed, and spread (the helper
    // has 40 ms to start before the calling thread takes the last item).
    let b = two_threads_costing(1_000);
    let where_ = b.map(&[1u32, 2, 3, 4], |_| {
        std::thread::sleep(Duration::from_millis(20));
        std::thread::current().id()
    });
    assert!(where_.iter().any(|t| *t != me), "spread over the pool");
    assert!(
        !b.small.untimed(),
        "a small call that spread keeps them timed"
    );
}

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

#[test]
fn regions_get_their_own_bytes() {
    let lens: Vec<usize> = (0..5_000).map(|i| i % 7).collect();
    let ranges = consecutive_ranges(lens.iter().copied());
    let total = total_len(lens.iter().copied());
    assert_eq!(ranges.last().map(|r| r.end), Some(total));
    assert!(ranges_fit(&ranges, total) && !ranges_fit(&ranges, total - 1));
    let mut out = vec![0u8; total];
    let mut seen = vec![0usize; lens.len()];
    Batch::with_threads(2).for_each_region(&mut seen, &ranges, &mut out, |i, s, region| {
        *s = region.len();
        region.fill(i as u8);
    });
    assert_eq!(seen, lens);
    for (i, r) in ranges.iter().enumerate() {
        assert!(out[r.clone()].iter().all(|&b| b == i as u8));
    }
    assert_eq!(total_len([usize::MAX, 1]), usize::MAX);
    assert!(!ranges_fit(&[2..3, 1..2], 10));
}

#[test]
fn regions_with_gaps_and_large_items() {
    // Items over a chunk's byte budget, empty ones, and gaps between
    // ranges that no item owns (they must be left alone).
    let lens = [40_000usize, 0, 3, 70_000, 1, 0, 33_000, 5];
    let mut ranges = Vec::new();
    let mut at = 7;
    for n in lens {
        ranges.push(at..at + n);
        at += n + 2;
    }
    let mut out = vec![0xeeu8; at + 9];
    let mut seen = vec![usize::MAX; lens.len()];
    for threads in [1, 2, 3] {
        Batch::with_threads(threads).for_each_region(
            &mut seen,
            &ranges,
            &mut out,
            |i, s, region| {
                *s = i;
                region.fill(i as u8);
            },
        );
        assert_eq!(seen, (0..lens.len()).collect::<Vec<_>>());
        let mut owner = vec![None; out.len()];
        for (i, r) in ranges.iter().enumerate() {
            owner[r.clone()].iter_mut().for_each(|o| *o = Some(i as u8));
        }
        for (b, o) in out.iter().zip(&owner) {
            assert_eq!(*b, o.unwrap_or(0xee));
        }
    }
    let mut none: [u8; 0] = [];
    Batch::with_threads(2).for_each_region(&mut none, &[], &mut [], |_, _, _| panic!("no items"));
    assert!(Batch::with_threads(2).map(&none, |x| *x).is_empty());
    let odd: Vec<u32> = (0..(MAX_CHUNK as u32 * 5 + 3)).collect();
    assert_eq!(
        Batch::with_threads(3).map(&odd, |x| x + 1),
        (1..=odd.len() as u32).collect::<Vec<_>>()
    );
}

#[test]
fn a_calling_thread_batch_never_leaves_the_calling_thread() {
    let me = std::thread::current().id();
    let b = Batch::calling_thread();
    assert_eq!(b.threads(), 1);
    // Enough work that a pool would spread it (a 1 ms spin per item).
    let items: Vec<u32> = (0..64).collect();
    let spin = |_: &u32| {
        let t = std::time::Instant::now();
        while t.elapsed() < Duration::from_millis(1) {}
        std::thread::current().id()
    };
    assert!(b.map(&items, spin).iter().all(|t| *t == me));
    let mut seen = vec![None; 64];
    b.for_each_mut_coarse(&mut seen, |s| *s = Some(std::thread::current().id()));
    assert!(seen.iter().all(|t| *t == Some(me)));
    let (mut bg, fg) = (None, std::thread::current().id());
    b.overlap(|| bg = Some(std::thread::current().id()), || ());
    assert_eq!((bg, fg), (Some(me), me));
}
