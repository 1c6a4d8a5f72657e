//! Which mesh a row is of: the closed set the API's `mesh` field and its
//! `mesh=` filter take, in the library's style (`NAMES`, `as_str`,
//! `index`, parsing that names what it expects).

/// A mesh the gateway reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mesh {
    /// Meshtastic: envelopes on `msh/…`.
    Meshtastic,
    /// MeshCore: observer feeds.
    Meshcore,
}

/// A `mesh` that is none of [`Mesh::NAMES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unknown mesh (expected one of: meshtastic, meshcore)")]
pub struct UnknownMesh;

impl Mesh {
    /// Every mesh, in [`Mesh::index`] order.
    pub const ALL: [Mesh; 2] = [Mesh::Meshtastic, Mesh::Meshcore];

    /// The stable names, in [`Mesh::index`] order.
    pub const NAMES: [&'static str; 2] = ["meshtastic", "meshcore"];

    /// The stable name: `meshtastic` or `meshcore`.
    pub const fn as_str(self) -> &'static str {
        Self::NAMES[self.index()]
    }

    /// Its position in [`Mesh::ALL`] and [`Mesh::NAMES`].
    pub const fn index(self) -> usize {
        match self {
            Mesh::Meshtastic => 0,
            Mesh::Meshcore => 1,
        }
    }
}

impl std::str::FromStr for Mesh {
    type Err = UnknownMesh;

    fn from_str(s: &str) -> Result<Self, UnknownMesh> {
        Self::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or(UnknownMesh)
    }
}

impl std::fmt::Display for Mesh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_nothing_else_parses() {
        for m in Mesh::ALL {
            assert_eq!(m.as_str().parse::<Mesh>(), Ok(m));
            assert_eq!(Mesh::NAMES[m.index()], m.as_str());
        }
        for bad in [
            "",
            "Meshtastic",
            "meshcore ",
            "'; DROP TABLE packets; --",
            "both",
        ] {
            assert_eq!(bad.parse::<Mesh>(), Err(UnknownMesh), "{bad:?}");
        }
        assert!(UnknownMesh.to_string().contains("meshtastic, meshcore"));
    }
}
