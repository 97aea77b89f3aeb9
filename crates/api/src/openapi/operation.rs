//! One endpoint as an OpenAPI operation: security, path, query and header parameters, the request
//! body in both encodings, the successful answer and the errors it can answer.

use super::{PUBLIC_KEY, SECRET_KEY};
use crate::routes::endpoint::{Auth, Component, Endpoint, Input, Output};
use actix_web::http::Method;
use utoipa::openapi::encoding::Encoding;
use utoipa::openapi::link::LinkBuilder;
use utoipa::openapi::path::{HttpMethod, Operation, OperationBuilder, ParameterBuilder, ParameterIn, ParameterStyle};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{AnyOfBuilder, ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::{Content, Ref, RefOr, Required, ResponseBuilder};

const JSON: &str = "application/json";
const EVENT_STREAM: &str = "text/event-stream";
const FORM: &str = "application/x-www-form-urlencoded";

pub(super) fn method(method: &Method) -> HttpMethod {
    match *method {
        Method::POST => HttpMethod::Post,
        Method::PUT => HttpMethod::Put,
        Method::DELETE => HttpMethod::Delete,
        _ => HttpMethod::Get,
    }
}

/// The operation an endpoint serves; `endpoints` are all of them, for the links of a create. A
/// request body's schema joins `requests`, named after the operation (`CreateCustomerRequest`), so
/// generated clients name their models after what they are.
pub(super) fn of(
    endpoint: &Endpoint,
    endpoints: &[Endpoint],
    requests: &mut Vec<(String, RefOr<Schema>)>,
) -> Operation {
    let mut operation = OperationBuilder::new()
        .operation_id(Some(endpoint.operation_id))
        .summary(Some(endpoint.summary))
        .tag(endpoint.tag);
    let no_scopes = Vec::<String>::new;
    match endpoint.auth {
        Auth::Nobody => {}
        Auth::SecretKey => operation = operation.security(SecurityRequirement::new(SECRET_KEY, no_scopes())),
        Auth::AnyKey => {
            operation = operation
                .security(SecurityRequirement::new(SECRET_KEY, no_scopes()))
                .security(SecurityRequirement::new(PUBLIC_KEY, no_scopes()));
        }
    }
    for name in path_parameters(endpoint.path) {
        let schema = ObjectBuilder::new().schema_type(Type::String).min_length(Some(1)).build();
        operation = operation.parameter(
            ParameterBuilder::new()
                .name(name)
                .parameter_in(ParameterIn::Path)
                .required(Required::True)
                .schema(Some(schema)),
        );
    }
    let mutating = endpoint.method != Method::GET;
    if mutating {
        let key = ObjectBuilder::new().schema_type(Type::String).min_length(Some(1)).max_length(Some(255)).build();
        operation = operation.parameter(
            ParameterBuilder::new()
                .name("Idempotency-Key")
                .parameter_in(ParameterIn::Header)
                .required(Required::False)
                .description(Some(
                    "Runs the request once: a retry with the same key and body replays the first answer \
                     (with `Idempotent-Replayed: true`); the same key with another body is refused.",
                ))
                .schema(Some(key)),
        );
    }
    match &endpoint.input {
        Some(input @ Input::Query(_)) => {
            for (name, schema, required) in input.shape().query_parameters() {
                let nested = is_object(&schema);
                operation = operation.parameter(
                    ParameterBuilder::new()
                        .name(name)
                        .parameter_in(ParameterIn::Query)
                        .required(if required { Required::True } else { Required::False })
                        .style(nested.then_some(ParameterStyle::DeepObject))
                        .explode(nested.then_some(true))
                        .schema(Some(schema)),
                );
            }
        }
        Some(input @ Input::Body(_)) => {
            operation = operation.request_body(Some(request_body(input, endpoint.operation_id, requests)));
        }
        None => {}
    }
    let mut success = match &endpoint.output {
        Output::EventStream(item) => {
            operation = operation.parameter(
                ParameterBuilder::new()
                    .name("Last-Event-ID")
                    .parameter_in(ParameterIn::Header)
                    .required(Required::False)
                    .description(Some("Resume after this event (its `id`); without it the stream starts now."))
                    .schema(Some(ObjectBuilder::new().schema_type(Type::String))),
            );
            let description = format!(
                "Server-Sent Events: first `stream_start`, whose `id` is where the stream starts (the event \
                 it resumes after, or `start`) and whose `data` is `{{\"resumes_after\": id or null}}`; then \
                 one per event as it happens, oldest first: `id` (the event's id), `event` (its type) and \
                 `data` (its JSON, a `{}`), with a comment line every 15 seconds to keep the connection \
                 open. The schema describes one message, as OpenAPI 3.1 reads an event stream's schema \
                 (3.2 calls it `itemSchema`).",
                (item.name)()
            );
            ResponseBuilder::new()
                .description(description)
                .content(EVENT_STREAM, Content::new(Some(stream_message(item))))
        }
        output => ResponseBuilder::new().description("The object.").content(JSON, Content::new(Some(answer(output)))),
    };
    for (target, parameter) in links(endpoint, endpoints) {
        let link = LinkBuilder::new().operation_id(target).parameter(parameter, "$response.body#/id");
        success = success.link(target, link.build());
    }
    operation = operation.response("200", success);
    for (status, description) in errors(endpoint) {
        let error = Content::new(Some(Ref::from_schema_name("Error")));
        operation = operation.response(status, ResponseBuilder::new().description(description).content(JSON, error));
    }
    operation.build()
}

/// One message of an event stream as a client reads it: its `event`, its `id`, and its `data`, the
/// JSON of an event (`item`) or of the stream's start.
fn stream_message(item: &Component) -> RefOr<Schema> {
    let text = || ObjectBuilder::new().schema_type(Type::String);
    let start = ObjectBuilder::new()
        .schema_type(Type::Object)
        .property("resumes_after", ObjectBuilder::new().schema_type(SchemaType::Array(vec![Type::String, Type::Null])))
        .required("resumes_after");
    let data = AnyOfBuilder::new().item(Ref::from_schema_name((item.name)())).item(start);
    let message = ObjectBuilder::new()
        .schema_type(Type::Object)
        .property("event", text())
        .required("event")
        .property("id", text())
        .property("retry", ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)))
        .property(
            "data",
            text().content_media_type("application/json").content_schema(Some(RefOr::T(Schema::AnyOf(data.build())))),
        )
        .required("data");
    RefOr::T(Schema::Object(message.build()))
}

