//! XEdDSA verification from an X25519 public key.
#![no_std]
#![no_main]

use core::hint::black_box;
use wireseal_mcu::ops::xeddsa;

#[cortex_m_rt::entry]
fn main() -> ! {
    let ok = xeddsa::VerifyingKey::from_x25519(&black_box([9u8; 32]))
        .map(|k| k.verify(&black_box([1u8; 40]), &black_box([2u8; 64])));
    black_box(ok);
    wireseal_mcu::harness::finish()
}
