//! Rack-style bracket forms: `a[]=1` is an array, `m[k]=v` a map, `items[][name]=A&items[][amount]=1`
//! an array of maps where a repeated key starts a new element, and numeric keys (`items[0][name]`)
//! are array positions. `None` or an empty value means the parameter is absent.

use payments_domain::validation::FieldError;
use serde_json::{Map, Value};

/// Decodes an `application/x-www-form-urlencoded` body or query string into nested parameters.
///
/// # Errors
/// `parameter_invalid` naming a key that is used both as a value and as a container.
pub fn parse(input: &[u8]) -> Result<Map<String, Value>, FieldError> {
    let mut root = Map::new();
    for (key, value) in form_urlencoded::parse(input) {
        if value.is_empty() || value == "None" {
            continue;
        }
        let (name, path) = split_key(&key);
        insert(&mut root, name, &path, value.into_owned()).map_err(|()| {
            FieldError::invalid(key.as_ref(), format!("The parameter {key} conflicts with another one."))
        })?;
    }
    Ok(positional_maps_to_arrays(root))
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
        return match target.get(name) {
            Some(Value::Object(_) | Value::Array(_)) => Err(()),
            _ => {
                target.insert(name.to_owned(), Value::String(value));
                Ok(())
            }
        };
    };
    match first {
        Some(child) => {
            let Value::Object(map) = target.entry(name).or_insert_with(|| Value::Object(Map::new())) else {
                return Err(());
            };
            insert(map, child, rest, value)
        }
        None => {
            let Value::Array(items) = target.entry(name).or_insert_with(|| Value::Array(Vec::new())) else {
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

/// Maps whose keys are all array positions (`a[0]`, `a[1]`) become arrays in position order.
fn positional_maps_to_arrays(map: Map<String, Value>) -> Map<String, Value> {
    map.into_iter().map(|(key, value)| (key, normalize(value))).collect()
}

fn normalize(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let positions: Option<Vec<usize>> = map.keys().map(|k| k.parse::<usize>().ok()).collect();
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
    fn empty_and_none_values_are_absent() {
        assert_eq!(decode("description=&customer_id=None&name=x"), json!({"name": "x"}));
    }

    #[test]
    fn a_key_used_as_value_and_container_is_refused() {
        let error = parse(b"metadata=x&metadata[k]=v").unwrap_err();
        assert_eq!(error.parameter, "metadata[k]");
    }

    #[test]
    fn unbalanced_brackets_keep_the_key_whole() {
        assert_eq!(decode("a[b=1"), json!({"a[b": "1"}));
        assert_eq!(decode("a]b[=1"), json!({"a]b[": "1"}));
    }
}