/// What a create's answer leads to: each operation on the created object's path (`/customers` →
/// `/customers/{id}`, `/customers/{id}/…`) with the parameter the new `id` fills.
fn links<'a>(create: &Endpoint, endpoints: &'a [Endpoint]) -> Vec<(&'a str, &'a str)> {
    if create.method != Method::POST || create.path.contains('{') {
        return Vec::new();
    }
    let prefix = format!("{}/", create.path);
    endpoints
        .iter()
        .filter(|endpoint| endpoint.alias_of.is_none() && endpoint.path.starts_with(&prefix))
        .filter_map(|endpoint| {
            let mut parameters = path_parameters(endpoint.path);
            let first = parameters.next()?;
            let only_one = parameters.next().is_none();
            (only_one && endpoint.path[prefix.len()..].starts_with('{')).then_some((endpoint.operation_id, first))
        })
        .collect()
}

/// The names in braces of a path template.
fn path_parameters(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter_map(|segment| segment.strip_prefix('{')?.split('}').next())
}

/// Whether a parameter is an object (sent with bracket keys), perhaps also absent (`null`, `""`).
fn is_object(schema: &Schema) -> bool {
    match schema {
        Schema::Object(object) => object.schema_type == SchemaType::Type(Type::Object),
        Schema::AnyOf(any) => matches!(any.items.first(), Some(RefOr::T(first)) if is_object(first)),
        _ => false,
    }
}

