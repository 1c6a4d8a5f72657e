//! A map-tile server for the status page (`--map-tiles URL`): the
//! operator's setting, parsed with the other settings. The page fills the
//! URL's `{z}`, `{x}` and `{y}` with numbers it computes and loads the
//! images from the URL's origin, which the page's policy then allows for
//! images and for nothing else.

use core::fmt;
use core::str::FromStr;

/// Why a tile URL cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TileUrlError {
    /// Not `http://` or `https://`.
    #[error("the URL must start with https:// or http://")]
    Scheme,
    /// No host, a host with other characters than letters, digits, `-` and
    /// `.`, user information, or a port that is not a number from 1 to 65535.
    #[error("the URL needs a host name or IPv4 address (and an optional port), nothing else")]
    Host,
    /// `{z}`, `{x}` or `{y}` is missing, given twice, in the host, or another
    /// `{…}` is used.
    #[error("the URL's path must hold {{z}}, {{x}} and {{y}} once each, and no other {{…}}")]
    Placeholders,
    /// A character a URL in a page's policy cannot hold.
    #[error("the URL holds {0:?}; use percent-encoding")]
    Character(char),
    /// Longer than [`TileUrl::MAX_LEN`].
    #[error("the URL is longer than {} bytes", TileUrl::MAX_LEN)]
    TooLong,
}

/// A checked tile URL and its origin (`"https://HOST/{z}/{x}/{y}.png"
/// .parse()`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileUrl {
    url: String,
    origin: String,
}

impl TileUrl {
    /// The longest URL taken.
    pub const MAX_LEN: usize = 512;

    /// The URL, with `{z}`, `{x}` and `{y}` to fill (scheme and host in
    /// lower case).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// `scheme://host[:port]`, as a page's policy names it.
    pub fn origin(&self) -> &str {
        &self.origin
    }
}

impl FromStr for TileUrl {
    type Err = TileUrlError;

    /// Checks `url`: `http(s)://HOST[:PORT]/…` with `{z}`, `{x}` and `{y}`
    /// once each after the host, and only visible ASCII that needs no
    /// escaping in a header or an HTML attribute (no quotes, `<`, `>`, `\`,
    /// `;`, `,`, spaces).
    ///
    /// # Errors
    /// [`TileUrlError`], saying what is wrong.
    fn from_str(url: &str) -> Result<Self, TileUrlError> {
        if url.len() > Self::MAX_LEN {
            return Err(TileUrlError::TooLong);
        }
        if let Some(c) = url.chars().find(|c| {
            !c.is_ascii_graphic() || matches!(c, '"' | '\'' | '<' | '>' | '\\' | ';' | ',' | '`')
        }) {
            return Err(TileUrlError::Character(c));
        }
        let (scheme, rest) = match url.split_once("://") {
            Some((s, r)) if s.eq_ignore_ascii_case("https") => ("https", r),
            Some((s, r)) if s.eq_ignore_ascii_case("http") => ("http", r),
            _ => return Err(TileUrlError::Scheme),
        };
        let (authority, path) = rest.split_at(rest.find('/').ok_or(TileUrlError::Placeholders)?);
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) => match p.parse::<u16>() {
                Ok(n) if n > 0 && !p.starts_with('+') => (h, Some(n)),
                _ => return Err(TileUrlError::Host),
            },
            None => (authority, None),
        };
        let host_ok = !host.is_empty()
            && host.len() <= 253
            && host.split('.').all(|l| {
                !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            });
        if !host_ok {
            return Err(TileUrlError::Host);
        }
        let once = |p: &str| path.matches(p).count() == 1;
        let braces = path.matches('{').count() + path.matches('}').count();
        if !(once("{z}") && once("{x}") && once("{y}")) || braces != 6 {
            return Err(TileUrlError::Placeholders);
        }
        let host = host.to_ascii_lowercase();
        let origin = match port {
            Some(p) => format!("{scheme}://{host}:{p}"),
            None => format!("{scheme}://{host}"),
        };
        Ok(Self {
            url: format!("{origin}{path}"),
            origin,
        })
    }
}

impl fmt::Display for TileUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_urls() {
        let t = "https://Tile.OpenStreetMap.org/{z}/{x}/{y}.png"
            .parse::<TileUrl>()
            .unwrap();
        assert_eq!(t.origin(), "https://tile.openstreetmap.org");
        assert_eq!(t.url(), "https://tile.openstreetmap.org/{z}/{x}/{y}.png");
        assert_eq!(t.to_string(), t.url());
        assert_eq!(t.to_string().parse::<TileUrl>().as_ref(), Ok(&t));
        let t = "http://10.0.0.5:8080/t/{z}/{y}/{x}?key=a&style=b"
            .parse::<TileUrl>()
            .unwrap();
        assert_eq!(t.origin(), "http://10.0.0.5:8080");
        for (bad, why) in [
            ("ftp://h/{z}/{x}/{y}", TileUrlError::Scheme),
            ("javascript:alert(1)//{z}/{x}/{y}", TileUrlError::Scheme),
            ("//h/{z}/{x}/{y}", TileUrlError::Scheme),
            ("https://h/{z}/{x}", TileUrlError::Placeholders),
            ("https://h/{z}/{x}/{y}/{y}", TileUrlError::Placeholders),
            ("https://h/{z}/{x}/{y}/{s}", TileUrlError::Placeholders),
            ("https://{s}.h/{z}/{x}/{y}", TileUrlError::Host),
            ("https://h", TileUrlError::Placeholders),
            ("https://u:p@h/{z}/{x}/{y}", TileUrlError::Host),
            ("https://h:0/{z}/{x}/{y}", TileUrlError::Host),
            ("https://h:99999/{z}/{x}/{y}", TileUrlError::Host),
            ("https://[::1]/{z}/{x}/{y}", TileUrlError::Host),
            ("https://h..x/{z}/{x}/{y}", TileUrlError::Host),
            ("https:///{z}/{x}/{y}", TileUrlError::Host),
            (
                "https://h/{z}/{x}/{y}; script-src *",
                TileUrlError::Character(';'),
            ),
            (
                "https://h/{z}/{x}/{y}\"onload=",
                TileUrlError::Character('"'),
            ),
            ("https://h/{z}/{x}/{y}\n", TileUrlError::Character('\n')),
            ("https://h/{z}/{x}/{y}'", TileUrlError::Character('\'')),
            ("https://h/{z}/{x}/{y},x", TileUrlError::Character(',')),
        ] {
            assert_eq!(bad.parse::<TileUrl>(), Err(why), "{bad:?}");
        }
        let long = format!("https://h/{{z}}/{{x}}/{{y}}/{}", "a".repeat(600));
        assert_eq!(long.parse::<TileUrl>(), Err(TileUrlError::TooLong));
    }
}
