//! The marker `plugin/trace_hash.c` watches: a run of firmware between two
//! calls of [`mark`] is fingerprinted by the addresses it executes and
//! touches (see `scripts/trace-check.sh`).

/// Opens or closes the plugin's window (it counts calls, so calls come in
/// pairs around the operation).
#[no_mangle]
#[inline(never)]
pub extern "C" fn wsmcu_trace_mark() {
    core::hint::black_box(());
}

/// Runs `op` between two marks, its input and output kept from being
/// optimised across the window. Never inlined, so every run of one call
/// site executes one copy of the code even where the caller's loop is
/// unrolled.
#[inline(never)]
pub fn traced<T, R>(input: T, op: impl FnOnce(T) -> R) -> R {
    let input = core::hint::black_box(input);
    wsmcu_trace_mark();
    let out = op(input);
    wsmcu_trace_mark();
    core::hint::black_box(out)
}
