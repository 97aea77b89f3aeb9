//! `payments fixtures FILE`: named API requests run in order, a later one using earlier answers
//! through references (`${customer:id}`, `${session:payment_intent.id}`, `${clock:now+86400}`).
//! `payments trigger` runs its recipes through the same engine.
//!
//! A file is `{"fixtures": [{"name", "method", "path", "params", "expect_status"}, …]}`: `method`
//! defaults to `POST`, `params` is the JSON body (the query for `GET`), `expect_status` (default:
//! any 2xx) lets a recipe expect a refusal, such as a declined card.

use crate::api::{Api, ApiError};
use crate::error::CliError;
use crate::output::Printer;
use reqwest::Method;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

#[derive(Debug, clap::Args)]
pub struct FixturesArgs {
    /// The JSON file of requests.
    file: std::path::PathBuf,
}

/// One named request.
#[derive(Debug, Clone)]
pub(crate) struct Fixture {
    pub(crate) name: String,
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) params: Value,
    pub(crate) expect_status: Option<u16>,
}

/// The text the fixtures came from, to say on which line a problem is.
pub(crate) struct Source<'a> {
    pub(crate) label: &'a str,
    pub(crate) text: &'a str,
}

impl Source<'_> {
    /// The line of the first `needle` within fixture number `index` (counting from 0) of the
    /// text, else of the fixture's start.
    fn line_of(&self, index: usize, needle: &str) -> usize {
        let starts = fixture_starts(self.text);
        let start = starts.get(index).copied().unwrap_or(0);
        let end = starts.get(index + 1).copied().unwrap_or(self.text.len());
        let at = self.text[start..end].find(needle).map_or(start, |offset| start + offset);
        self.text[..at].matches('\n').count() + 1
    }

    fn error(&self, index: usize, name: &str, needle: &str, reason: impl std::fmt::Display) -> CliError {
        CliError::File {
            path: format!("{}:{}", self.label, self.line_of(index, needle)),
            reason: format!("fixture {name:?}: {reason}"),
        }
    }
}

