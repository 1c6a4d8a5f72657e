//! Meshtastic PKC seal and open through a 16-slot cache of 32-byte keys.
#![no_std]
#![no_main]

#[cortex_m_rt::entry]
fn main() -> ! {
    let mut buf = core::hint::black_box([0u8; 64]);
    core::hint::black_box(wireseal_mcu::parts::pkc(&mut buf));
    wireseal_mcu::harness::finish()
}
