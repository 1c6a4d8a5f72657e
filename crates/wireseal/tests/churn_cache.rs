//! The shared-secret cache under churn: 100,000 distinct peers, each looked
//! up once and inserted on the miss, against caches of several capacities.
//! The bound is structural: never more live entries than slots, exactly one
//! eviction per insert past the capacity, only the most recent `capacity`
//! peers still served, and not one heap allocation after construction
//! (counted with dhat as the allocator). Bounded in count; no clock.

use wireseal::cache::SharedSecretCache;
use wireseal::secret::Secret;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

const PEERS: usize = 100_000;

/// Heap blocks other threads of the test process may allocate while the
/// churn runs; far below one per operation.
const HARNESS_SLACK: u64 = 16;

/// A distinct 32-byte public key for each index (the bytes need not be a
/// curve point: the cache keys by bytes and derives through the closure).
fn peer(i: usize) -> [u8; 32] {
    let mut k = [0x5a; 32];
    k[..8].copy_from_slice(&(i as u64).to_le_bytes());
    k[31] = (i as u8).wrapping_mul(31);
    k
}

/// The cached value derived for a peer: any function of the key will do.
fn derive(pk: &[u8; 32]) -> Result<Secret<32>, ()> {
    let mut v = *pk;
    v.reverse();
    Ok(Secret::new(v))
}

/// One test, so that nothing else allocates while dhat counts.
#[test]
fn cache_churn() {
    let _profiler = dhat::Profiler::builder().testing().build();
    hundred_thousand_peers_stay_within_capacity();
    churn_with_ttl_reuses_expired_slots();
}

fn hundred_thousand_peers_stay_within_capacity() {
    let own = [7u8; 32];
    for capacity in [1usize, 16, 1024] {
        let mut cache: SharedSecretCache<Secret<32>, 32> = SharedSecretCache::new(&own, capacity);
        let before = dhat::HeapStats::get();
        for i in 0..PEERS {
            let pk = peer(i);
            let v = cache
                .get_or_try_insert_with(i as u64, &pk, derive)
                .expect("derive never fails");
            assert_eq!(v.expose()[31], pk[0], "value belongs to its peer");
            assert!(
                cache.len() <= capacity,
                "capacity {capacity}: {} live",
                cache.len()
            );
        }
        let after = dhat::HeapStats::get();
        // dhat counts the whole process: the test harness's own threads may
        // allocate a few blocks meanwhile (seen under heavy load). The cache
        // allocating per insert or eviction would show as 100,000 or more.
        let blocks = after.total_blocks - before.total_blocks;
        assert!(
            blocks <= HARNESS_SLACK,
            "capacity {capacity}: {blocks} heap blocks allocated during {PEERS} inserts"
        );
        let s = cache.stats();
        assert_eq!(cache.len(), capacity);
        assert_eq!((s.hits, s.misses), (0, PEERS as u64), "every peer was new");
        assert_eq!(
            s.evictions,
            (PEERS - capacity) as u64,
            "one eviction per insert past capacity"
        );
        // Exactly the most recent `capacity` peers are still cached.
        let now = PEERS as u64;
        let served = (0..PEERS)
            .filter(|&i| cache.peek(now, &peer(i)).is_some())
            .count();
        assert_eq!(served, capacity);
        assert!((PEERS - capacity..PEERS).all(|i| cache.peek(now, &peer(i)).is_some()));
        println!(
            "capacity {capacity}: {PEERS} peers, {} evictions, {} live, {blocks} heap blocks allocated meanwhile (heap {} bytes in {} blocks)",
            s.evictions,
            cache.len(),
            after.curr_bytes,
            after.curr_blocks
        );
    }
}

/// With a time-to-live the same churn also expires entries; expired slots
/// are reused, never added.
fn churn_with_ttl_reuses_expired_slots() {
    let own = [9u8; 32];
    let capacity = 64;
    let mut cache: SharedSecretCache<Secret<32>, 32> =
        SharedSecretCache::new(&own, capacity).with_ttl(10);
    for i in 0..PEERS {
        // Each peer comes back once, 20 ticks later: by then it has expired.
        let t = i as u64;
        cache
            .get_or_try_insert_with(t, &peer(i), derive)
            .expect("derive");
        if i >= 20 {
            cache
                .get_or_try_insert_with(t, &peer(i - 20), derive)
                .expect("derive");
        }
        assert!(cache.len() <= capacity);
    }
    let s = cache.stats();
    assert_eq!(s.hits, 0, "every return came after the time-to-live");
    assert_eq!(s.misses, (2 * PEERS - 20) as u64);
    assert!(s.expirations + s.evictions >= (2 * PEERS - 20 - capacity) as u64);
}
