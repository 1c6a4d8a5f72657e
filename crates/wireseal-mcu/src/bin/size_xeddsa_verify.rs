//! XEdDSA verification of a Meshtastic packet signature.
#![no_std]
#![no_main]

#[cortex_m_rt::entry]
fn main() -> ! {
    let sig = core::hint::black_box([0u8; 64]);
    core::hint::black_box(wireseal_mcu::parts::xeddsa_verify(&sig));
    wireseal_mcu::harness::finish()
}
