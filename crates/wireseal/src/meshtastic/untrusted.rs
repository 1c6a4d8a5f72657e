//! Text from the feed (channel ids, gateway ids, node names) used where it
//! could change meaning: as an MQTT topic level, a log field, or a file name.
//!
//! [`safe_level`] is the one check: it takes the text as it is or refuses it.
//! It never rewrites (two different hostile ids rewritten to one text would
//! let one stand for the other); a caller puts [`UNUSABLE_LABEL`] in the place
//! of a refused text and counts it.
//!
//! ```
//! use wireseal::meshtastic::untrusted::{safe_level, safe_level_or_label, UNUSABLE_LABEL};
//!
//! assert_eq!(safe_level("LongFast"), Ok("LongFast"));
//! assert!(safe_level("Long#Fast").is_err()); // an MQTT wildcard
//! assert!(safe_level("x/../y").is_err()); // a topic separator
//! assert_eq!(safe_level_or_label("a+b"), UNUSABLE_LABEL);
//! ```

/// Longest text [`safe_level`] takes, in bytes (the envelope's own limit on
/// `channel_id` and `gateway_id`).
pub const MAX_LEVEL_LEN: usize = 64;

/// What stands in for a refused text: itself a safe level, and never a
/// channel or node id the firmware writes (those have no `_` prefix).
pub const UNUSABLE_LABEL: &str = "_unusable";

/// Why [`safe_level`] refused a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unusable {
    /// The text is empty.
    Empty,
    /// Longer than [`MAX_LEVEL_LEN`] bytes.
    TooLong,
    /// An MQTT separator or wildcard (`/`, `+`, `#`), a path separator (`\`),
    /// or a leading `$` (the broker's own topics).
    Separator,
    /// NUL, another control character, a line or paragraph separator, a
    /// byte-order mark or a bidirectional-text control.
    Control,
    /// `.`, `..`, or leading or trailing white space (a file name that means
    /// something else, or text that reads as another).
    Ambiguous,
}

impl Unusable {
    /// `"empty"`, `"too_long"`, `"separator"`, `"control"` or `"ambiguous"`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            Unusable::Empty => "empty",
            Unusable::TooLong => "too_long",
            Unusable::Separator => "separator",
            Unusable::Control => "control",
            Unusable::Ambiguous => "ambiguous",
        }
    }
}

/// Whether `c` changes how text around it reads (controls, separators of
/// lines and paragraphs, the byte-order mark, bidirectional controls).
fn is_control(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
        )
}

/// `text` when it is usable as it is as one MQTT topic level, one log field
/// and one file name: 1 to [`MAX_LEVEL_LEN`] bytes, no `/ + # \`, no leading
/// `$`, no control characters (see [`Unusable::Control`]), not `.` or `..`,
/// no white space at either end.
///
/// # Errors
/// [`Unusable`] says which rule the text breaks.
pub fn safe_level(text: &str) -> Result<&str, Unusable> {
    if text.is_empty() {
        return Err(Unusable::Empty);
    }
    if text.len() > MAX_LEVEL_LEN {
        return Err(Unusable::TooLong);
    }
    if text.starts_with('$') || text.contains(['/', '+', '#', '\\']) {
        return Err(Unusable::Separator);
    }
    if text.chars().any(is_control) {
        return Err(Unusable::Control);
    }
    let trimmed = text.trim();
    if trimmed.len() != text.len() || text == "." || text == ".." {
        return Err(Unusable::Ambiguous);
    }
    Ok(text)
}

/// [`safe_level`]'s text, or [`UNUSABLE_LABEL`] in its place.
pub fn safe_level_or_label(text: &str) -> &str {
    safe_level(text).unwrap_or(UNUSABLE_LABEL)
}

/// Most levels [`topic_root`] takes in a root (`msh/US/CA/Bay` is four).
pub const MAX_ROOT_LEVELS: usize = 8;

/// Which of the firmware's MQTT outputs a topic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TopicKind {
    /// `ROOT/2/e/CHANNEL/GATEWAY`: a ServiceEnvelope.
    Envelope,
    /// `ROOT/2/json/CHANNEL/GATEWAY`: the firmware's JSON.
    Json,
}

