//! Reading the official BIP324 CSV files (bitcoin/bips, bip-0324, v1.0.2)
//! for the `bip324_vectors_*` tests: rows by column name, hex fields as bytes.

use crate::common;

/// (header, rows) of a CSV file with no quoted fields.
pub fn csv(name: &str) -> Vec<std::collections::HashMap<String, String>> {
    let text = common::vector_text(&format!("bip324/{name}"));
    let mut lines = text.lines().map(|l| l.trim_end_matches('\r'));
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), header.len(), "{l}");
            header
                .iter()
                .cloned()
                .zip(f.iter().map(|s| s.to_string()))
                .collect()
        })
        .collect()
}

/// A hex string as bytes.
pub fn h(s: &str) -> Vec<u8> {
    common::unhex(s)
}

/// A hex string of 32 bytes.
pub fn h32(s: &str) -> [u8; 32] {
    h(s).try_into().unwrap()
}

/// A hex string of 64 bytes.
pub fn h64(s: &str) -> [u8; 64] {
    h(s).try_into().unwrap()
}
