//! Sphinx baselines built from the library's public pieces, for the bench
//! to measure against: the quadratic shared-secret derivation.

use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::keys::blinding_factor;
use wireseal::sphinx::{Error, HopSecrets};

/// The per-hop shared secrets computed the way Core Lightning does: for hop
/// `i` the hop's key is blinded by every earlier blinding factor before the
/// ECDH (about `n²/2` variable-base multiplications). The library's
/// [`wireseal::sphinx::keys::session_secrets`] derives the same secrets
/// linearly.
pub fn session_secrets_quadratic(
    session_key: &PrivateKey,
    hops: &[PublicKey],
) -> Result<(PublicKey, HopSecrets), Error> {
    let first = session_key.public_key();
    let mut ephemeral = first;
    let mut factors: Vec<[u8; 32]> = Vec::with_capacity(hops.len());
    let mut out = Vec::with_capacity(hops.len());
    for hop in hops {
        let mut p = *hop;
        for b in &factors {
            p = p.mul_tweak_vartime(b).map_err(|_| Error::KeyDerivation)?;
        }
        let ss = session_key.ecdh_sha256(&p);
        let b = blinding_factor(&ephemeral, &ss);
        ephemeral = ephemeral
            .mul_tweak_vartime(&b)
            .map_err(|_| Error::KeyDerivation)?;
        factors.push(b);
        out.push(ss);
    }
    if out.is_empty() {
        return Err(Error::NoHops);
    }
    Ok((first, HopSecrets::new(out)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wireseal::sphinx::keys::session_secrets;

    /// The baseline and the library agree, hop for hop.
    #[test]
    fn quadratic_matches_linear() {
        let session = PrivateKey::from_bytes(&[0x41; 32]).unwrap();
        let pubs: Vec<PublicKey> = (0..20u8)
            .map(|i| {
                PrivateKey::from_bytes(&[0x50 + i; 32])
                    .unwrap()
                    .public_key()
            })
            .collect();
        let (e1, linear) = session_secrets(&session, pubs.iter().copied()).unwrap();
        let (e2, quadratic) = session_secrets_quadratic(&session, &pubs).unwrap();
        assert_eq!(e1, e2);
        assert_eq!(linear.len(), quadratic.len());
        for (a, b) in linear.as_slice().iter().zip(quadratic.as_slice()) {
            assert_eq!(a.expose(), b.expose());
        }
        assert_eq!(
            session_secrets_quadratic(&session, &[]).unwrap_err(),
            Error::NoHops
        );
    }
}
