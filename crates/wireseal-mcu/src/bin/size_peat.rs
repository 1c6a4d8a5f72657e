//! peat mesh-wide key derivation, seal and open.
#![no_std]
#![no_main]

use core::hint::black_box;
use wireseal_mcu::ops::peat;

#[cortex_m_rt::entry]
fn main() -> ! {
    let key = peat::derive_key(black_box("DEMO"), &black_box([4u8; 32]));
    let c = peat::cipher(&key);
    let mut frame = black_box([0u8; 128]);
    let n = peat::seal(&c, &black_box([1u8; 12]), &black_box([2u8; 64]), &mut frame).unwrap_or(0);
    black_box(peat::open(&c, &mut frame[..n]));
    wireseal_mcu::harness::finish()
}