/// Where each object of the `"fixtures"` array starts in `text` (valid JSON): the `{` of each
/// element, found by following the nesting outside strings.
fn fixture_starts(text: &str) -> Vec<usize> {
    let Some(key) = text.find("\"fixtures\"") else { return Vec::new() };
    let Some(open) = text[key..].find('[').map(|offset| key + offset) else { return Vec::new() };
    let (mut starts, mut depth, mut in_string, mut escaped) = (Vec::new(), 0usize, false, false);
    for (offset, character) in text[open..].char_indices() {
        if in_string {
            match character {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match character {
            '"' => in_string = true,
            '{' | '[' => {
                if depth == 1 && character == '{' {
                    starts.push(open + offset);
                }
                depth += 1;
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    starts
}

/// Reads the fixtures of a file's text: every entry has a unique `name` and a `path`.
pub(crate) fn parse(source: &Source<'_>) -> Result<Vec<Fixture>, CliError> {
    let document: Value = serde_json::from_str(source.text).map_err(|error| CliError::File {
        path: format!("{}:{}:{}", source.label, error.line(), error.column()),
        reason: format!("not valid JSON: {error}"),
    })?;
    let file_error = |reason: String| CliError::File { path: source.label.to_owned(), reason };
    let entries = document
        .get("fixtures")
        .and_then(Value::as_array)
        .ok_or_else(|| file_error("expected {\"fixtures\": [ … ]}".to_owned()))?;
    let mut fixtures: Vec<Fixture> = Vec::with_capacity(entries.len());
    for (index, entry) in entries.iter().enumerate() {
        let name = entry
            .get("name")
            .and_then(Value::as_str)
            .filter(|name| !name.is_empty() && !name.contains([':', '}', '$']))
            .ok_or_else(|| {
                source.error(index, &format!("number {}", index + 1), "{", "needs a \"name\" (without : $ or })")
            })?;
        if fixtures.iter().any(|earlier| earlier.name == name) {
            return Err(source.error(index, name, "\"name\"", "another fixture has this name"));
        }
        let method = entry.get("method").and_then(Value::as_str).unwrap_or("POST").to_ascii_uppercase();
        let method = match method.as_str() {
            "GET" => Method::GET,
            "POST" => Method::POST,
            "PUT" => Method::PUT,
            "DELETE" => Method::DELETE,
            _ => {
                return Err(source.error(
                    index,
                    name,
                    "\"method\"",
                    format!("method {method} is not GET, POST, PUT or DELETE"),
                ))
            }
        };
        let path = entry
            .get("path")
            .and_then(Value::as_str)
            .filter(|path| path.starts_with('/'))
            .ok_or_else(|| source.error(index, name, "\"path\"", "needs a \"path\" that starts with /"))?;
        let params = entry.get("params").cloned().unwrap_or(Value::Object(Map::new()));
        if !params.is_object() {
            return Err(source.error(index, name, "\"params\"", "\"params\" must be an object"));
        }
        let expect_status = match entry.get("expect_status") {
            None => None,
            Some(status) => Some(status.as_u64().and_then(|status| u16::try_from(status).ok()).ok_or_else(|| {
                source.error(index, name, "\"expect_status\"", "\"expect_status\" must be a status code")
            })?),
        };
        fixtures.push(Fixture { name: name.to_owned(), method, path: path.to_owned(), params, expect_status });
    }
    Ok(fixtures)
}

/// The answers so far, by fixture name.
type Answers = HashMap<String, Value>;

/// Runs `fixtures` in order, printing each object made; returns the answers by name.
pub(crate) async fn run(
    api: &Api,
    fixtures: &[Fixture],
    source: &Source<'_>,
    printer: &Printer,
) -> Result<Answers, CliError> {
    let mut answers = Answers::new();
    for (index, fixture) in fixtures.iter().enumerate() {
        let resolve = |value: &Value| {
            resolve(value, &answers)
                .map_err(|reason| source.error(index, &fixture.name, &reason.reference.clone(), reason))
        };
        let path = resolve_text(&fixture.path, &answers, true)
            .map_err(|reason| source.error(index, &fixture.name, &reason.reference.clone(), reason))?;
        let path = path.as_str().unwrap_or_default().to_owned();
        if path.split(['/', '?']).any(|segment| segment == ".." || segment == ".") {
            return Err(source.error(
                index,
                &fixture.name,
                "\"path\"",
                format!("the path {path} leaves its place with . or .."),
            ));
        }
        let params = resolve(&fixture.params)?;
        let answer = match fixture.method {
            Method::GET => api.get(&path, &query_of(&params)).await,
            _ => api.call(fixture.method.clone(), &path, &[], Some(&params)).await,
        };
        let answer = match (answer, fixture.expect_status) {
            (Ok(answer), None) => answer,
            (Err(ApiError::Refused { status, body, .. }), Some(expected)) if status.as_u16() == expected => *body,
            (Ok(_), Some(expected)) => {
                return Err(source.error(
                    index,
                    &fixture.name,
                    "\"expect_status\"",
                    format!("answered 2xx, not the {expected} expected"),
                ));
            }
            (Err(error @ ApiError::Unreachable { .. }), _) => return Err(error.into()),
            (Err(error), _) => return Err(source.error(index, &fixture.name, "\"path\"", error)),
        };
        let id = answer.get("id").and_then(Value::as_str).map(|id| format!(" {id}")).unwrap_or_default();
        let resource = answer.get("resource").and_then(Value::as_str).unwrap_or("answer");
        let status =
            answer.get("status").and_then(Value::as_str).map(|status| format!(" ({status})")).unwrap_or_default();
        printer.line(
            format!("{:<20} {} {path} → {resource}{id}{status}", fixture.name, fixture.method),
            &json!({"type": "fixture", "name": fixture.name, "method": fixture.method.as_str(), "path": path, "answer": answer}),
        );
        answers.insert(fixture.name.clone(), answer);
    }
    Ok(answers)
}

pub(crate) async fn run_file(api: &Api, args: &FixturesArgs, printer: &Printer) -> Result<(), CliError> {
    let label = args.file.display().to_string();
    let text = std::fs::read_to_string(&args.file)
        .map_err(|error| CliError::File { path: label.clone(), reason: error.to_string() })?;
    let source = Source { label: &label, text: &text };
    let fixtures = parse(&source)?;
    run(api, &fixtures, &source, printer).await.map(drop)
}

/// A `GET` fixture's params as its query: scalars as text.
fn query_of(params: &Value) -> Vec<(&str, String)> {
    let Some(params) = params.as_object() else { return Vec::new() };
    params
        .iter()
        .map(|(key, value)| (key.as_str(), value.as_str().map_or_else(|| value.to_string(), str::to_owned)))
        .collect()
}

/// A reference that cannot be filled, and why.
#[derive(Debug)]
struct Unresolved {
    reference: String,
    why: String,
}

impl std::fmt::Display for Unresolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.reference, self.why)
    }
}

/// `value` with every `${name:path}` filled from the answers: a string that is one reference
/// becomes the value referred to (a number stays a number), a reference inside a longer string is
/// written into it.
fn resolve(value: &Value, answers: &Answers) -> Result<Value, Unresolved> {
    match value {
        Value::String(text) => resolve_text(text, answers, false),
        Value::Array(items) => {
            items.iter().map(|item| resolve(item, answers)).collect::<Result<_, _>>().map(Value::Array)
        }
        // A key may refer too: a map by ids (`{"quantity": {"${price:id}": "2"}}`).
        Value::Object(fields) => fields
            .iter()
            .map(|(key, item)| Ok((resolve_key(key, answers)?, resolve(item, answers)?)))
            .collect::<Result<Map<_, _>, _>>()
            .map(Value::Object),
        other => Ok(other.clone()),
    }
}

/// An object's key with its references filled: text, or a number written as text.
fn resolve_key(key: &str, answers: &Answers) -> Result<String, Unresolved> {
    match resolve_text(key, answers, false)? {
        Value::String(text) => Ok(text),
        value @ Value::Number(_) => Ok(value.to_string()),
        _ => Err(Unresolved {
            reference: key.to_owned(),
            why: "an object's key must refer to text or a number".to_owned(),
        }),
    }
}

/// `text` with its references filled; with `in_path`, each value written in is percent-encoded as
/// one path segment, so that no answer can move a request to another path.
fn resolve_text(text: &str, answers: &Answers, in_path: bool) -> Result<Value, Unresolved> {
    if let Some(rest) = text.strip_prefix("${") {
        if !in_path && rest.find('}') == Some(rest.len() - 1) {
            return referred(&rest[..rest.len() - 1], answers);
        }
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(length) = rest[start..].find('}') else {
            return Err(Unresolved { reference: rest[start..].to_owned(), why: "no closing }".to_owned() });
        };
        let inner = &rest[start + 2..start + length];
        let written = match referred(inner, answers)? {
            Value::String(text) => text,
            value @ (Value::Number(_) | Value::Bool(_)) => value.to_string(),
            _ => {
                return Err(Unresolved {
                    reference: format!("${{{inner}}}"),
                    why: "refers to an object or null, which cannot be written into text".to_owned(),
                })
            }
        };
        if in_path {
            out.push_str(&crate::api::segment(&written));
        } else {
            out.push_str(&written);
        }
        rest = &rest[start + length + 1..];
    }
    out.push_str(rest);
    Ok(Value::String(out))
}

/// The value `name:path[+N|-N]` refers to.
fn referred(inner: &str, answers: &Answers) -> Result<Value, Unresolved> {
    let unresolved = |why: String| Unresolved { reference: format!("${{{inner}}}"), why };
    let (name, path) = inner.split_once(':').ok_or_else(|| unresolved("expected ${name:field}".to_owned()))?;
    let answer = answers.get(name).ok_or_else(|| unresolved(format!("no earlier fixture is named {name:?}")))?;
    if let Some(value) = field(answer, path) {
        return Ok(value.clone());
    }
    // `field+N` / `field-N`: a whole number moved by N.
    let offset = path.rfind(['+', '-']).filter(|at| *at > 0).and_then(|at| {
        let amount = path[at + 1..].parse::<i64>().ok()?;
        Some((&path[..at], if path.as_bytes()[at] == b'-' { amount.checked_neg()? } else { amount }))
    });
    let Some((base, offset)) = offset else {
        return Err(unresolved(format!("the answer of {name:?} has no {path}")));
    };
    let value = field(answer, base).ok_or_else(|| unresolved(format!("the answer of {name:?} has no {base}")))?;
    let number =
        value.as_i64().ok_or_else(|| unresolved(format!("{base} of {name:?} is not a whole number to add to")))?;
    number
        .checked_add(offset)
        .map(Value::from)
        .ok_or_else(|| unresolved(format!("{base} of {name:?} moved by {offset} is out of range")))
}

/// The value at the dotted `path` of `answer` (array items by index).
fn field<'a>(answer: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(answer, |value, segment| match value {
        Value::Array(items) => segment.parse::<usize>().ok().and_then(|index| items.get(index)),
        Value::Object(fields) => fields.get(segment),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::{parse, resolve, resolve_text, Answers, Source};
    use serde_json::json;

    fn answers() -> Answers {
        Answers::from([
            ("customer".to_owned(), json!({"id": "cus_1", "name": "Ana", "metadata": {"key-1": "one"}})),
            (
                "session".to_owned(),
                json!({"id": "cs_1", "payment_intent": {"id": "pi_1", "amount": 5000}, "line_items": [{"id": "cs_li_1"}]}),
            ),
        ])
    }

    #[test]
    fn references_fill_values_and_text() {
        let params = json!({
            "customer_id": "${customer:id}",
            "amount": "${session:payment_intent.amount}",
            "later": "${session:payment_intent.amount+86400}",
            "earlier": "${session:payment_intent.amount-1000}",
            "item": "${session:line_items.0.id}",
            "text": "Order for ${customer:name} (${session:payment_intent.amount})",
            "list": ["${customer:id}", 3],
            "braces": "${customer:name} {VIP}",
            "dashed": "${customer:metadata.key-1}",
        });
        assert_eq!(
            resolve(&params, &answers()).unwrap(),
            json!({
                "customer_id": "cus_1", "amount": 5000, "later": 91400, "earlier": 4000, "item": "cs_li_1",
                "text": "Order for Ana (5000)", "list": ["cus_1", 3], "braces": "Ana {VIP}", "dashed": "one",
            })
        );
    }

    #[test]
    fn a_bad_reference_names_itself_and_why() {
        for (reference, why) in [
            ("${cust:id}", "no earlier fixture is named \"cust\""),
            ("${customer:idd}", "the answer of \"customer\" has no idd"),
            ("${customer:name+1}", "name of \"customer\" is not a whole number to add to"),
            ("${customer}", "expected ${name:field}"),
            ("x ${session:payment_intent} y", "refers to an object or null"),
            ("${session:payment_intent.amount+9223372036854775807}", "is out of range"),
        ] {
            let error = resolve(&json!({"a": reference}), &answers()).unwrap_err().to_string();
            assert!(error.contains(why), "{reference}: {error}");
        }
    }

    #[test]
    fn a_key_refers_too() {
        let params = json!({"quantity": {"${session:line_items.0.id}": "2", "plain": "1"}, "${session:payment_intent.amount}": 1});
        assert_eq!(
            resolve(&params, &answers()).unwrap(),
            json!({"quantity": {"cs_li_1": "2", "plain": "1"}, "5000": 1})
        );
        let error = resolve(&json!({"${session:payment_intent}": 1}), &answers()).unwrap_err().to_string();
        assert!(error.contains("refers to an object") || error.contains("key must refer"), "{error}");
    }

    #[test]
    fn a_reference_in_a_path_stays_one_segment() {
        let answers = Answers::from([("a".to_owned(), json!({"name": "../webhooks?x=1 2"}))]);
        let path = resolve_text("/customers/${a:name}/payment_methods", &answers, true).unwrap();
        assert_eq!(path, json!("/customers/..%2Fwebhooks%3Fx%3D1%202/payment_methods"));
    }

    #[test]
    fn a_problem_in_a_file_names_its_line_and_fixture() {
        let text = "{\"fixtures\": [\n  {\"name\": \"customer\", \"path\": \"/customers\"},\n  {\"name\": \"customer\", \"path\": \"/x\"}\n]}";
        let error = parse(&Source { label: "seed.json", text }).unwrap_err().to_string();
        assert_eq!(error, "seed.json:3: fixture \"customer\": another fixture has this name");
        let error = parse(&Source { label: "seed.json", text: "{\"fixtures\": [\n  {\"name\": }\n]}" }).unwrap_err();
        assert!(error.to_string().starts_with("seed.json:2:"), "{error}");
        let text = "{\"fixtures\": [\n  {\"name\": \"a\",\n   \"method\": \"PATCH\", \"path\": \"/x\"}]}";
        let error = parse(&Source { label: "f.json", text }).unwrap_err().to_string();
        assert_eq!(error, "f.json:3: fixture \"a\": method PATCH is not GET, POST, PUT or DELETE");
        // The fixture is found by its place in the list, not by its name elsewhere in the text.
        let text = "{\"fixtures\": [\n  {\"name\": \"a\", \"path\": \"/x\", \"params\": {\"kind\": \"b\", \"s\": \"}{[\\\"\"}},\n\n  {\"name\": \"b\", \"path\": \"x\"}\n]}";
        let error = parse(&Source { label: "f.json", text }).unwrap_err().to_string();
        assert_eq!(error, "f.json:4: fixture \"b\": needs a \"path\" that starts with /");
        let error = parse(&Source {
            label: "f.json",
            text: "{\"fixtures\": [{\"name\": \"a\", \"path\": \"/x\"},\n {\"path\": \"/y\"}]}",
        });
        assert_eq!(
            error.unwrap_err().to_string(),
            "f.json:2: fixture \"number 2\": needs a \"name\" (without : $ or })"
        );
    }
}
