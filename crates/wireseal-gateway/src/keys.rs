//! Secrets the settings name: node keys (files, a directory, an environment
//! variable), our MeshCore identities (files, and the directory's files
//! named `*.meshcore`) and the broker's password. Files are read capped at
//! 64 KiB; a key's value never appears in a message.

use crate::config::ConfigError;
use base64::Engine as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use wireseal::keys::StaticSecret;
use wireseal::meshcore::LocalIdentity;
use wireseal::meshtastic::{node_number, NodeId};
use zeroize::Zeroizing;

/// Most bytes read from a secret file.
const SECRET_CAP: u64 = 64 << 10;

/// One of our node keys and the node it belongs to.
pub struct NodeKey {
    /// The node number: given, or `crc32` of the public key (how firmware
    /// 2.8 numbers a node).
    pub node: u32,
    /// The private key.
    pub secret: StaticSecret,
    /// Where it came from (a file or an environment variable's name), for
    /// messages.
    pub source: String,
}

impl std::fmt::Debug for NodeKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "NodeKey({}, from {}, redacted)",
            NodeId(self.node),
            self.source
        )
    }
}

/// Reads a secret file, capped.
///
/// # Errors
/// The file cannot be read or is larger than 64 KiB.
pub fn read_capped(path: &Path, setting: &'static str) -> Result<Zeroizing<Vec<u8>>, ConfigError> {
    let mut buf = Zeroizing::new(Vec::new());
    std::fs::File::open(path)
        .and_then(|f| f.take(SECRET_CAP + 1).read_to_end(&mut buf))
        .map_err(|e| ConfigError::new(setting, format!("{}: {}", path.display(), e.kind())))?;
    if buf.len() as u64 > SECRET_CAP {
        return Err(ConfigError::new(
            setting,
            format!(
                "{}: larger than 64 KiB; a secret file holds one line",
                path.display()
            ),
        ));
    }
    Ok(buf)
}

/// Reads the text of a secret from a file or an environment variable.
///
/// # Errors
/// Unreadable, not UTF-8, or the variable is not set.
pub fn secret_text(
    file: Option<&Path>,
    env: Option<&str>,
    setting: &'static str,
) -> Result<Option<Zeroizing<String>>, ConfigError> {
    if let Some(f) = file {
        let raw = read_capped(f, setting)?;
        let text = std::str::from_utf8(&raw)
            .map_err(|_| ConfigError::new(setting, format!("{}: not UTF-8 text", f.display())))?;
        return Ok(Some(Zeroizing::new(
            text.trim_end_matches(['\r', '\n']).to_owned(),
        )));
    }
    if let Some(v) = env {
        if v.is_empty() || v.contains(['=', '\0']) {
            return Err(ConfigError::new(
                setting,
                "takes the NAME of an environment variable",
            ));
        }
        return std::env::var(v)
            .map(|s| Some(Zeroizing::new(s)))
            .map_err(|_| {
                ConfigError::new(
                    setting,
                    format!("the environment variable {v} is not set (or not UTF-8)"),
                )
            });
    }
    Ok(None)
}

/// A node key from its text: 64 hex digits or the base64 of 32 bytes.
///
/// # Errors
/// Neither form, or not a usable X25519 private key.
pub fn parse_key(
    text: &str,
    setting: &'static str,
    source: &str,
) -> Result<StaticSecret, ConfigError> {
    let t = text.trim();
    let bytes: Zeroizing<[u8; 32]> = {
        let mut out = Zeroizing::new([0u8; 32]);
        if t.len() == 64 && hex::decode_to_slice(t, &mut out[..]).is_ok() {
            out
        } else {
            let v = Zeroizing::new(
                base64::engine::general_purpose::STANDARD
                    .decode(t.as_bytes())
                    .map_err(|_| {
                        ConfigError::new(
                            setting,
                            format!("{source}: neither 64 hex digits nor base64 (the value is not shown)"),
                        )
                    })?,
            );
            if v.len() != 32 {
                return Err(ConfigError::new(
                    setting,
                    format!("{source}: {} bytes, a node key is 32", v.len()),
                ));
            }
            out.copy_from_slice(&v);
            out
        }
    };
    StaticSecret::from_bytes(&bytes).map_err(|e| {
        ConfigError::new(
            setting,
            format!("{source}: not a usable X25519 private key ({e})"),
        )
    })
}

fn key_from_file(
    path: &Path,
    node: Option<u32>,
    setting: &'static str,
) -> Result<NodeKey, ConfigError> {
    let raw = read_capped(path, setting)?;
    let source = path.display().to_string();
    let text = std::str::from_utf8(&raw)
        .map_err(|_| ConfigError::new(setting, format!("{source}: not UTF-8 text")))?;
    let secret = parse_key(text, setting, &source)?;
    let node = node.unwrap_or_else(|| node_number(secret.public_key()));
    Ok(NodeKey {
        node,
        secret,
        source,
    })
}

