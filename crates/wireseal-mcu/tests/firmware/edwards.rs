//! `wireseal-fe25519`'s Edwards25519 on the Cortex-M4 against
//! curve25519-dalek: base-point and double-scalar multiplication, the
//! decoder and the Montgomery map on random inputs and edge encodings,
//! compared as encodings byte for byte.

use crate::library::test_rng;
use curve25519_dalek::constants::EIGHT_TORSION;
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint as DalekPoint};
use curve25519_dalek::montgomery::MontgomeryPoint;
use curve25519_dalek::scalar::Scalar;
use rand_chacha::rand_core::RngCore;
use rand_chacha::ChaCha20Rng;
use wireseal_fe25519::edwards::{double_scalar_mul_vartime, mul_base, EdwardsPoint};
use wireseal_mcu::harness::group;
use wireseal_mcu::icount;

/// Random inputs per operation.
const RANDOM: u32 = 200;

fn random_scalar(rng: &mut ChaCha20Rng) -> Scalar {
    let mut wide = [0u8; 64];
    rng.fill_bytes(&mut wide);
    Scalar::from_bytes_mod_order_wide(&wide)
}

/// The 32 bytes of `p + k` for a small `k` (negative allowed).
fn p_plus(k: i32) -> [u8; 32] {
    let mut out = [0xffu8; 32];
    out[31] = 0x7f;
    out[0] = 0xed;
    let mut carry = k;
    for b in out.iter_mut() {
        let v = i32::from(*b) + carry;
        *b = v.rem_euclid(256) as u8;
        carry = v.div_euclid(256);
    }
    out
}

fn small(v: u8) -> [u8; 32] {
    let mut out = [0u8; 32];
    out[0] = v;
    out
}

fn mul_base_random() {
    let mut g = group("fe25519 edwards: mul_base against curve25519-dalek");
    let mut rng = test_rng(40);
    for i in 0..RANDOM {
        let s = random_scalar(&mut rng);
        g.check_bytes(
            format_args!("scalar {i}"),
            &mul_base(&s.to_bytes()).compress(),
            DalekPoint::mul_base(&s).compress().as_bytes(),
        );
    }
    g.end();
}

fn double_scalar_mul_random() {
    let mut g = group("fe25519 edwards: double_scalar_mul_vartime against curve25519-dalek");
    let mut rng = test_rng(41);
    for i in 0..RANDOM {
        let (a, b) = (random_scalar(&mut rng), random_scalar(&mut rng));
        let point = DalekPoint::mul_base(&random_scalar(&mut rng)) + EIGHT_TORSION[i as usize % 8];
        let Some(ours) = EdwardsPoint::decompress(point.compress().as_bytes()) else {
            g.check(false, format_args!("point {i} not decoded"));
            continue;
        };
        let want = DalekPoint::vartime_double_scalar_mul_basepoint(&a, &point, &b);
        g.check_bytes(
            format_args!("case {i}"),
            &double_scalar_mul_vartime(&a.to_bytes(), &ours, &b.to_bytes()).compress(),
            want.compress().as_bytes(),
        );
    }
    g.end();
}

fn decompress_like_dalek(g: &mut wireseal_mcu::harness::Group, bytes: [u8; 32]) {
    let want = CompressedEdwardsY(bytes)
        .decompress()
        .map(|p| p.compress().to_bytes());
    let got = EdwardsPoint::decompress(&bytes).map(|p| p.compress());
    g.check(
        got == want,
        format_args!("{:02x?}: got {got:02x?}, want {want:02x?}", bytes),
    );
}

fn decompress_random_and_edges() {
    let mut g =
        group("fe25519 edwards: decompress (random, edge y, both signs) as curve25519-dalek");
    let mut rng = test_rng(42);
    for _ in 0..RANDOM {
        let mut bytes = [0u8; 32];
        rng.fill_bytes(&mut bytes);
        decompress_like_dalek(&mut g, bytes);
    }
    let mut top = [0xffu8; 32];
    top[31] = 0x7f;
    let edges = [small(0), small(1), top, p_plus(-1), p_plus(0), p_plus(1)];
    for y in edges
        .into_iter()
        .chain(EIGHT_TORSION.iter().map(|t| t.compress().to_bytes()))
    {
        for sign in [0u8, 0x80] {
            let mut bytes = y;
            bytes[31] |= sign;
            decompress_like_dalek(&mut g, bytes);
        }
    }
    g.end();
}

fn from_montgomery_random_and_edges() {
    let mut g = group("fe25519 edwards: montgomery u to edwards as curve25519-dalek");
    let mut rng = test_rng(43);
    let mut check = |u: [u8; 32]| {
        let want = MontgomeryPoint(u)
            .to_edwards(0)
            .map(|p| p.compress().to_bytes());
        let got = EdwardsPoint::from_montgomery(&u, 0).map(|p| p.compress());
        g.check(
            got == want,
            format_args!("{:02x?}: got {got:02x?}, want {want:02x?}", u),
        );
    };
    for i in 0..RANDOM / 2 {
        let mut u = [0u8; 32];
        rng.fill_bytes(&mut u);
        if i % 2 == 0 {
            u = MontgomeryPoint::mul_base_clamped(u).to_bytes();
        }
        check(u);
    }
    for u in [
        small(0),
        small(1),
        [0xff; 32],
        p_plus(-1),
        p_plus(0),
        p_plus(1),
    ] {
        check(u);
    }
    g.end();
}

/// `mul_base` runs the same number of instructions for every scalar
/// (0, 1, ℓ − 1, digits all ±8, random): within the timer's ±1 of the
/// first.
fn mul_base_count_is_fixed() {
    let mut g = group("fe25519 edwards: mul_base instruction count independent of the scalar");
    let mut rng = test_rng(44);
    let mut scalars = [[0u8; 32]; 10];
    let fixed = [
        Scalar::ZERO,
        Scalar::ONE,
        -Scalar::ONE,
        Scalar::from_bytes_mod_order([0x88; 32]),
        Scalar::from_bytes_mod_order([0x77; 32]),
    ];
    for (i, s) in scalars.iter_mut().enumerate() {
        *s = match fixed.get(i) {
            Some(f) => f.to_bytes(),
            None => random_scalar(&mut rng).to_bytes(),
        };
    }
    let count = |s: &[u8; 32]| icount::measure(|| mul_base(core::hint::black_box(s))).1;
    let first = count(&scalars[0]);
    for (i, s) in scalars.iter().enumerate() {
        let n = count(s);
        g.check(
            n.abs_diff(first) <= 1,
            format_args!("scalar {i}: {n} instructions, scalar 0: {first}"),
        );
    }
    wireseal_mcu::hprintln!("fe25519: mul_base {} instructions", first);
    g.end();
}

/// The groups against curve25519-dalek, and with `counting` (the
/// instruction counter works) the count check.
pub fn run(counting: bool) {
    mul_base_random();
    double_scalar_mul_random();
    decompress_random_and_edges();
    from_montgomery_random_and_edges();
    if counting {
        mul_base_count_is_fixed();
    }
}
