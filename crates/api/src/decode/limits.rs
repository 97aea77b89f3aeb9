//! Bounds on the shape of one request's parameters, whatever its encoding: nesting depth, number of
//! parameters, key length, and no NUL characters. They are checked before anything else reads the
//! parameters, so every later step works on input of bounded size and depth.

use crate::redact::card_numbers::shortened;
use payments_domain::validation::FieldError;
use serde_json::{Map, Value};

/// Deepest nesting of maps and lists (`a[b][c]` is 3 levels).
pub const MAX_DEPTH: usize = 32;
/// Most parameters (keys and list items, at every level) in one request.
pub const MAX_PARAMETERS: usize = 1_000;
/// Longest key, in bytes, of a form field or a JSON member.
pub const MAX_KEY_LENGTH: usize = 200;
/// Longest prefix of an offending key shown in an error.
const SHOWN_KEY_LENGTH: usize = 40;

/// The refusal of a request with more than [`MAX_PARAMETERS`] parameters.
pub(crate) fn too_many_parameters(parameter: &str) -> FieldError {
    FieldError::invalid(
        shown(parameter),
        format!("A request may carry at most {MAX_PARAMETERS} parameters; this one has more."),
    )
}

/// The refusal of a key nested deeper than [`MAX_DEPTH`].
pub(crate) fn too_deep(parameter: &str) -> FieldError {
    FieldError::invalid(
        shown(parameter),
        format!("Parameters may be nested at most {MAX_DEPTH} levels deep; this one is deeper."),
    )
}

/// The refusal of a key longer than [`MAX_KEY_LENGTH`].
pub(crate) fn key_too_long(parameter: &str) -> FieldError {
    FieldError::invalid(
        shown(parameter),
        format!("A parameter name may be at most {MAX_KEY_LENGTH} bytes long; this one is longer."),
    )
}

/// The refusal of a NUL character in a key or a value.
pub(crate) fn nul_character(parameter: &str) -> FieldError {
    FieldError::invalid(shown(parameter), "Parameters may not contain the NUL character (U+0000).")
}

/// A key as an error names it: NULs removed, card numbers taken out, cut to a readable length.
pub(crate) fn shown(parameter: &str) -> String {
    let clean: String = parameter.chars().filter(|c| *c != '\0').collect();
    shortened(&clean, SHOWN_KEY_LENGTH)
}

/// Checks a decoded JSON body against every bound, without recursion.
///
/// # Errors
/// The first bound the body breaks, naming the parameter.
pub(crate) fn check_json(map: &Map<String, Value>) -> Result<(), FieldError> {
    let mut count = 0;
    // Each entry: a value still to look at, the name a client would use for it, and its depth.
    let mut pending: Vec<(&Value, String, usize)> = Vec::new();
    for (key, value) in map {
        pending.push((value, check_key(key, key)?, 0));
    }
    while let Some((value, name, depth)) = pending.pop() {
        count += 1;
        if count > MAX_PARAMETERS {
            return Err(too_many_parameters(&name));
        }
        if depth > MAX_DEPTH {
            return Err(too_deep(&name));
        }
        match value {
            Value::String(text) if text.contains('\0') => return Err(nul_character(&name)),
            Value::Object(members) => {
                for (key, member) in members {
                    let child = format!("{name}[{}]", check_key(key, &name)?);
                    pending.push((member, child, depth + 1));
                }
            }
            Value::Array(items) => {
                if items.len() > MAX_PARAMETERS {
                    return Err(too_many_parameters(&name));
                }
                for (position, item) in items.iter().enumerate() {
                    pending.push((item, format!("{name}[{position}]"), depth + 1));
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }
    Ok(())
}

/// A JSON member name that respects the bounds, or the refusal naming where it sits.
fn check_key(key: &str, parent: &str) -> Result<String, FieldError> {
    if key.len() > MAX_KEY_LENGTH {
        return Err(key_too_long(&format!("{parent}[{key}]")));
    }
    if key.contains('\0') {
        return Err(nul_character(parent));
    }
    Ok(key.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(value: Value) -> Result<(), FieldError> {
        let Value::Object(map) = value else { unreachable!("tests pass objects") };
        check_json(&map)
    }

    #[test]
    fn bodies_within_the_bounds_pass() {
        assert!(check(json!({"name": "Ana", "metadata": {"a": "1"}, "items": [{"n": 1}, {"n": 2}]})).is_ok());
    }

    #[test]
    fn each_bound_is_named_in_its_refusal() {
        let mut deep = json!("x");
        for _ in 0..=MAX_DEPTH + 1 {
            deep = json!({ "a": deep });
        }
        let error = check(deep).unwrap_err();
        assert!(error.detail.contains("32 levels"), "{error}");

        let many: Map<String, Value> = (0..=MAX_PARAMETERS).map(|i| (format!("k{i}"), json!("v"))).collect();
        assert!(check_json(&many).unwrap_err().detail.contains("1000 parameters"));

        let long_key = "k".repeat(MAX_KEY_LENGTH + 1);
        let error = check(json!({ "metadata": { long_key: "v" } })).unwrap_err();
        assert!(error.detail.contains("200 bytes"), "{error}");
        assert!(error.parameter.ends_with('…'), "the key is cut: {}", error.parameter);

        let error = check(json!({"name": "A\u{0}B"})).unwrap_err();
        assert_eq!(error.parameter, "name");
        assert!(error.detail.contains("NUL"));
    }
}
