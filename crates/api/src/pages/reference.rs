//! The API reference: the OpenAPI document at `GET /openapi.json`, and the same document rendered
//! on the server as a page at `GET /docs`. Both are public and built once at startup; the page
//! loads nothing from another site (no script at all), so it works offline and behind a firewall.

use super::hosted::html;
use actix_web::http::{header, Method, StatusCode};
use actix_web::{web, HttpResponse};
use askama::Template;
use serde_json::{Map, Value};
use utoipa::openapi::OpenApi;

/// The document and its page, rendered once.
pub struct ApiReference {
    json: String,
    /// `None` when the page failed to render (logged at startup).
    page: Option<String>,
}

impl ApiReference {
    /// The reference of a service reachable at `base_url`.
    #[must_use]
    pub fn new(base_url: &str) -> Self {
        let document = crate::openapi::document(base_url);
        let json = serde_json::to_string(&document).unwrap_or_default();
        let page = ReferencePage::of(&document)
            .render()
            .inspect_err(|error| tracing::error!(%error, "the API reference page failed to render"))
            .ok();
        Self { json, page }
    }
}

pub(super) fn configure(config: &mut web::ServiceConfig) {
    // HEAD too, for link checkers and monitors; other methods answer 405 with `Allow`.
    let get_only = || crate::routes::allow_only(&[Method::GET]);
    config
        .service(
            web::resource("/openapi.json")
                .route(crate::routes::get_or_head().to(openapi_json))
                .default_service(get_only()),
        )
        .service(web::resource("/docs").route(crate::routes::get_or_head().to(docs)).default_service(get_only()));
}

async fn openapi_json(reference: web::Data<ApiReference>) -> HttpResponse {
    // Public, so that tools in a browser (an editor, a mock server) may load it from another origin.
    HttpResponse::Ok()
        .content_type("application/json")
        .insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"))
        .body(reference.json.clone())
}

async fn docs(reference: web::Data<ApiReference>) -> HttpResponse {
    html(StatusCode::OK, reference.page.clone().ok_or(askama::Error::Fmt))
}

/// Text with `code` spans, as the document writes it: (is code, text) pairs.
pub(crate) struct Spans(Vec<(bool, String)>);

impl Spans {
    fn of(text: &str) -> Self {
        Self(text.split('`').enumerate().map(|(i, part)| (i % 2 == 1, part.to_owned())).collect())
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|(_, text)| text.is_empty())
    }
}

/// One row of a table of fields: a parameter, or a property of a schema.
struct Field {
    name: String,
    kind: String,
    required: bool,
    description: Spans,
}

struct OperationView {
    anchor: String,
    method: String,
    path: String,
    summary: String,
    /// Other spellings of the path that serve it too.
    aliases: Vec<String>,
    auth: &'static str,
    parameters: Vec<Field>,
    body: Vec<Field>,
    answer: String,
    errors: Vec<(String, Spans)>,
}

struct Group {
    name: String,
    operations: Vec<OperationView>,
}

struct SchemaView {
    name: String,
    fields: Vec<Field>,
}

#[derive(Template)]
#[template(path = "reference.html")]
struct ReferencePage {
    title: String,
    version: String,
    description: Vec<Spans>,
    groups: Vec<Group>,
    schemas: Vec<SchemaView>,
    webhooks: Vec<(String, String)>,
}

