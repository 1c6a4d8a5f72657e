//! MQTT topic filters: checked as the broker would take them, and matched
//! against a message's topic to say which feed it belongs to.

/// Why `filter` is not an MQTT topic filter, if it is not: empty, over
/// 65,535 bytes, a NUL, `#` anywhere but alone in the last level, or `+`
/// sharing its level with other characters.
///
/// # Errors
/// The rule it breaks, in words (the filter is the operator's, not the
/// feed's, but it is not repeated: the setting's name says which).
pub fn check_filter(filter: &str) -> Result<(), String> {
    if filter.is_empty() || filter.len() > 65_535 {
        return Err("a topic filter of 1 to 65,535 bytes".into());
    }
    if filter.contains('\0') {
        return Err("a topic filter without NUL".into());
    }
    let levels: Vec<&str> = filter.split('/').collect();
    for (i, l) in levels.iter().enumerate() {
        if l.contains('#') && (*l != "#" || i + 1 != levels.len()) {
            return Err("'#' only alone in the last level".into());
        }
        if l.contains('+') && *l != "+" {
            return Err("'+' only alone in a level".into());
        }
    }
    Ok(())
}

/// Whether `topic` matches `filter` (`+` one level, `#` this level and
/// every one below, or none; a topic starting with `$` matches no filter
/// whose first level is a wildcard).
pub fn matches(filter: &str, topic: &str) -> bool {
    let mut f = filter.split('/');
    let mut t = topic.split('/');
    let mut first = true;
    loop {
        match (f.next(), t.next()) {
            (Some("#"), _) => return !(first && topic.starts_with('$')),
            (Some("+"), Some(_)) if first && topic.starts_with('$') => return false,
            (Some("+"), Some(_)) => {}
            (Some(a), Some(b)) if a == b => {}
            (None, None) => return true,
            _ => return false,
        }
        first = false;
    }
}

/// `filter` as the broker is asked for it: shared in `group` when given.
pub fn subscription(filter: &str, group: Option<&str>) -> String {
    match group {
        Some(g) => format!("$share/{g}/{filter}"),
        None => filter.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_are_checked_as_a_broker_checks_them() {
        for ok in [
            "meshcore/#",
            "meshcore/+/+/packets",
            "#",
            "+",
            "a//b",
            "a/+/#",
        ] {
            assert_eq!(check_filter(ok), Ok(()), "{ok}");
        }
        for bad in ["", "a/#/b", "a#", "a/b+", "+a/b", "a\0b", "##"] {
            assert!(check_filter(bad).is_err(), "{bad:?}");
        }
        assert!(check_filter(&"a".repeat(65_536)).is_err());
    }

    #[test]
    fn topics_match_as_mqtt_says() {
        let yes = [
            ("meshcore/#", "meshcore/SEA/ABCD/packets"),
            ("meshcore/#", "meshcore"),
            ("meshcore/+/+/packets", "meshcore/SEA/ABCD/packets"),
            ("#", "msh/US/2/e/LongFast/!a"),
            ("a/+", "a/"),
        ];
        for (f, t) in yes {
            assert!(matches(f, t), "{f} {t}");
        }
        let no = [
            ("meshcore/+/+/packets", "meshcore/SEA/ABCD/status"),
            ("meshcore/+/+/packets", "meshcore/SEA/packets"),
            ("meshcore/#", "msh/US/2/e/x"),
            ("#", "$SYS/broker/uptime"),
            ("+/x", "$SYS/x"),
            ("a/b", "a/b/c"),
        ];
        for (f, t) in no {
            assert!(!matches(f, t), "{f} {t}");
        }
        assert_eq!(subscription("meshcore/#", Some("g")), "$share/g/meshcore/#");
    }
}
