//! Property tests of the decoders, a bounded fuzz pass that runs with every `cargo test`: random and
//! hostile forms never panic and never decode past the bounds, and what PayRex's Python client sends
//! for any nested value decodes back to that value.

use super::form;
use super::limits::{check_json, MAX_DEPTH};
use proptest::collection::{btree_map, btree_set, vec};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Cases per property: enough to find shape bugs, few enough to keep the suite fast.
const CASES: u32 = 512;

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 .@_-]{1,8}".prop_filter("`None` means absent", |text| text != "None")
}

fn key() -> impl Strategy<Value = String> {
    "[a-z_]{1,6}"
}

/// A list of maps that all have the same keys, like line items.
fn list_of_records() -> impl Strategy<Value = Value> {
    (btree_set(key(), 1..4), 1..14usize).prop_flat_map(|(keys, length)| {
        let record = keys
            .into_iter()
            .map(|key| text().prop_map(move |value| (key.clone(), Value::String(value))))
            .collect::<Vec<_>>()
            .prop_map(|pairs| Value::Object(pairs.into_iter().collect()));
        vec(record, length).prop_map(Value::Array)
    })
}

/// Strings, lists of strings, lists of records, and maps of those, a few levels deep.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        text().prop_map(Value::String),
        vec(text().prop_map(Value::String), 1..14).prop_map(Value::Array),
        list_of_records(),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        btree_map(key(), inner, 1..4).prop_map(|map| Value::Object(map.into_iter().collect()))
    })
}

/// Encodes parameters exactly as `payrex-python` does: `http_build_query` with list positions, then
/// `urlencode`, then positions `[0]`..`[9]` rewritten to `[]` (its regex `%5B[\d+]%5D`).
fn payrex_python_form(parameters: &Map<String, Value>) -> String {
    fn build(name: String, value: &Value, pairs: &mut Vec<(String, String)>) {
        match value {
            Value::Object(map) => map.iter().for_each(|(key, value)| build(format!("{name}[{key}]"), value, pairs)),
            Value::Array(items) => {
                items.iter().enumerate().for_each(|(position, item)| build(format!("{name}[{position}]"), item, pairs));
            }
            Value::String(text) => pairs.push((name, text.clone())),
            other => pairs.push((name, other.to_string())),
        }
    }
    let mut pairs = Vec::new();
    for (key, value) in parameters {
        build(key.clone(), value, &mut pairs);
    }
    let encoded = form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish();
    let mut rewritten = String::with_capacity(encoded.len());
    let mut rest = encoded.as_str();
    while let Some(start) = rest.find("%5B") {
        let after = &rest[start + 3..];
        let single_position = after.len() >= 4
            && (after.as_bytes()[0].is_ascii_digit() || after.as_bytes()[0] == b'+')
            && after[1..].starts_with("%5D");
        rewritten.push_str(&rest[..start]);
        if single_position {
            rewritten.push_str("%5B%5D");
            rest = &after[4..];
        } else {
            rewritten.push_str("%5B");
            rest = after;
        }
    }
    rewritten.push_str(rest);
    rewritten
}

/// Nesting depth of a decoded value: a string is 0, a map of strings 1.
fn depth(value: &Value) -> usize {
    match value {
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

fn contains_nul(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(key, value)| key.contains('\0') || contains_nul(value)),
        Value::Array(items) => items.iter().any(contains_nul),
        Value::String(text) => text.contains('\0'),
        _ => false,
    }
}

/// Keys made of brackets, digits, letters, NULs and separators, some of them thousands deep.
fn hostile_form() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just("[]".to_owned()),
        Just("[a]".to_owned()),
        Just("[0]".to_owned()),
        Just("[10]".to_owned()),
        Just("%5B".to_owned()),
        Just("%00".to_owned()),
        Just("=".to_owned()),
        Just("&".to_owned()),
        "[a-z0-9]{1,3}",
    ];
    let deep = (1..4_000usize, prop_oneof![Just("[a]"), Just("[]"), Just("[0]")])
        .prop_map(|(levels, segment)| format!("x{}=1", segment.repeat(levels)));
    prop_oneof![vec(piece, 0..200).prop_map(|pieces| pieces.concat()), deep]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn what_payrex_python_sends_decodes_to_what_it_meant(parameters in btree_map(key(), value(), 1..6)) {
        let parameters: Map<String, Value> = parameters.into_iter().collect();
        let encoded = payrex_python_form(&parameters);
        let decoded = form::parse(encoded.as_bytes());
        prop_assert_eq!(decoded.map(Value::Object), Ok(Value::Object(parameters)), "{}", encoded);
    }

    #[test]
    fn hostile_forms_never_panic_nor_decode_past_the_bounds(input in hostile_form()) {
        if let Ok(decoded) = form::parse(input.as_bytes()) {
            let decoded = Value::Object(decoded);
            prop_assert!(depth(&decoded) <= MAX_DEPTH + 1, "{}", input);
            prop_assert!(!contains_nul(&decoded), "{}", input);
            prop_assert!(check_json(decoded.as_object().expect("an object")).is_ok(), "{}", input);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(input in vec(any::<u8>(), 0..2_000)) {
        let _ = form::parse(&input);
    }
}
