//! Rack-style bracket forms: `a[]=1` is an array, `m[k]=v` a map, `items[][name]=A&items[][amount]=1`
//! an array of maps where a repeated key starts a new element, and numeric keys (`items[0][name]`)
//! are array positions, also when mixed with `[]` for the same list (PayRex's Python client sends
//! `a[]=…` for the first ten items and `a[10]=…` after). `None` or an empty value means the parameter
//! is absent. Every key is checked against the bounds of [`super::limits`] before it is used, so the
//! recursion below is at most [`MAX_DEPTH`] deep.

use super::limits::{self, MAX_DEPTH, MAX_KEY_LENGTH, MAX_PARAMETERS};
use payments_domain::validation::FieldError;
use percent_encoding::percent_decode;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Decodes an `application/x-www-form-urlencoded` body or query string into nested parameters.
///
/// # Errors
/// `parameter_invalid` naming a key that is used both as a value and as a container, or a key or
/// value that breaks a bound of [`super::limits`].
pub fn parse(input: &[u8]) -> Result<Map<String, Value>, FieldError> {
    parse_with(input, false)
}

/// As [`parse`], for a query string: a plain key with an empty value stays, as an empty string that
/// readers take for absent, so an unknown one is still refused (`?colour=`).
///
/// # Errors
/// As [`parse`].
pub fn parse_query(input: &[u8]) -> Result<Map<String, Value>, FieldError> {
    parse_with(input, true)
}

fn parse_with(input: &[u8], keep_empty_plain_keys: bool) -> Result<Map<String, Value>, FieldError> {
    let mut root = Map::new();
    for (count, pair) in input.split(|b| *b == b'&').filter(|pair| !pair.is_empty()).enumerate() {
        let (key, value) = decode_pair(pair)?;
        if count >= MAX_PARAMETERS {
            return Err(limits::too_many_parameters(&key));
        }
        if key.len() > MAX_KEY_LENGTH {
            return Err(limits::key_too_long(&key));
        }
        if key.contains('\0') || value.contains('\0') {
            return Err(limits::nul_character(&key));
        }
        let (name, path) = split_key(&key);
        // An empty value is an absent parameter, unless its key is not one a reader could ask for
        // (brackets that do not pair): that one is still reported as unknown.
        let malformed = path.is_empty() && key.contains('[');
        let kept = malformed || (keep_empty_plain_keys && path.is_empty());
        let absent = value.is_empty() || value == "None";
        if absent && !kept {
            continue;
        }
        let value = if absent { String::new() } else { value };
        if path.len() > MAX_DEPTH {
            return Err(limits::too_deep(&key));
        }
        insert(&mut root, name, &path, value).map_err(|()| {
            FieldError::invalid(key.as_str(), format!("The parameter {key} conflicts with another one."))
        })?;
    }
    Ok(positional_maps_to_arrays(root))
}

/// A `key=value` pair, percent-decoded with `+` as a space. Unlike a lenient decoder, invalid UTF-8
/// (raw, percent-encoded, or an overlong form such as `%C0%80`) is refused rather than replaced.
fn decode_pair(pair: &[u8]) -> Result<(String, String), FieldError> {
    let (key, value) = match pair.iter().position(|b| *b == b'=') {
        Some(equals) => (&pair[..equals], &pair[equals + 1..]),
        None => (pair, &b""[..]),
    };
    let text = |bytes: &[u8]| -> Option<String> {
        let spaced: Cow<'_, [u8]> = if bytes.contains(&b'+') {
            Cow::Owned(bytes.iter().map(|b| if *b == b'+' { b' ' } else { *b }).collect())
        } else {
            Cow::Borrowed(bytes)
        };
        percent_decode(&spaced).decode_utf8().ok().map(Cow::into_owned)
    };
    match (text(key), text(value)) {
        (Some(key), Some(value)) => Ok((key, value)),
        (key, _) => {
            let name = key.unwrap_or_else(|| String::from_utf8_lossy(key_bytes_shown(pair)).into_owned());
            Err(FieldError::invalid(limits::shown(&name), "Parameters must be valid UTF-8 text."))
        }
    }
}

/// The key part of a pair, for naming it in an error.
fn key_bytes_shown(pair: &[u8]) -> &[u8] {
    pair.split(|b| *b == b'=').next().unwrap_or(pair)
}

/// One bracket segment: `[name]`, or `[]` for "append to an array".
type Segment = Option<String>;

/// Splits `a[b][]` into `a` and `[Some(b), None]`. A key with unbalanced brackets is kept whole, so
/// it is reported as an unknown parameter.
fn split_key(key: &str) -> (&str, Vec<Segment>) {
    let Some(open) = key.find('[').filter(|&i| i > 0) else {
        return (key, Vec::new());
    };
    let mut segments = Vec::new();
    let mut rest = &key[open..];
    while let Some(inner) = rest.strip_prefix('[') {
        let Some(close) = inner.find(']') else {
            return (key, Vec::new());
        };
        let segment = &inner[..close];
        if segment.contains('[') {
            return (key, Vec::new());
        }
        segments.push((!segment.is_empty()).then(|| segment.to_owned()));
        rest = &inner[close + 1..];
    }
    if rest.is_empty() {
        (&key[..open], segments)
    } else {
        (key, Vec::new())
    }
}