impl ReferencePage {
    /// The page of a document, in the document's order.
    fn of(document: &OpenApi) -> Self {
        let mut groups: Vec<Group> = Vec::new();
        let components = value(&document.components);
        for (path, item) in &document.paths.paths {
            let item = value(item);
            let aliases: Vec<String> = item["x-aliases"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
            let operations =
                object(&item).filter(|(method, _)| ["get", "post", "put", "delete"].contains(&method.as_str()));
            for (method, operation) in operations {
                let tag = operation["tags"][0].as_str().unwrap_or("other").to_owned();
                let mut view = operation_view(path, method, operation, &components["schemas"]);
                view.aliases.clone_from(&aliases);
                match groups.iter_mut().find(|group| group.name == tag) {
                    Some(group) => group.operations.push(view),
                    None => groups.push(Group { name: tag, operations: vec![view] }),
                }
            }
        }
        let schemas = document
            .components
            .iter()
            .flat_map(|components| &components.schemas)
            .map(|(name, schema)| SchemaView { name: name.clone(), fields: fields("", &value(schema), true) })
            .collect();
        let webhooks = document
            .webhooks
            .iter()
            .flat_map(|webhooks| &webhooks.paths)
            .map(|(name, item)| {
                let item = value(item);
                let data = &item["post"]["requestBody"]["content"]["application/json"]["schema"]["allOf"][1]
                    ["properties"]["data"];
                (name.clone(), kind(data))
            })
            .collect();
        Self {
            title: document.info.title.clone(),
            version: document.info.version.clone(),
            description: document.info.description.iter().flat_map(|text| text.split("\n\n")).map(Spans::of).collect(),
            groups,
            schemas,
            webhooks,
        }
    }
}

/// A part of the document as JSON, to read like the document itself.
fn value<T: serde::Serialize>(part: &T) -> Value {
    serde_json::to_value(part).unwrap_or_default()
}

fn object(value: &Value) -> impl Iterator<Item = (&String, &Value)> {
    value.as_object().into_iter().flat_map(Map::iter)
}

/// An operation as the page shows it; `schemas` are the document's components, where its request
/// body's schema is.
fn operation_view(path: &str, method: &str, operation: &Value, schemas: &Value) -> OperationView {
    let security: Vec<&str> = operation["security"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_object()?.keys().next())
        .map(String::as_str)
        .collect();
    let auth = match security.as_slice() {
        [] => "No key",
        [_] => "Secret key",
        _ => "Secret key, or public key with the client secret",
    };
    let parameters = operation["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|parameter| {
            let location = parameter["in"].as_str().unwrap_or_default();
            let name = parameter["name"].as_str().unwrap_or_default();
            let required = parameter["required"].as_bool().unwrap_or(false);
            let mut rows = vec![Field {
                name: name.to_owned(),
                kind: format!("{} ({location})", kind(&parameter["schema"])),
                required,
                description: Spans::of(parameter["description"].as_str().unwrap_or_default()),
            }];
            rows.extend(nested_fields(name, &parameter["schema"]));
            rows
        })
        .collect();
    let body_schema = &operation["requestBody"]["content"]["application/json"]["schema"];
    let body = match body_schema["$ref"].as_str().and_then(|target| target.rsplit('/').next()) {
        Some(name) => fields("", &schemas[name], true),
        None => fields("", body_schema, true),
    };
    let answer = kind(&operation["responses"]["200"]["content"]["application/json"]["schema"]);
    let errors = object(&operation["responses"])
        .filter(|(status, _)| status.as_str() != "200")
        .map(|(status, response)| (status.clone(), Spans::of(response["description"].as_str().unwrap_or_default())))
        .collect();
    OperationView {
        anchor: operation["operationId"].as_str().unwrap_or_default().to_owned(),
        method: method.to_uppercase(),
        path: path.to_owned(),
        summary: operation["summary"].as_str().unwrap_or_default().to_owned(),
        aliases: Vec::new(),
        auth,
        parameters,
        body,
        answer,
        errors,
    }
}

/// The rows of an object schema's properties, nested ones with bracket names (`billing[phone]`).
fn fields(prefix: &str, schema: &Value, top: bool) -> Vec<Field> {
    let required: Vec<&str> = schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let mut rows = Vec::new();
    for (name, property) in object(&schema["properties"]) {
        let full = if top { name.clone() } else { format!("{prefix}[{name}]") };
        rows.push(Field {
            kind: kind(property),
            required: required.contains(&name.as_str()),
            description: Spans::of(property["description"].as_str().unwrap_or_default()),
            name: full.clone(),
        });
        rows.extend(nested_fields(&full, property));
    }
    rows
}

