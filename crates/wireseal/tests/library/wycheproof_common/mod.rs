//! Wycheproof bookkeeping shared by the `wycheproof_*` test files: every
//! case of a file is either asserted through a wireseal wrapper or refused by
//! design under a named reason, and the two counts must add up to the file's
//! `numberOfTests`.
#![allow(dead_code)]

use serde_json::Value;
use std::collections::BTreeMap;

/// A loaded Wycheproof file with its running tally.
pub struct Suite {
    name: &'static str,
    doc: Value,
    asserted: usize,
    refused: BTreeMap<&'static str, usize>,
}

/// One test case with the group it belongs to.
pub struct Case<'a> {
    /// The group (key, tag and nonce sizes, curve, ...).
    pub group: &'a Value,
    /// The case itself.
    pub test: &'a Value,
}

impl Case<'_> {
    /// The case's id, for failure messages.
    pub fn id(&self) -> u64 {
        self.test["tcId"].as_u64().expect("tcId")
    }

    /// `result`: `valid`, `invalid` or `acceptable`.
    pub fn result(&self) -> &str {
        self.test["result"].as_str().expect("result")
    }

    /// Whether the case carries `flag`.
    pub fn has_flag(&self, flag: &str) -> bool {
        self.test["flags"]
            .as_array()
            .is_some_and(|f| f.iter().any(|x| x == flag))
    }

    /// A hex field of the case as bytes.
    pub fn hex(&self, key: &str) -> Vec<u8> {
        crate::common::hx(self.test, key)
    }

    /// A numeric field of the group (sizes are in bits in Wycheproof).
    pub fn group_u64(&self, key: &str) -> u64 {
        self.group[key]
            .as_u64()
            .unwrap_or_else(|| panic!("group field {key}"))
    }
}

impl Suite {
    /// Loads `vectors/wycheproof/<name>`.
    pub fn load(name: &'static str) -> Self {
        let doc = crate::common::load_json(&format!("wycheproof/{name}"));
        Self {
            name,
            doc,
            asserted: 0,
            refused: BTreeMap::new(),
        }
    }

    /// Every case of every group, in file order. `f` returns `Some(reason)`
    /// for a case the wrapper refuses by design (nothing asserted), `None`
    /// once it has asserted the case.
    pub fn run(&mut self, mut f: impl FnMut(&Case) -> Option<&'static str>) {
        let doc = std::mem::take(&mut self.doc);
        for group in doc["testGroups"].as_array().expect("testGroups") {
            for test in group["tests"].as_array().expect("tests") {
                match f(&Case { group, test }) {
                    None => self.asserted += 1,
                    Some(reason) => *self.refused.entry(reason).or_default() += 1,
                }
            }
        }
        self.doc = doc;
    }

    /// Prints the tally and checks it: the refusals are exactly `expected`
    /// (reason, count), and asserted + refused is the file's `numberOfTests`.
    pub fn finish(self, expected: &[(&'static str, usize)]) {
        let total = self.doc["numberOfTests"].as_u64().expect("numberOfTests") as usize;
        let refused: usize = self.refused.values().sum();
        println!(
            "{}: {} of {} cases asserted, {} refused by design",
            self.name, self.asserted, total, refused
        );
        for (reason, n) in &self.refused {
            println!("  refused ({n}): {reason}");
        }
        let want: BTreeMap<&str, usize> = expected.iter().copied().collect();
        assert_eq!(self.refused, want, "{}: refusals differ", self.name);
        assert_eq!(
            self.asserted,
            total - refused,
            "{}: asserted must be numberOfTests minus the listed refusals",
            self.name
        );
    }
}