fn insert(target: &mut Map<String, Value>, name: &str, path: &[Segment], value: String) -> Result<(), ()> {
    let Some((first, rest)) = path.split_first() else {
        // A repeated plain key is a list (`metadata=a&metadata=b`, as Python's `requests` sends a
        // list or a map in a query string); a single reader of one string then refuses it.
        return match target.get_mut(name) {
            None => {
                target.insert(name.to_owned(), Value::String(value));
                Ok(())
            }
            Some(previous @ Value::String(_)) => {
                let first = std::mem::take(previous);
                *previous = Value::Array(vec![first, Value::String(value)]);
                Ok(())
            }
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                items.push(Value::String(value));
                Ok(())
            }
            Some(_) => Err(()),
        };
    };
    match first {
        Some(child) => {
            let entry = target.entry(name).or_insert_with(|| Value::Object(Map::new()));
            // A position after `[]` items (`a[]=x&a[10]=y`): the list continues in position order.
            if matches!(entry, Value::Array(_)) && is_position(child) {
                *entry = positions_of(std::mem::take(entry));
            }
            let Value::Object(map) = entry else {
                return Err(());
            };
            insert(map, child, rest, value)
        }
        None => {
            let entry = target.entry(name).or_insert_with(|| Value::Array(Vec::new()));
            // `[]` after positions (`a[0]=x&a[]=y`): append after the last position.
            if let Value::Object(map) = entry {
                if !map.is_empty() && map.keys().all(|key| is_position(key)) {
                    *entry = normalize(std::mem::take(entry));
                }
            }
            let Value::Array(items) = entry else {
                return Err(());
            };
            match rest.split_first() {
                None => {
                    items.push(Value::String(value));
                    Ok(())
                }
                Some((Some(child), deeper)) => {
                    // Rack: fill the last element until the key repeats, then start a new element.
                    let start_new = match items.last() {
                        Some(Value::Object(last)) => has_path(last, child, deeper),
                        _ => true,
                    };
                    if start_new {
                        items.push(Value::Object(Map::new()));
                    }
                    match items.last_mut() {
                        Some(Value::Object(last)) => insert(last, child, deeper, value),
                        _ => Err(()),
                    }
                }
                Some((None, _)) => Err(()),
            }
        }
    }
}

fn has_path(map: &Map<String, Value>, name: &str, path: &[Segment]) -> bool {
    match (map.get(name), path.split_first()) {
        (None, _) => false,
        (Some(_), None) => true,
        (Some(Value::Object(inner)), Some((Some(child), rest))) => has_path(inner, child, rest),
        (Some(_), Some(_)) => true,
    }
}

/// Whether a key is an array position (`0`, `10`).
fn is_position(key: &str) -> bool {
    !key.is_empty() && key.len() <= 9 && key.bytes().all(|b| b.is_ascii_digit())
}

/// An array as a map from positions to items, so later positions can join it in order.
fn positions_of(value: Value) -> Value {
    match value {
        Value::Array(items) => {
            Value::Object(items.into_iter().enumerate().map(|(position, item)| (position.to_string(), item)).collect())
        }
        other => other,
    }
}

/// Maps whose keys are all array positions (`a[0]`, `a[1]`) become arrays in position order.
fn positional_maps_to_arrays(map: Map<String, Value>) -> Map<String, Value> {
    map.into_iter().map(|(key, value)| (key, normalize(value))).collect()
}

