//! The paired CCM composition (`wireseal::hazmat::ccm::PairedCcm`, the
//! portable backend's AES-CCM) against RustCrypto's `ccm` crate: every
//! nonce length (7 to 13), tag length (4 to 16) and AES key size, any
//! associated data and message. Both seal to the same bytes and tag; both
//! open what was sealed; a tampered ciphertext, tag or associated data is
//! refused by both and leaves our buffer wiped; bytes the fuzzer made up
//! open under ours exactly when they open under `ccm`.
#![no_main]
use aes::cipher::{BlockCipher, BlockEncrypt, BlockSizeUser, KeyInit};
use aes::{Aes128Enc, Aes192Enc, Aes256Enc};
use ccm::aead::AeadInPlace;
use ccm::consts::{U10, U11, U12, U13, U14, U16, U4, U6, U7, U8, U9};
use libfuzzer_sys::fuzz_target;
use wireseal::hazmat::ccm::PairedCcm;

struct Input<'a> {
    nonce: &'a [u8],
    aad: &'a [u8],
    msg: &'a [u8],
    /// Fuzzer-made tag and a byte to flip (index, mask).
    forged: &'a [u8],
    flip: (usize, u8),
}

fn check<C, M, N>(key: &[u8], input: &Input<'_>)
where
    C: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + Clone,
    M: ccm::TagSize + aes::cipher::generic_array::ArrayLength<u8>,
    N: ccm::NonceSize + aes::cipher::generic_array::ArrayLength<u8>,
{
    let theirs = ccm::Ccm::<C, M, N>::new_from_slice(key).expect("key length");
    let ours =
        PairedCcm::new(C::new_from_slice(key).unwrap(), N::USIZE, M::USIZE).expect("CCM's lengths");
    let nonce = &input.nonce[..N::USIZE];
    let (aad, msg) = (input.aad, input.msg);

    let mut a = msg.to_vec();
    let sealed = theirs.encrypt_in_place_detached(nonce.into(), aad, &mut a);
    let mut b = msg.to_vec();
    let mut tag = vec![0u8; M::USIZE];
    let ok = ours.seal_in_place(nonce, aad, &mut b, &mut tag);
    let t = match (sealed, ok) {
        (Ok(t), Ok(())) => t,
        (Err(_), Err(_)) => {
            assert_eq!(b, msg, "a refused seal changes nothing");
            return;
        }
        (x, y) => panic!("seal: ccm {:?}, ours {:?}", x.is_ok(), y.is_ok()),
    };
    assert_eq!((&a, &t[..]), (&b, &tag[..]), "sealed bytes differ");

    let mut opened = b.clone();
    ours.open_in_place(nonce, aad, &mut opened, &tag)
        .expect("opens");
    assert_eq!(opened, msg);

    // One flipped bit in the ciphertext, the tag or the associated data.
    let (at, mask) = (input.flip.0, input.flip.1 | 1);
    let mut ct = b.clone();
    let mut bad_tag = tag.clone();
    let mut bad_aad = aad.to_vec();
    let total = ct.len() + bad_tag.len() + bad_aad.len();
    let i = at % total;
    if i < ct.len() {
        ct[i] ^= mask;
    } else if i < ct.len() + bad_tag.len() {
        bad_tag[i - ct.len()] ^= mask;
    } else {
        bad_aad[i - ct.len() - bad_tag.len()] ^= mask;
    }
    let mut theirs_ct = ct.clone();
    let r = theirs.decrypt_in_place_detached(
        nonce.into(),
        &bad_aad,
        &mut theirs_ct,
        bad_tag.as_slice().into(),
    );
    assert!(r.is_err(), "ccm opened a tampered message");
    assert!(ours
        .open_in_place(nonce, &bad_aad, &mut ct, &bad_tag)
        .is_err());
    assert!(ct.iter().all(|&x| x == 0), "refused output not wiped");

    // Made-up ciphertext and tag: the same verdict and plaintext from both.
    if input.forged.len() >= M::USIZE {
        let (ftag, fct) = input.forged.split_at(M::USIZE);
        let mut x = fct.to_vec();
        let mut y = fct.to_vec();
        let rx = theirs.decrypt_in_place_detached(nonce.into(), aad, &mut x, ftag.into());
        let ry = ours.open_in_place(nonce, aad, &mut y, ftag);
        assert_eq!(rx.is_ok(), ry.is_ok());
        if ry.is_ok() {
            assert_eq!(x, y);
        } else {
            assert!(y.iter().all(|&v| v == 0));
        }
    }
}

macro_rules! by_tag {
    ($c:ty, $key:expr, $tag:expr, $n:ty, $input:expr) => {
        match $tag {
            0 => check::<$c, U4, $n>($key, $input),
            1 => check::<$c, U6, $n>($key, $input),
            2 => check::<$c, U8, $n>($key, $input),
            3 => check::<$c, U10, $n>($key, $input),
            4 => check::<$c, U12, $n>($key, $input),
            5 => check::<$c, U14, $n>($key, $input),
            _ => check::<$c, U16, $n>($key, $input),
        }
    };
}

macro_rules! by_nonce {
    ($c:ty, $key:expr, $tag:expr, $nonce:expr, $input:expr) => {
        match $nonce {
            0 => by_tag!($c, $key, $tag, U7, $input),
            1 => by_tag!($c, $key, $tag, U8, $input),
            2 => by_tag!($c, $key, $tag, U9, $input),
            3 => by_tag!($c, $key, $tag, U10, $input),
            4 => by_tag!($c, $key, $tag, U11, $input),
            5 => by_tag!($c, $key, $tag, U12, $input),
            _ => by_tag!($c, $key, $tag, U13, $input),
        }
    };
}

fuzz_target!(|data: &[u8]| {
    // shape(1) flip(2) aad_len(1) forged_len(1) key(32) nonce(13) rest.
    if data.len() < 50 {
        return;
    }
    let shape = data[0];
    let (nonce_sel, tag_sel, key_sel) = (shape % 7, (shape / 7) % 7, (shape / 49) % 3);
    let (aad_len, forged_len) = (usize::from(data[3]), usize::from(data[4]));
    let key = &data[5..37];
    let rest = &data[50..];
    let aad_len = aad_len.min(rest.len());
    let (aad, rest) = rest.split_at(aad_len);
    let forged_len = forged_len.min(rest.len());
    let (forged, msg) = rest.split_at(forged_len);
    let input = Input {
        nonce: &data[37..50],
        aad,
        msg,
        forged,
        flip: (usize::from(data[1]) * 7 + usize::from(data[2]), data[2]),
    };
    match key_sel {
        0 => by_nonce!(Aes128Enc, &key[..16], tag_sel, nonce_sel, &input),
        1 => by_nonce!(Aes192Enc, &key[..24], tag_sel, nonce_sel, &input),
        _ => by_nonce!(Aes256Enc, key, tag_sel, nonce_sel, &input),
    }
});
