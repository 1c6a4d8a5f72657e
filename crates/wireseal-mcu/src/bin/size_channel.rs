//! Meshtastic channel encryption and decryption (AES-128/256-CTR).
#![no_std]
#![no_main]

use core::hint::black_box;
use wireseal_mcu::ops::meshtastic as mesh;

#[cortex_m_rt::entry]
fn main() -> ! {
    let key = black_box([5u8; 32]);
    let len = black_box(16);
    let iv = mesh::channel_iv(black_box(1), black_box(2));
    let mut buf = black_box([0u8; 64]);
    black_box(mesh::channel_crypt(&key[..len], &iv, &mut buf));
    wireseal_mcu::harness::finish()
}