/// Our node keys: every `--key-file [NODE=]FILE`, `--key-env VAR`, and
/// every file of `--keys-dir DIR` (a file named `!0a0b0c0d` or
/// `!0a0b0c0d.key` is that node's; another name's node is derived from its
/// key). `--node NODE` names the node of the one key given that way.
///
/// # Errors
/// A file or variable that cannot be read or holds no usable key, a node
/// number that does not parse, `--node` with several keys, or two keys for
/// one node.
pub fn load(
    key_files: &[String],
    key_env: Option<&str>,
    keys_dir: Option<&Path>,
    node: Option<NodeId>,
) -> Result<Vec<NodeKey>, ConfigError> {
    let node: Option<u32> = node.map(|n| n.0);
    let single = key_files.len() + usize::from(key_env.is_some()) == 1 && keys_dir.is_none();
    if node.is_some() && !single {
        return Err(ConfigError::new(
            "node",
            "names the node of one key: with several, write NODE=FILE in --key-file or name the files in --keys-dir after their nodes",
        ));
    }
    let mut keys = Vec::new();
    for spec in key_files {
        let (given, path) = match spec.split_once('=') {
            Some((n, p))
                if n.starts_with('!')
                    || n.starts_with("0x")
                    || n.bytes().all(|b| b.is_ascii_digit()) =>
            {
                let n: NodeId = n.parse().map_err(|e: wireseal::meshtastic::Error| {
                    ConfigError::new("key-file", format!("{spec:?}: {e}"))
                })?;
                (Some(n.0), PathBuf::from(p))
            }
            _ => (node, PathBuf::from(spec)),
        };
        keys.push(key_from_file(&path, given, "key-file")?);
    }
    if let Some(var) = key_env {
        let text = secret_text(None, Some(var), "key-env")?.unwrap_or_default();
        let secret = parse_key(&text, "key-env", var)?;
        let n = node.unwrap_or_else(|| node_number(secret.public_key()));
        keys.push(NodeKey {
            node: n,
            secret,
            source: format!("${var}"),
        });
    }
    if let Some(dir) = keys_dir {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| ConfigError::new("keys-dir", format!("{}: {}", dir.display(), e.kind())))?
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.path())
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(ConfigError::new(
                "keys-dir",
                format!("{}: no key files in it", dir.display()),
            ));
        }
        files.retain(|p| !is_meshcore_file(p));
        for path in files {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let stem = name.strip_suffix(".key").unwrap_or(name);
            let given = NodeId::parse_canonical(stem).map(|n| n.0);
            keys.push(key_from_file(&path, given, "keys-dir")?);
        }
    }
    for (i, k) in keys.iter().enumerate() {
        if let Some(other) = keys[..i].iter().find(|o| o.node == k.node) {
            return Err(ConfigError::new(
                "key-file",
                format!(
                    "{} and {} are both keys of node {}",
                    other.source,
                    k.source,
                    NodeId(k.node)
                ),
            ));
        }
    }
    Ok(keys)
}

/// The suffix of a MeshCore identity's file in `--keys-dir`.
pub const MESHCORE_SUFFIX: &str = ".meshcore";

fn is_meshcore_file(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(MESHCORE_SUFFIX))
}

/// One of our MeshCore identities and where it came from.
pub struct MeshcoreKey {
    /// The identity (its 64-byte private key, wiped on drop).
    pub identity: LocalIdentity,
    /// Where it came from (a file), for messages.
    pub source: String,
}

impl std::fmt::Debug for MeshcoreKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MeshcoreKey({:?}, from {}, redacted)",
            self.identity.public(),
            self.source
        )
    }
}

fn meshcore_from_file(path: &Path, setting: &'static str) -> Result<MeshcoreKey, ConfigError> {
    let raw = read_capped(path, setting)?;
    let source = path.display().to_string();
    let text = std::str::from_utf8(&raw)
        .map_err(|_| ConfigError::new(setting, format!("{source}: not UTF-8 text")))?;
    let identity = LocalIdentity::from_hex(text)
        .map_err(|e| ConfigError::new(setting, format!("{source}: {e}")))?;
    Ok(MeshcoreKey { identity, source })
}

