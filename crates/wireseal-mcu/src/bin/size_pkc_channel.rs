//! Meshtastic PKC through the cache plus channel AES-CTR: the firmware's
//! whole packet-crypto path.
#![no_std]
#![no_main]

use core::hint::black_box;
use wireseal_mcu::ops::meshtastic as mesh;

#[cortex_m_rt::entry]
fn main() -> ! {
    let mut cache = mesh::Cache::<[u8; 32], 16>::default();
    let ours = black_box([1u8; 32]);
    let theirs = black_box([9u8; 32]);
    let mut buf = black_box([0u8; 64]);
    if let Some(key) =
        cache.get_or_insert(&theirs, black_box(1), || mesh::shared_key(&ours, &theirs))
    {
        let ccm = mesh::ccm(key);
        black_box(mesh::pkc_seal(&ccm, 1, 2, &[3; 4], &mut buf, 20));
        black_box(mesh::pkc_open(&ccm, 1, 2, &mut buf[..32]));
    }
    let key = black_box([5u8; 32]);
    let len = black_box(16);
    let iv = mesh::channel_iv(black_box(1), black_box(2));
    black_box(mesh::channel_crypt(&key[..len], &iv, &mut buf));
    wireseal_mcu::harness::finish()
}