/// The body's parameters, as JSON or as a form whose nested parameters use bracket keys; the schema
/// is the component `requests` gains, named after `operation_id`.
fn request_body(
    input: &Input,
    operation_id: &str,
    requests: &mut Vec<(String, RefOr<Schema>)>,
) -> utoipa::openapi::request_body::RequestBody {
    let shape = input.shape();
    let parameters = shape.parameters();
    let required = shape.requires_a_parameter();
    let mut form = Content::builder();
    for (name, schema, _) in &parameters {
        if is_object(schema) {
            let bracketed = Encoding::builder().style(Some(ParameterStyle::DeepObject)).explode(Some(true));
            form = form.encoding(name, bracketed);
        }
    }
    let name = request_name(operation_id);
    requests.push((name.clone(), RefOr::T(shape.into_schema())));
    let schema = RefOr::Ref(Ref::from_schema_name(name));
    RequestBodyBuilder::new()
        .required(Some(if required { Required::True } else { Required::False }))
        .content(JSON, Content::new(Some(schema.clone())))
        .content(FORM, form.schema(Some(schema)).build())
        .build()
}

/// `create_customer` → `CreateCustomerRequest`.
fn request_name(operation_id: &str) -> String {
    let mut name: String = operation_id
        .split('_')
        .map(|word| {
            let mut letters = word.chars();
            letters.next().map(|first| first.to_ascii_uppercase().to_string() + letters.as_str()).unwrap_or_default()
        })
        .collect();
    name.push_str("Request");
    name
}

/// The schema of a successful answer.
fn answer(output: &Output) -> RefOr<Schema> {
    let reference = |component: &Component| Ref::from_schema_name((component.name)());
    match output {
        Output::OneOf(components) if components.len() == 1 => RefOr::Ref(reference(&components[0])),
        Output::OneOf(components) => {
            let any = components.iter().fold(AnyOfBuilder::new(), |any, component| any.item(reference(component)));
            RefOr::T(Schema::AnyOf(any.build()))
        }
        // What each event of a stream holds.
        Output::EventStream(item) => RefOr::Ref(reference(item)),
        Output::List(item) => {
            let list = ObjectBuilder::new()
                .schema_type(Type::Object)
                .property("resource", ObjectBuilder::new().schema_type(Type::String).enum_values(Some(["list"])))
                .required("resource")
                .property("data", ArrayBuilder::new().items(reference(item)))
                .required("data")
                .property("has_more", ObjectBuilder::new().schema_type(Type::Boolean))
                .required("has_more");
            RefOr::T(Schema::Object(list.build()))
        }
    }
}

/// The error statuses an endpoint can answer, each with what it means.
fn errors(endpoint: &Endpoint) -> Vec<(&'static str, &'static str)> {
    let mut errors = Vec::new();
    if endpoint.auth == Auth::Nobody {
        if endpoint.path == "/readyz" {
            errors.push(("503", "The database does not answer (`service_unavailable`)."));
        }
        return errors;
    }
    errors.push((
        "400",
        "A parameter is missing or invalid (`parameter_*`, naming it), the object's state does not allow \
         the request (`resource_invalid_state`), or the payment was declined (the decline code).",
    ));
    errors.push(("401", "No valid API key, or a key that may not make this request (`auth_invalid`)."));
    errors.push(("404", "No such object for this account and mode (`resource_not_found`)."));
    errors.push((
        "429",
        "More requests from this key (or, without one, this address) than its limit allows \
         (`rate_limit_exceeded`); retry after `Retry-After` seconds.",
    ));
    if endpoint.method != Method::GET {
        errors.push(("408", "The body did not arrive in time."));
        errors.push((
            "409",
            "A request with this Idempotency-Key is still running, or the key was used with another body.",
        ));
        errors.push(("413", "The body is larger than the limit."));
        errors.push(("415", "The body is neither JSON nor a form."));
    }
    errors.push((
        "503",
        "The database is unavailable, or no processor or mail server is configured for live mode \
         (`service_unavailable`); retry after `Retry-After` seconds.",
    ));
    errors
}
