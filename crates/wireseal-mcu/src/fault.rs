//! Panics, HardFaults and unexpected interrupts end the run as failed, with
//! what happened printed first. (Usage, bus and memory faults are left
//! disabled, so they escalate to HardFault, whose CFSR tells which.)

use cortex_m_rt::{exception, ExceptionFrame};
use cortex_m_semihosting::hprintln;

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    hprintln!("{}", info);
    crate::harness::abort()
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    // SAFETY (of the register reads): SCB's fault status registers are
    // always readable on ARMv7-M.
    let scb = unsafe { &*cortex_m::peripheral::SCB::PTR };
    hprintln!(
        "HardFault: pc={:#010x} lr={:#010x} hfsr={:#010x} cfsr={:#010x}",
        frame.pc(),
        frame.lr(),
        scb.hfsr.read(),
        scb.cfsr.read()
    );
    crate::harness::abort()
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    hprintln!("unexpected exception or interrupt {}", irqn);
    crate::harness::abort()
}
