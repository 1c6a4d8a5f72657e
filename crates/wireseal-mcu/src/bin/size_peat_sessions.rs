//! peat per-peer E2EE: key exchange, the fixed session table, a frame
//! sealed and opened.
#![no_std]
#![no_main]

#[cortex_m_rt::entry]
fn main() -> ! {
    let mut frame = core::hint::black_box([0u8; 128]);
    core::hint::black_box(wireseal_mcu::parts::peat_sessions(&mut frame));
    wireseal_mcu::harness::finish()
}