/// The root of a topic the firmware publishes on, `ROOT/2/e/CHANNEL/GATEWAY`
/// or `ROOT/2/json/CHANNEL/GATEWAY` (`msh/US` of `msh/US/2/e/LongFast/!0a0b0c0d`):
/// `None` unless the topic has that shape, and its root 1 to
/// [`MAX_ROOT_LEVELS`] levels that each pass [`safe_level`]. The root is a
/// slice of `topic`, never rewritten.
///
/// ```
/// use wireseal::meshtastic::untrusted::{topic_root, TopicKind};
///
/// let t = "msh/US/2/e/LongFast/!0a0b0c0d";
/// assert_eq!(topic_root(t, TopicKind::Envelope), Some("msh/US"));
/// assert_eq!(topic_root(t, TopicKind::Json), None);
/// assert_eq!(topic_root("msh/+/2/e/LongFast/!0a0b0c0d", TopicKind::Envelope), None);
/// ```
pub fn topic_root(topic: &str, kind: TopicKind) -> Option<&str> {
    let word = match kind {
        TopicKind::Envelope => "e",
        TopicKind::Json => "json",
    };
    let mut levels = topic.rsplitn(5, '/');
    let (_gateway, _channel) = (levels.next()?, levels.next()?);
    if levels.next()? != word || levels.next()? != "2" {
        return None;
    }
    let root = levels.next()?;
    let mut n = 0;
    for level in root.split('/') {
        safe_level(level).ok()?;
        n += 1;
    }
    (n <= MAX_ROOT_LEVELS).then_some(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_roots_are_the_levels_before_the_output() {
        let e = TopicKind::Envelope;
        assert_eq!(topic_root("msh/2/e/LongFast/!0a0b0c0d", e), Some("msh"));
        assert_eq!(
            topic_root("msh/EU_868/PL/2/e/PKI/!0a0b0c0d", e),
            Some("msh/EU_868/PL")
        );
        assert_eq!(
            topic_root("msh/US/2/json/LongFast/!0a0b0c0d", TopicKind::Json),
            Some("msh/US")
        );
        for bad in [
            "2/e/LongFast/!0a0b0c0d",
            "/2/e/LongFast/!0a0b0c0d",
            "msh//2/e/LongFast/!0a0b0c0d",
            "msh/US/2/e/LongFast",
            "msh/US/2/c/LongFast/!0a0b0c0d",
            "msh/US/3/e/LongFast/!0a0b0c0d",
            "msh/#/2/e/LongFast/!0a0b0c0d",
            "$SYS/2/e/LongFast/!0a0b0c0d",
            "a/b/c/d/e/f/g/h/i/2/e/LongFast/!0a0b0c0d",
        ] {
            assert_eq!(topic_root(bad, e), None, "{bad}");
        }
        assert_eq!(
            topic_root("a/b/c/d/e/f/g/h/2/e/x/y", e),
            Some("a/b/c/d/e/f/g/h")
        );
    }

    #[test]
    fn ordinary_ids_pass_as_they_are() {
        for s in [
            "LongFast",
            "PKI",
            "!0a0b0c0d",
            "Ops Net",
            "Café",
            "日本",
            UNUSABLE_LABEL,
        ] {
            assert_eq!(safe_level(s), Ok(s));
        }
        assert_eq!(safe_level(&"x".repeat(64)).map(str::len), Ok(64));
    }

    #[test]
    fn hostile_ids_are_refused() {
        let cases: [(&str, Unusable); 17] = [
            ("", Unusable::Empty),
            (&"x".repeat(65), Unusable::TooLong),
            ("Long#Fast", Unusable::Separator),
            ("a+b", Unusable::Separator),
            ("x/../y", Unusable::Separator),
            ("c:\\x", Unusable::Separator),
            ("$SYS", Unusable::Separator),
            ("nul\0", Unusable::Control),
            ("line\nbreak", Unusable::Control),
            ("esc\x1b[31m", Unusable::Control),
            ("del\x7f", Unusable::Control),
            ("c1\u{85}", Unusable::Control),
            ("rtl\u{202e}txt", Unusable::Control),
            ("sep\u{2028}", Unusable::Control),
            (".", Unusable::Ambiguous),
            ("..", Unusable::Ambiguous),
            (" padded", Unusable::Ambiguous),
        ];
        for (s, why) in cases {
            assert_eq!(safe_level(s), Err(why), "{s:?}");
            assert_eq!(safe_level_or_label(s), UNUSABLE_LABEL);
        }
    }
}
