//! A throwaway PKI for TLS tests: a CA, a broker certificate for 127.0.0.1
//! and a client certificate signed by it, and a second CA that signed
//! nothing the broker presents. All ECDSA P-256 (rcgen on aws-lc-rs).

use rcgen::{
    BasicConstraints, Certificate, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose, SanType,
};
use std::path::{Path, PathBuf};

/// The PEM files, written into one directory.
pub struct Pki {
    /// The CA that signed the broker's and the client's certificates.
    pub ca: PathBuf,
    /// A CA that signed neither.
    pub other_ca: PathBuf,
    /// The broker's certificate.
    pub server_cert: PathBuf,
    /// The broker's key.
    pub server_key: PathBuf,
    /// The client's certificate.
    pub client_cert: PathBuf,
    /// The client's key.
    pub client_key: PathBuf,
}

fn ca(name: &str) -> (Certificate, KeyPair) {
    let mut p = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.distinguished_name.push(DnType::CommonName, name);
    p.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let key = KeyPair::generate().expect("a P-256 key");
    let cert = p.self_signed(&key).expect("a self-signed CA");
    (cert, key)
}

fn leaf(issuer: &(Certificate, KeyPair), server: bool) -> (String, String) {
    let names = if server {
        vec!["localhost".to_owned()]
    } else {
        Vec::new()
    };
    let mut p = CertificateParams::new(names).expect("leaf parameters");
    if server {
        p.subject_alt_names
            .push(SanType::IpAddress([127, 0, 0, 1].into()));
    }
    let cn = if server {
        "127.0.0.1"
    } else {
        "wireseal-gateway"
    };
    p.distinguished_name.push(DnType::CommonName, cn);
    p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    p.extended_key_usages = vec![if server {
        ExtendedKeyUsagePurpose::ServerAuth
    } else {
        ExtendedKeyUsagePurpose::ClientAuth
    }];
    let key = KeyPair::generate().expect("a P-256 key");
    let cert = p
        .signed_by(&key, &issuer.0, &issuer.1)
        .expect("a signed leaf");
    (cert.pem(), key.serialize_pem())
}

impl Pki {
    /// Generates the certificates and writes them under `dir`.
    ///
    /// # Panics
    /// When a file cannot be written.
    pub fn write(dir: &Path) -> Pki {
        let root = ca("wireseal test CA");
        let other = ca("some other CA");
        let (server_cert, server_key) = leaf(&root, true);
        let (client_cert, client_key) = leaf(&root, false);
        let file = |name: &str, pem: &str| {
            let p = dir.join(name);
            std::fs::write(&p, pem).expect("writing a PEM file");
            p
        };
        Pki {
            ca: file("ca.pem", &root.0.pem()),
            other_ca: file("other-ca.pem", &other.0.pem()),
            server_cert: file("server.pem", &server_cert),
            server_key: file("server.key", &server_key),
            client_cert: file("client.pem", &client_cert),
            client_key: file("client.key", &client_key),
        }
    }
}
