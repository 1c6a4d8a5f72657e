//! The test firmware: known-answer and negative tests of the portable
//! backend, then instruction counts and peak stack per operation, inside
//! QEMU's emulated Cortex-M4F. Ends with `N passed, M failed`.
#![no_std]
#![no_main]

mod edwards;
mod fe25519;
mod kat;
mod kat_peat_xeddsa;
mod library;
mod library_peat;
mod measure;
mod vectors;

use wireseal_mcu::{harness, hprintln, icount, stack};

#[cortex_m_rt::entry]
fn main() -> ! {
    provoke();
    icount::calibrate();
    let mut g = harness::group("instruction counting (known loops read 2n + c)");
    match icount::self_test() {
        Ok(c) => {
            hprintln!("icount: loop constant c = {}, free stack {} B", c, stack::free());
            g.check(true, format_args!(""));
        }
        Err((n, e)) => g.check(
            false,
            format_args!(
                "loop of {n} read 2n{e:+}: not running under -icount shift={} (use scripts/qemu-run.sh)",
                icount::SHIFT
            ),
        ),
    }
    let counting = g.end();
    kat::run();
    fe25519::run();
    edwards::run(counting);
    if counting {
        measure::run();
    }
    harness::finish()
}

/// `WIRESEAL_MCU_PROVOKE=panic|fault|hang` at build time makes the firmware
/// fail on purpose, to check that the harness reports each as a failure.
fn provoke() {
    match option_env!("WIRESEAL_MCU_PROVOKE") {
        Some("panic") => panic!("provoked panic"),
        Some("fault") => {
            // SAFETY: none; a read of unmapped memory, to raise a HardFault.
            let v = unsafe { core::ptr::read_volatile(0x3000_0000 as *const u32) };
            hprintln!("read {} from unmapped memory: no fault raised", v);
        }
        Some("hang") => loop {
            cortex_m::asm::nop();
        },
        _ => {}
    }
}
