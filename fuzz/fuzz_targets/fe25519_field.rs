//! `wireseal-fe25519`'s field and X25519 on the host build of the Cortex-M4
//! algorithm (the same integer functions the assembly computes) against a
//! big-integer model (num-bigint) and x25519-dalek: for any two 256-bit
//! integers, multiplication, squaring, addition, subtraction and `×121666`
//! give exactly the model's folded result (below 2^256, congruent mod p),
//! `freeze` gives the residue; for any scalar and u-coordinate, X25519
//! gives x25519-dalek's bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use num_bigint::BigUint;
use wireseal_fe25519::{x25519, Fe};

fn fold(x: &BigUint) -> BigUint {
    (x % (BigUint::from(1u8) << 256)) + (x >> 256) * 38u8
}

fn big(fe: Fe) -> BigUint {
    BigUint::from_slice(&fe.to_limbs())
}

/// The subtraction's integer function: each borrowed 2^256 paid back by
/// subtracting 38, twice.
fn model_sub(a: &BigUint, b: &BigUint) -> BigUint {
    let m = BigUint::from(1u8) << 256;
    let step = |x: &BigUint, y: &BigUint| {
        if x >= y {
            (x - y, false)
        } else {
            (x + &m - y, true)
        }
    };
    let (d1, b1) = step(a, b);
    let (d2, b2) = step(&d1, &BigUint::from(if b1 { 38u8 } else { 0 }));
    if b2 {
        d2 - 38u8
    } else {
        d2
    }
}

fuzz_target!(|data: &[u8]| {
    // Any input: its bytes folded into the two integers' 64 bytes.
    let mut ab = [0u8; 64];
    for (i, byte) in data.iter().enumerate() {
        ab[i % 64] ^= byte;
    }
    let mut a = [0u8; 32];
    let mut b = [0u8; 32];
    a.copy_from_slice(&ab[..32]);
    b.copy_from_slice(&ab[32..]);
    let (fa, fb) = (Fe::from_bytes(&a), Fe::from_bytes(&b));
    let (ba, bb) = (BigUint::from_bytes_le(&a), BigUint::from_bytes_le(&b));
    let p = (BigUint::from(1u8) << 255) - 19u8;
    assert_eq!(big(fa.mul(&fb)), fold(&fold(&fold(&(&ba * &bb)))));
    assert_eq!(big(fa.square()), fold(&fold(&fold(&(&ba * &ba)))));
    assert_eq!(big(fa.add(&fb)), fold(&fold(&(&ba + &bb))));
    assert_eq!(big(fa.sub(&fb)), model_sub(&ba, &bb));
    assert_eq!(big(fa.mul121666()), fold(&fold(&(&ba * 121_666u32))));
    assert_eq!(big(fa.freeze()), &ba % &p);
    assert_eq!(x25519(&a, &b), x25519_dalek::x25519(a, b));
});
