//! The size baseline: the harness alone (start-up, semihosting, panic and
//! fault handlers). Every other `size-*` binary is this plus one part.
#![no_std]
#![no_main]

#[cortex_m_rt::entry]
fn main() -> ! {
    core::hint::black_box([0u8; 32]);
    wireseal_mcu::harness::finish()
}
