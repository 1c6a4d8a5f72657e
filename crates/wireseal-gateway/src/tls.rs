//! TLS for `mqtts://` brokers: which certificate authorities to trust (a PEM
//! file, or the system's roots) and an optional client certificate. Built
//! once when the gateway starts, so an unreadable or empty file is a start-up
//! error with the setting's name, not a reconnect loop. The one TLS stack is
//! rustls with the aws-lc-rs provider, named here explicitly (the library's
//! own primitives come from aws-lc-rs too).

use crate::config::ConfigError;
use rustls::{pki_types::CertificateDer, ClientConfig};
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// Most bytes read from a certificate file (a CA bundle is a few hundred KiB).
const PEM_CAP: u64 = 4 << 20;

/// The files the settings name.
#[derive(Debug, Clone, Copy, Default)]
pub struct Files<'a> {
    /// `--ca-file`: PEM certificates to trust instead of the system's roots.
    pub ca: Option<&'a Path>,
    /// `--client-cert`: PEM certificate chain, leaf first.
    pub client_cert: Option<&'a Path>,
    /// `--client-key`: PEM private key of the leaf (PKCS #8, PKCS #1 or SEC1).
    pub client_key: Option<&'a Path>,
}

impl Files<'_> {
    /// True when any TLS file was given.
    pub fn any(&self) -> bool {
        self.ca.is_some() || self.client_cert.is_some() || self.client_key.is_some()
    }
}

/// The crypto provider of every TLS connection: aws-lc-rs.
pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// The rustls client configuration for `files`.
///
/// # Errors
///
/// A file cannot be read, is too large or holds no certificate (or key);
/// the system has no root certificates and no `ca-file` was given; the key
/// is of a kind rustls does not support. The client key's path and contents
/// are never quoted.
pub fn client_config(files: Files<'_>) -> Result<Arc<ClientConfig>, ConfigError> {
    if files.client_cert.is_some() != files.client_key.is_some() {
        return Err(ConfigError::new(
            "client-cert",
            "--client-cert and --client-key go together",
        ));
    }
    let mut roots = rustls::RootCertStore::empty();
    match files.ca {
        Some(path) => {
            let pem = read_pem(path, "ca-file")?;
            let (added, _unparsable) = roots.add_parsable_certificates(certs(&pem, "ca-file")?);
            if added == 0 {
                return Err(ConfigError::new(
                    "ca-file",
                    format!("{}: no usable CA certificate in it", path.display()),
                ));
            }
        }
        None => {
            let native = rustls_native_certs::load_native_certs();
            roots.add_parsable_certificates(native.certs);
            if roots.is_empty() {
                return Err(ConfigError::new(
                    "ca-file",
                    "the system has no root certificates: give --ca-file with the broker's CA",
                ));
            }
        }
    }
    let builder = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| ConfigError::new("broker", format!("TLS: {e}")))?
        .with_root_certificates(roots);
    let config = match (files.client_cert, files.client_key) {
        (Some(cert), Some(key)) => {
            let chain = certs(&read_pem(cert, "client-cert")?, "client-cert")?;
            if chain.is_empty() {
                return Err(ConfigError::new(
                    "client-cert",
                    format!("{}: no certificate in it", cert.display()),
                ));
            }
            let pem = crate::keys::read_capped(key, "client-key").map_err(|_| {
                ConfigError::new(
                    "client-key",
                    "cannot read the file (its path and contents are not shown)",
                )
            })?;
            if pem.windows(9).any(|w| w == b"ENCRYPTED") {
                return Err(ConfigError::new("client-key", "a passphrase-protected key; give it decrypted (openssl pkey -in KEY -out KEY.plain), readable only by the gateway's user"));
            }
            let key = rustls_pemfile::private_key(&mut &pem[..])
                .ok()
                .flatten()
                .ok_or_else(|| {
                    ConfigError::new(
                        "client-key",
                        "no PEM private key in the file (its contents are not shown)",
                    )
                })?;
            builder.with_client_auth_cert(chain, key).map_err(|_| {
                ConfigError::new("client-key", "a key of a kind TLS does not support")
            })?
        }
        _ => builder.with_no_client_auth(),
    };
    Ok(Arc::new(config))
}

fn read_pem(path: &Path, setting: &'static str) -> Result<Vec<u8>, ConfigError> {
    let mut pem = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(PEM_CAP + 1).read_to_end(&mut pem))
        .map_err(|e| ConfigError::new(setting, format!("{}: {}", path.display(), e.kind())))?;
    if pem.len() as u64 > PEM_CAP {
        return Err(ConfigError::new(
            setting,
            format!(
                "{}: larger than {} MiB; expected PEM certificates",
                path.display(),
                PEM_CAP >> 20
            ),
        ));
    }
    Ok(pem)
}

fn certs(pem: &[u8], setting: &'static str) -> Result<Vec<CertificateDer<'static>>, ConfigError> {
    rustls_pemfile::certs(&mut &pem[..])
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| ConfigError::new(setting, "not a PEM file"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_files_without_certificates_or_keys() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let e = client_config(Files {
            ca: Some(&empty),
            ..Files::default()
        })
        .unwrap_err();
        assert!(e.to_string().contains("no usable CA certificate"), "{e}");
        let e = client_config(Files {
            ca: Some(&dir.path().join("missing.pem")),
            ..Files::default()
        })
        .unwrap_err();
        assert!(e.to_string().starts_with("--ca-file"), "{e}");
        let e = client_config(Files {
            client_cert: Some(&empty),
            ..Files::default()
        })
        .unwrap_err();
        assert!(e.to_string().contains("go together"), "{e}");
    }
}