fn normalize(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let positions: Option<Vec<usize>> =
                map.keys().map(|k| if is_position(k) { k.parse::<usize>().ok() } else { None }).collect();
            match positions {
                Some(positions) if !positions.is_empty() => {
                    let mut items: Vec<(usize, Value)> =
                        positions.into_iter().zip(map.into_iter().map(|(_, v)| normalize(v))).collect();
                    items.sort_by_key(|(position, _)| *position);
                    Value::Array(items.into_iter().map(|(_, v)| v).collect())
                }
                _ => Value::Object(positional_maps_to_arrays(map)),
            }
        }
        Value::Array(items) => Value::Array(items.into_iter().map(normalize).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use payments_domain::validation::ErrorCode;
    use serde_json::json;

    fn decode(input: &str) -> Value {
        Value::Object(parse(input.as_bytes()).expect("valid form"))
    }

    #[test]
    fn plain_keys_maps_and_arrays() {
        assert_eq!(
            decode("name=Juan+dela+Cruz&metadata[order]=42&payment_methods[]=card&payment_methods[]=gcash"),
            json!({"name": "Juan dela Cruz", "metadata": {"order": "42"}, "payment_methods": ["card", "gcash"]})
        );
    }

    #[test]
    fn nested_maps_and_percent_encoded_brackets() {
        assert_eq!(
            decode("billing%5Baddress%5D%5Bline1%5D=1%20Main&billing[address][country]=PH&billing[phone]=123"),
            json!({"billing": {"address": {"line1": "1 Main", "country": "PH"}, "phone": "123"}})
        );
    }

    #[test]
    fn arrays_of_maps_start_a_new_element_when_a_key_repeats() {
        assert_eq!(
            decode("line_items[][name]=A&line_items[][amount]=100&line_items[][name]=B&line_items[][amount]=200"),
            json!({"line_items": [{"name": "A", "amount": "100"}, {"name": "B", "amount": "200"}]})
        );
    }

    #[test]
    fn numeric_keys_are_array_positions() {
        assert_eq!(
            decode("line_items[10][name]=B&line_items[0][name]=A&line_items[0][amount]=1"),
            json!({"line_items": [{"name": "A", "amount": "1"}, {"name": "B"}]})
        );
    }

    #[test]
    fn a_repeated_plain_key_is_a_list() {
        assert_eq!(decode("metadata=a&metadata=b&metadata=c"), json!({"metadata": ["a", "b", "c"]}));
        assert_eq!(decode("m[]=a&m=b"), json!({"m": ["a", "b"]}));
        let refused = parse(b"m[k]=a&m=b").unwrap_err();
        assert_eq!(
            (refused.parameter.as_str(), refused.code),
            ("m", ErrorCode::ParameterInvalid),
            "a map and a value cannot share a name"
        );
    }

    #[test]
    fn empty_and_none_values_are_absent() {
        assert_eq!(decode("description=&customer_id=None&name=x"), json!({"name": "x"}));
    }

    #[test]
    fn a_key_used_as_value_and_container_is_refused() {
        let error = parse(b"metadata=x&metadata[k]=v").unwrap_err();
        assert_eq!(error.parameter, "metadata[k]");
    }

    #[test]
    fn positions_may_follow_and_precede_appended_items() {
        // What payrex-python sends for a list of eleven: `[0]`..`[9]` rewritten to `[]`, `[10]` kept.
        let mut form: Vec<String> = (0..10).map(|i| format!("events[]=e{i}")).collect();
        form.push("events[10]=e10".to_owned());
        let expected: Vec<String> = (0..=10).map(|i| format!("e{i}")).collect();
        assert_eq!(decode(&form.join("&")), json!({ "events": expected }));
        assert_eq!(decode("a[0]=x&a[]=y&a[]=z"), json!({"a": ["x", "y", "z"]}));
        let mut items: Vec<String> =
            (0..10).map(|i| format!("line_items[][name]=n{i}&line_items[][amount]={i}")).collect();
        items.push("line_items[10][name]=n10&line_items[10][amount]=10".to_owned());
        let decoded = decode(&items.join("&"));
        let list = decoded["line_items"].as_array().expect("a list");
        assert_eq!(list.len(), 11);
        assert_eq!(list[10], json!({"name": "n10", "amount": "10"}));
        assert_eq!(list[3], json!({"name": "n3", "amount": "3"}));
    }

    #[test]
    fn bounds_are_refused_naming_the_limit() {
        let deep = format!("x{}=1", "[a]".repeat(MAX_DEPTH + 1));
        assert!(parse(deep.as_bytes()).unwrap_err().detail.contains("32 levels"));
        let very_deep = format!("x{}=1", "[a]".repeat(3_000));
        assert!(parse(very_deep.as_bytes()).unwrap_err().detail.contains("200 bytes"));
        let at_limit = format!("x{}=1", "[a]".repeat(MAX_DEPTH));
        assert!(parse(at_limit.as_bytes()).is_ok());
        let many: Vec<String> = (0..=MAX_PARAMETERS).map(|i| format!("k{i}=v")).collect();
        assert!(parse(many.join("&").as_bytes()).unwrap_err().detail.contains("1000 parameters"));
        let long = format!("{}=v", "k".repeat(MAX_KEY_LENGTH + 1));
        assert!(parse(long.as_bytes()).unwrap_err().detail.contains("200 bytes"));
        for nul in ["name=a%00b", "na%00me=x", "metadata[%00]=x"] {
            assert!(parse(nul.as_bytes()).unwrap_err().detail.contains("NUL"), "{nul}");
        }
        for invalid in [&b"name=%ff%fe"[..], b"name=\xff", b"name=%C0%80", b"metadata[%ff]=x", b"%e2%82=1"] {
            let error = parse(invalid).unwrap_err();
            assert!(error.detail.contains("UTF-8"), "{}", String::from_utf8_lossy(invalid));
        }
        assert_eq!(decode("name=%E2%82%B1+1%2C234"), json!({"name": "₱ 1,234"}));
    }

    #[test]
    fn unbalanced_brackets_keep_the_key_whole() {
        assert_eq!(decode("a[b=1"), json!({"a[b": "1"}));
        assert_eq!(decode("a]b[=1"), json!({"a]b[": "1"}));
    }
}
