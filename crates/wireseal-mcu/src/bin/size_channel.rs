//! Meshtastic channel AES-CTR.
#![no_std]
#![no_main]

#[cortex_m_rt::entry]
fn main() -> ! {
    let mut buf = core::hint::black_box([0u8; 64]);
    core::hint::black_box(wireseal_mcu::parts::channel(&mut buf));
    wireseal_mcu::harness::finish()
}
