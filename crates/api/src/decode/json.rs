//! JSON bodies, parsed strictly: the nesting is measured before parsing (so no parser recursion goes
//! past the bound of [`super::limits`]), and an object that names a member twice is refused rather
//! than keeping the last value silently, as forms refuse a repeated key.

use super::limits::MAX_DEPTH;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Why a body was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum JsonRefusal {
    /// Objects and arrays nested deeper than the bound allows.
    TooDeep,
    /// Not JSON, or an object naming a member twice; the parser's words.
    Invalid(String),
}

/// Parses `body`, refusing nesting past [`MAX_DEPTH`] levels below the top object and repeated
/// member names.
pub(crate) fn parse(body: &[u8]) -> Result<Value, JsonRefusal> {
    // The top-level object is one level more than the deepest parameter path (`a[b]` is
    // `{"a": {"b": …}}`).
    if nesting(body) > MAX_DEPTH + 1 {
        return Err(JsonRefusal::TooDeep);
    }
    serde_json::from_slice::<StrictValue>(body).map(|strict| strict.0).map_err(|e| JsonRefusal::Invalid(e.to_string()))
}

/// The deepest nesting of objects and arrays in `body`, counted without parsing (brackets inside
/// strings do not count).
fn nesting(body: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0_usize, 0_usize, false, false);
    for &byte in body {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// A JSON value whose objects never name a member twice.
struct StrictValue(Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Value, A::Error> {
        let mut list = Vec::new();
        while let Some(StrictValue(item)) = items.next_element()? {
            list.push(item);
        }
        Ok(Value::Array(list))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(name) = members.next_key::<String>()? {
            let StrictValue(value) = members.next_value()?;
            if map.contains_key(&name) {
                return Err(de::Error::custom(format_args!("the member {name} is given twice")));
            }
            map.insert(name, value);
        }
        Ok(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_parse_as_serde_json_parses_them() {
        let body = br#"{"a": [1, -2, 2.5, "x", true, null, {"b": {}}], "s": "{[not nesting]}"}"#;
        assert_eq!(parse(body), Ok(serde_json::from_slice::<Value>(body).unwrap()));
    }

    #[test]
    fn repeated_members_are_refused_at_every_level() {
        for body in [&br#"{"name": "a", "name": "b"}"#[..], br#"{"m": {"k": 1, "k": 2}}"#, br#"[{"k": 1, "k": 1}]"#] {
            let Err(JsonRefusal::Invalid(message)) = parse(body) else { panic!("accepted") };
            assert!(message.contains("given twice"), "{message}");
        }
    }

    #[test]
    fn nesting_is_measured_before_parsing() {
        let nested = |levels: usize| format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
        assert_eq!(parse(nested(MAX_DEPTH + 1).as_bytes()), Ok(serde_json::from_str(&nested(MAX_DEPTH + 1)).unwrap()));
        assert_eq!(parse(nested(MAX_DEPTH + 2).as_bytes()), Err(JsonRefusal::TooDeep));
        assert_eq!(parse(nested(500_000).as_bytes()), Err(JsonRefusal::TooDeep));
        assert_eq!(
            parse(br#"{"s": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"["}"#),
            Ok(json!({"s": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"["}))
        );
    }
}
