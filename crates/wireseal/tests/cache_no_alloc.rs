//! The SharedSecretCache allocates everything up front: inserts, evictions,
//! invalidations and lookups never touch the heap afterwards, however much
//! the entries churn (counted with dhat's heap profiler as the allocator).

use wireseal::cache::SharedSecretCache;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::pkc::PkcKey;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

#[test]
fn churn_after_construction_never_allocates() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let own = StaticSecret::generate();
    // Real Meshtastic values (expanded AES-256-CCM keys), made in advance.
    let peers: Vec<[u8; 32]> = (0..64)
        .map(|_| *StaticSecret::generate().public_key())
        .collect();
    let mut values: Vec<Option<PkcKey>> = (0..3000)
        .map(|i| Some(PkcKey::derive(&own, &peers[i % peers.len()]).unwrap()))
        .collect();
    for capacity in [1usize, 16, 17, 40] {
        let mut cache: SharedSecretCache<PkcKey, 32> =
            SharedSecretCache::new(own.public_key(), capacity);
        let before = dhat::HeapStats::get();
        for (i, v) in values.iter_mut().enumerate().take(750) {
            let peer = &peers[(i * 7) % peers.len()];
            let _ = cache.get(0, peer);
            cache.insert(0, peer, v.take().expect("each value used once"));
            if i % 3 == 0 {
                cache.invalidate(&peers[(i * 11) % peers.len()]);
            }
        }
        let after = dhat::HeapStats::get();
        // dhat counts the whole process: the test harness's own threads may
        // allocate a few blocks meanwhile. A cache allocating per insert,
        // eviction or lookup would show 750 or more.
        let blocks = after.total_blocks - before.total_blocks;
        assert!(
            blocks <= 16,
            "capacity {capacity}: {blocks} heap blocks allocated after construction"
        );
        assert!(cache.stats().evictions > 0 || capacity >= peers.len());
        values.rotate_left(750);
    }
}
