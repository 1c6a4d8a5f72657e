//! A map-tile server for the status page (`--map-tiles URL`): the
//! operator's setting, checked once at start. The page fills the URL's
//! `{z}`, `{x}` and `{y}` with numbers it computes and loads the images
//! from the URL's origin, which the page's policy then allows for images
//! and for nothing else.

use crate::config::ConfigError;

/// Why a tile URL cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TilesError {
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
    /// Longer than [`Tiles::MAX_LEN`].
    #[error("the URL is longer than {} bytes", Tiles::MAX_LEN)]
    TooLong,
}

/// A checked tile URL and its origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tiles {
    url: String,
    origin: String,
}

impl Tiles {
    /// The longest URL taken.
    pub(crate) const MAX_LEN: usize = 512;

    /// Checks `url`: `http(s)://HOST[:PORT]/…` with `{z}`, `{x}` and `{y}`
    /// once each after the host, and only visible ASCII that needs no
    /// escaping in a header or an HTML attribute (no quotes, `<`, `>`, `\`,
    /// `;`, `,`, spaces).
    ///
    /// # Errors
    /// [`TilesError`], saying what is wrong.
    pub(crate) fn parse(url: &str) -> Result<Self, TilesError> {
        if url.len() > Self::MAX_LEN {
            return Err(TilesError::TooLong);
        }
        if let Some(c) = url.chars().find(|c| {
            !c.is_ascii_graphic() || matches!(c, '"' | '\'' | '<' | '>' | '\\' | ';' | ',' | '`')
        }) {
            return Err(TilesError::Character(c));
        }
        let (scheme, rest) = match url.split_once("://") {
            Some((s, r)) if s.eq_ignore_ascii_case("https") => ("https", r),
            Some((s, r)) if s.eq_ignore_ascii_case("http") => ("http", r),
            _ => return Err(TilesError::Scheme),
        };
        let (authority, path) = rest.split_at(rest.find('/').ok_or(TilesError::Placeholders)?);
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) => match p.parse::<u16>() {
                Ok(n) if n > 0 && !p.starts_with('+') => (h, Some(n)),
                _ => return Err(TilesError::Host),
            },
            None => (authority, None),
        };
        let host_ok = !host.is_empty()
            && host.len() <= 253
            && host.split('.').all(|l| {
                !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            });
        if !host_ok {
            return Err(TilesError::Host);
        }
        let once = |p: &str| path.matches(p).count() == 1;
        let braces = path.matches('{').count() + path.matches('}').count();
        if !(once("{z}") && once("{x}") && once("{y}")) || braces != 6 {
            return Err(TilesError::Placeholders);
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

    /// The `map-tiles` setting: none, or a URL checked by [`Tiles::parse`]
    /// (which needs the status page, `http`).
    ///
    /// # Errors
    /// A `map-tiles` [`ConfigError`] with the reason.
    pub(crate) fn setting(url: Option<&str>, http: bool) -> Result<Option<Self>, ConfigError> {
        match (url, http) {
            (None, _) => Ok(None),
            (Some(_), false) => Err(ConfigError::new(
                "map-tiles",
                "the tiles are for the status page: give --http too",
            )),
            (Some(u), true) => Self::parse(u)
                .map(Some)
                .map_err(|e| ConfigError::new("map-tiles", e.to_string())),
        }
    }

    /// The URL, with `{z}`, `{x}` and `{y}` to fill.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// `scheme://host[:port]`, as a page's policy names it.
    pub(crate) fn origin(&self) -> &str {
        &self.origin
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_urls() {
        let t = Tiles::parse("https://Tile.OpenStreetMap.org/{z}/{x}/{y}.png").unwrap();
        assert_eq!(t.origin(), "https://tile.openstreetmap.org");
        assert_eq!(t.url(), "https://tile.openstreetmap.org/{z}/{x}/{y}.png");
        let t = Tiles::parse("http://10.0.0.5:8080/t/{z}/{y}/{x}?key=a&style=b").unwrap();
        assert_eq!(t.origin(), "http://10.0.0.5:8080");
        for (bad, why) in [
            ("ftp://h/{z}/{x}/{y}", TilesError::Scheme),
            ("javascript:alert(1)//{z}/{x}/{y}", TilesError::Scheme),
            ("//h/{z}/{x}/{y}", TilesError::Scheme),
            ("https://h/{z}/{x}", TilesError::Placeholders),
            ("https://h/{z}/{x}/{y}/{y}", TilesError::Placeholders),
            ("https://h/{z}/{x}/{y}/{s}", TilesError::Placeholders),
            ("https://{s}.h/{z}/{x}/{y}", TilesError::Host),
            ("https://h", TilesError::Placeholders),
            ("https://u:p@h/{z}/{x}/{y}", TilesError::Host),
            ("https://h:0/{z}/{x}/{y}", TilesError::Host),
            ("https://h:99999/{z}/{x}/{y}", TilesError::Host),
            ("https://[::1]/{z}/{x}/{y}", TilesError::Host),
            ("https://h..x/{z}/{x}/{y}", TilesError::Host),
            ("https:///{z}/{x}/{y}", TilesError::Host),
            (
                "https://h/{z}/{x}/{y}; script-src *",
                TilesError::Character(';'),
            ),
            ("https://h/{z}/{x}/{y}\"onload=", TilesError::Character('"')),
            ("https://h/{z}/{x}/{y}\n", TilesError::Character('\n')),
            ("https://h/{z}/{x}/{y}'", TilesError::Character('\'')),
            ("https://h/{z}/{x}/{y},x", TilesError::Character(',')),
        ] {
            assert_eq!(Tiles::parse(bad), Err(why), "{bad:?}");
        }
        let long = format!("https://h/{{z}}/{{x}}/{{y}}/{}", "a".repeat(600));
        assert_eq!(Tiles::parse(&long), Err(TilesError::TooLong));
    }
}