/// The rows inside a nested object, or inside the objects of a list (`line_items[][name]`).
fn nested_fields(name: &str, schema: &Value) -> Vec<Field> {
    let schema = as_documented(schema);
    if schema["properties"].is_object() {
        fields(name, schema, false)
    } else if schema["items"]["properties"].is_object() {
        fields(&format!("{name}[]"), &schema["items"], false)
    } else {
        Vec::new()
    }
}

/// A parameter's schema without the other forms a client may send it in (`null` or `""` for
/// absent, one item for a list), which the page says once for all.
fn as_documented(schema: &Value) -> &Value {
    match schema["anyOf"].as_array() {
        Some(forms) if forms.len() > 1 && forms.iter().skip(1).all(|form| is_other_form(schema, form)) => &forms[0],
        _ => schema,
    }
}

/// Whether `form` is one of the other forms of the parameter `schema` lists first.
fn is_other_form(schema: &Value, form: &Value) -> bool {
    form["type"] == "null"
        || (form["type"] == "string" && form["maxLength"] == 0)
        || *form == schema["anyOf"][0]["items"]
}

/// A schema in a few words: its type, bounds and choices, or the schema it refers to.
fn kind(schema: &Value) -> String {
    let schema = as_documented(schema);
    if let Some(reference) = schema["$ref"].as_str() {
        return reference.rsplit('/').next().unwrap_or(reference).to_owned();
    }
    if let Some(item) = schema["properties"]["data"]["items"]["$ref"].as_str() {
        return format!("a list of {}", item.rsplit('/').next().unwrap_or(item));
    }
    for combinator in ["oneOf", "anyOf", "allOf"] {
        if let Some(items) = schema[combinator].as_array() {
            let parts: Vec<String> = items.iter().map(kind).collect();
            return parts.join(" or ");
        }
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        _ => vec!["any"],
    };
    let mut words: Vec<String> = types
        .iter()
        .map(|name| match *name {
            "array" => format!("list of {}", kind(&schema["items"])),
            "object" if schema["additionalProperties"].is_object() => {
                format!("map of {}", kind(&schema["additionalProperties"]))
            }
            other => other.to_owned(),
        })
        .collect();
    words.dedup();
    let mut text = words.join(" or ");
    if let Some(choices) = schema["enum"].as_array() {
        let choices: Vec<String> = choices.iter().map(|choice| choice.to_string()).collect();
        text.push_str(&format!(", one of {}", choices.join(", ")));
    }
    if let Some(format) = schema["format"].as_str().filter(|format| *format != "int64") {
        text.push_str(&format!(", format {format}"));
    }
    let bound = |key: &str| schema[key].as_i64();
    let phrases = [
        range(bound("minLength"), bound("maxLength"), "characters"),
        range(bound("minimum"), bound("maximum"), ""),
        range(None, bound("maxItems"), "items"),
        range(None, bound("maxProperties"), "keys"),
    ];
    for phrase in phrases.into_iter().flatten() {
        text.push_str(&format!(", {phrase}"));
    }
    text
}

/// Bounds in words: `1 to 255 characters`, `at most 50 keys`, `at least 2000`.
fn range(low: Option<i64>, high: Option<i64>, unit: &str) -> Option<String> {
    let counted = |count: i64| if count == 1 { unit.trim_end_matches('s') } else { unit };
    let phrase = match (low, high) {
        (Some(low), Some(high)) => format!("{low} to {high} {}", counted(high)),
        (Some(low), None) => format!("at least {low} {}", counted(low)),
        (None, Some(high)) => format!("at most {high} {}", counted(high)),
        (None, None) => return None,
    };
    Some(phrase.trim_end().to_owned())
}