/// Our MeshCore identities: every `--meshcore-key-file FILE` and every file
/// of `--keys-dir DIR` named `*.meshcore`, each 64 hex digits (a seed) or
/// 128 (the firmware's `prv.key`), read as the node keys are (capped, the
/// value never shown).
///
/// # Errors
/// A file that cannot be read or holds no usable identity, or one identity
/// given twice.
pub fn load_meshcore(
    key_files: &[String],
    keys_dir: Option<&Path>,
) -> Result<Vec<MeshcoreKey>, ConfigError> {
    let mut keys = Vec::new();
    for f in key_files {
        keys.push(meshcore_from_file(Path::new(f), "meshcore-key-file")?);
    }
    if let Some(dir) = keys_dir {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| ConfigError::new("keys-dir", format!("{}: {}", dir.display(), e.kind())))?
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.path())
            .filter(|p| is_meshcore_file(p))
            .collect();
        files.sort();
        for path in files {
            keys.push(meshcore_from_file(&path, "keys-dir")?);
        }
    }
    for (i, k) in keys.iter().enumerate() {
        if let Some(other) = keys[..i]
            .iter()
            .find(|o| o.identity.public() == k.identity.public())
        {
            return Err(ConfigError::new(
                "meshcore-key-file",
                format!("{} and {} hold the same identity", other.source, k.source),
            ));
        }
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_hex(k: &StaticSecret) -> String {
        hex::encode(k.expose())
    }

    #[test]
    fn keys_from_files_a_directory_and_given_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            StaticSecret::generate(),
            StaticSecret::generate(),
            StaticSecret::generate(),
        );
        let fa = dir.path().join("a.key");
        std::fs::write(&fa, key_hex(&a)).unwrap();
        let fb = dir.path().join("b.key");
        let b64 = base64::engine::general_purpose::STANDARD.encode(b.expose());
        std::fs::write(&fb, format!("{b64}\n")).unwrap();
        let kd = dir.path().join("keys");
        std::fs::create_dir(&kd).unwrap();
        std::fs::write(kd.join("!0000abcd.key"), key_hex(&c)).unwrap();
        let spec = vec![
            fa.display().to_string(),
            format!("!00001234={}", fb.display()),
        ];
        let keys = load(&spec, None, Some(&kd), None).unwrap();
        let nodes: Vec<u32> = keys.iter().map(|k| k.node).collect();
        assert_eq!(nodes, [node_number(a.public_key()), 0x1234, 0xabcd]);
        // --node with several keys is refused; with one it names its node.
        assert_eq!(
            load(&spec, None, None, Some(NodeId(5)))
                .unwrap_err()
                .setting,
            "node"
        );
        let one = load(&spec[..1], None, None, Some(NodeId(5))).unwrap();
        assert_eq!(one[0].node, 5);
        // Two keys for one node, and a file without a key.
        let twice = vec![
            format!("!1={}", fa.display()),
            format!("!1={}", fb.display()),
        ];
        assert!(load(&twice, None, None, None)
            .unwrap_err()
            .reason
            .contains("both keys"));
        let junk = dir.path().join("junk");
        std::fs::write(&junk, "KEEP-THIS-SECRET").unwrap();
        let e = load(&[junk.display().to_string()], None, None, None).unwrap_err();
        assert!(!e.to_string().contains("KEEP-THIS"), "{e}");
        let e = load(
            &[dir.path().join("absent").display().to_string()],
            None,
            None,
            None,
        )
        .unwrap_err();
        assert_eq!(e.setting, "key-file");
    }

    #[test]
    fn meshcore_identities_from_files_and_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let a = LocalIdentity::generate();
        let b = LocalIdentity::generate();
        let fa = dir.path().join("a.hex");
        std::fs::write(&fa, format!("{}\n", hex::encode(a.private_key().expose()))).unwrap();
        let kd = dir.path().join("keys");
        std::fs::create_dir(&kd).unwrap();
        // A seed (64 hex digits) in the directory, beside a Meshtastic key.
        std::fs::write(kd.join("ours.meshcore"), "11".repeat(32)).unwrap();
        std::fs::write(
            kd.join("!0000abcd.key"),
            hex::encode(StaticSecret::generate().expose()),
        )
        .unwrap();
        let spec = [fa.display().to_string()];
        let keys = load_meshcore(&spec, Some(&kd)).unwrap();
        assert_eq!(keys.len(), 2);
        assert_eq!(keys[0].identity.public(), a.public());
        let seed = LocalIdentity::from_seed(&[0x11; 32]).unwrap();
        assert_eq!(keys[1].identity.public(), seed.public());
        // The Meshtastic keys of the directory leave its MeshCore files out.
        assert_eq!(load(&[], None, Some(&kd), None).unwrap().len(), 1);
        // Twice the same identity, a file without one, and the value never shown.
        let twice = [spec[0].clone(), spec[0].clone()];
        assert!(load_meshcore(&twice, None)
            .unwrap_err()
            .reason
            .contains("same identity"));
        let junk = dir.path().join("junk");
        std::fs::write(&junk, format!("KEEP-THIS-SECRET{}", "0".repeat(112))).unwrap();
        let e = load_meshcore(&[junk.display().to_string()], None).unwrap_err();
        assert_eq!(e.setting, "meshcore-key-file");
        assert!(!e.to_string().contains("KEEP-THIS"), "{e}");
        let _ = b;
    }
}
