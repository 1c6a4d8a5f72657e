//! The human rendering of a MeshCore record: the JSON record's fields in
//! its order, as `name: value` lines like every other command's (`_` shown
//! as `-`, booleans as yes/no, nulls and empty lists left out), the
//! per-type object's fields indented under its name. Text from the packet
//! (names, messages) is shown with control and bidirectional-format
//! characters and backslashes escaped, so a packet cannot move the cursor
//! or reorder what the terminal shows; `--json` keeps it exact.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// A JSON value whose objects keep their order.
enum Node {
    Null,
    Bool(bool),
    Number(String),
    Text(String),
    List(Vec<Node>),
    Map(Vec<(String, Node)>),
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Number(v.to_string()))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Number(v.to_string()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Number(serde_json::Value::from(v).to_string()))
    }

    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Text(v.to_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(n) = seq.next_element()? {
            items.push(n);
        }
        Ok(Node::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry()? {
            entries.push((k, v));
        }
        Ok(Node::Map(entries))
    }
}

/// Prints the record (JSON text, as `--json` prints it) for a person.
pub fn human(json: &str) {
    let Ok(Node::Map(fields)) = serde_json::from_str::<Node>(json) else {
        // The record always is an object; print it as it is otherwise.
        crate::outln!("{json}");
        return;
    };
    let mut out = String::new();
    lines(&mut out, &fields, "");
    crate::util::output::stdout_bytes(out.as_bytes());
}

fn lines(out: &mut String, fields: &[(String, Node)], indent: &str) {
    for (k, v) in fields {
        let name = k.replace('_', "-");
        match v {
            Node::Null => {}
            Node::List(items) if items.is_empty() => {}
            Node::Map(inner) => {
                out.push_str(&format!("{indent}{name}:\n"));
                lines(out, inner, &format!("{indent}  "));
            }
            other => out.push_str(&format!("{indent}{name}: {}\n", value(other))),
        }
    }
}

fn value(v: &Node) -> String {
    match v {
        Node::Null => String::new(),
        Node::Bool(true) => "yes".into(),
        Node::Bool(false) => "no".into(),
        Node::Number(n) => n.clone(),
        Node::Text(t) => escaped(t),
        Node::List(items) => items.iter().map(value).collect::<Vec<_>>().join(", "),
        Node::Map(_) => "{...}".into(),
    }
}

/// `t` with every character that could change how a terminal shows the
/// line (controls, line and paragraph separators, bidirectional and other
/// format characters) written as `\u{..}`, and `\` as `\\`.
fn escaped(t: &str) -> String {
    let mut s = String::with_capacity(t.len());
    for c in t.chars() {
        let format_char = matches!(c,
            '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}');
        if c == '\\' {
            s.push_str("\\\\");
        } else if c.is_control() || format_char {
            s.extend(c.escape_unicode());
        } else {
            s.push(c);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::escaped;

    #[test]
    fn text_cannot_drive_the_terminal() {
        assert_eq!(escaped("Alice: hi ☁️"), "Alice: hi ☁️");
        assert_eq!(escaped("a\x1b[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(escaped("a\nb\u{9b}c"), "a\\u{a}b\\u{9b}c");
        assert_eq!(escaped("x\u{202e}y\\"), "x\\u{202e}y\\\\");
    }
}
