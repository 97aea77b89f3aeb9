//! Extractors that turn the request body or query string into a parameter map, and the bounds on
//! receiving a body: its size and the time a client has to send it. (An answer given before the body
//! was read, such as a 401, closes the connection: actix does not keep reading a body nobody wants.)

use super::format::BodyFormat;
use super::json::{self, JsonRefusal};
use super::params::Params;
use super::{form, limits};
use crate::error::ApiError;
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::web::{Bytes, BytesMut};
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use futures_util::StreamExt;
use serde_json::{Map, Value};
use std::fs::File;
use std::future::Future;
use std::io::Write;
use std::pin::Pin;
use std::time::Duration;

/// What a request body may be, registered as app data: its largest size, and how long a client has
/// to send all of it (a body trickled in a byte at a time would otherwise hold a worker for ever).
#[derive(Debug, Clone, Copy)]
pub struct BodyRules {
    pub max_bytes: usize,
    pub deadline: Duration,
}

impl Default for BodyRules {
    fn default() -> Self {
        Self { max_bytes: 1024 * 1024, deadline: Duration::from_secs(30) }
    }
}

/// Reads the whole body, refusing one larger than the limit with 413 and one that takes longer
/// than the deadline with 408.
///
/// # Errors
/// `payload_too_large` past the limit; `request_timeout` past the deadline; `parameter_invalid`
/// when the body cannot be read.
pub async fn read_body(request: &HttpRequest, payload: &mut Payload) -> Result<Bytes, ApiError> {
    let mut body = BytesMut::new();
    read_into(request, payload, &mut |chunk| {
        body.extend_from_slice(chunk);
        Ok(())
    })
    .await?;
    Ok(body.freeze())
}

/// As [`read_body`], into an unnamed file (gone once closed), for a body too large to hold in
/// memory: an account's import. The chunks go to the page cache as they come.
///
/// # Errors
/// As [`read_body`]; 500 when the file cannot be written.
pub async fn spool_body(request: &HttpRequest, payload: &mut Payload) -> Result<File, ApiError> {
    let mut file = tempfile::tempfile().map_err(|error| ApiError::internal(error.into()))?;
    let mut failed = None;
    read_into(request, payload, &mut |chunk| file.write_all(chunk).map_err(|error| failed = Some(error))).await?;
    match failed {
        Some(error) => Err(ApiError::internal(error.into())),
        None => Ok(file),
    }
}

/// Reads the whole body into `sink`, chunk by chunk, within the limit and the deadline.
async fn read_into(
    request: &HttpRequest,
    payload: &mut Payload,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), ()>,
) -> Result<(), ApiError> {
    let rules = request.app_data::<BodyRules>().copied().unwrap_or_default();
    tokio::time::timeout(rules.deadline, read_within(request, payload, rules.max_bytes, sink))
        .await
        .unwrap_or_else(|_| Err(ApiError::request_timeout(rules.deadline)))
}

async fn read_within(
    request: &HttpRequest,
    payload: &mut Payload,
    limit: usize,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), ()>,
) -> Result<(), ApiError> {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<usize>().ok());
    if declared.is_some_and(|length| length > limit) {
        return Err(ApiError::payload_too_large(limit));
    }
    let mut read = 0;
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|_| ApiError::unreadable_body())?;
        read += chunk.len();
        if read > limit {
            return Err(ApiError::payload_too_large(limit));
        }
        if sink(&chunk).is_err() {
            // What could not be kept is the sink's to report.
            return Ok(());
        }
    }
    Ok(())
}

/// The parameters of the request body.
pub struct BodyParams(pub Params);

impl FromRequest for BodyParams {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let request = request.clone();
        let mut payload = payload.take();
        Box::pin(async move {
            let body = read_body(&request, &mut payload).await?;
            let (values, format) = decode_body(&request, &body)?;
            Ok(Self(match format {
                BodyFormat::Json => Params::typed(values),
                BodyFormat::Form => Params::new(values),
            }))
        })
    }
}

/// The parameters of the query string.
pub struct QueryParams(pub Params);

impl FromRequest for QueryParams {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(
            form::parse_query(request.query_string().as_bytes())
                .map(|map| Self(Params::new(map)))
                .map_err(|error| ApiError::validation(vec![error])),
        )
    }
}

/// How the API reads `body`, by the request's `Content-Type` (sniffed when it has none).
///
/// # Errors
/// `unsupported_content_type` for a type that is neither JSON nor a form.
pub fn body_format(request: &HttpRequest, body: &[u8]) -> Result<BodyFormat, ApiError> {
    match request.mime_type() {
        Ok(Some(mime)) if mime.subtype() == "json" || mime.suffix().is_some_and(|s| s == "json") => {
            Ok(BodyFormat::Json)
        }
        Ok(Some(mime)) if mime.subtype() == "x-www-form-urlencoded" => Ok(BodyFormat::Form),
        Ok(None) => Ok(sniff(body)),
        Ok(Some(mime)) => Err(ApiError::unsupported_content_type(mime.essence_str())),
        Err(_) => Err(ApiError::unsupported_content_type("an unparseable Content-Type")),
    }
}

fn decode_body(request: &HttpRequest, body: &[u8]) -> Result<(Map<String, Value>, BodyFormat), ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok((Map::new(), BodyFormat::Form));
    }
    let format = body_format(request, body)?;
    let values = match format {
        BodyFormat::Form => form::parse(body).map_err(|error| ApiError::validation(vec![error])),
        BodyFormat::Json => match json::parse(body) {
            Ok(Value::Object(map)) => {
                let map = unwrap_attributes(map);
                limits::check_json(&map).map_err(|error| ApiError::validation(vec![error]))?;
                Ok(map)
            }
            Ok(_) => Err(ApiError::bad_body("The JSON body must be an object.")),
            Err(JsonRefusal::TooDeep) => Err(ApiError::validation(vec![limits::too_deep("body")])),
            Err(JsonRefusal::Invalid(reason)) => {
                Err(ApiError::bad_body(&format!("The request body is not valid JSON: {reason}.")))
            }
        },
    }?;
    Ok((values, format))
}

/// A body without a Content-Type is JSON when it looks like an object, else a form.
fn sniff(body: &[u8]) -> BodyFormat {
    match body.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => BodyFormat::Json,
        _ => BodyFormat::Form,
    }
}

/// Accepts `{"data": {"attributes": {...}}}` as the attributes themselves.
fn unwrap_attributes(mut map: Map<String, Value>) -> Map<String, Value> {
    let wrapped = map.len() == 1
        && map.get("data").and_then(Value::as_object).is_some_and(|data| {
            data.get("attributes").is_some_and(Value::is_object)
                && data.keys().all(|k| k == "attributes" || k == "type")
        });
    if !wrapped {
        return map;
    }
    match map.remove("data") {
        Some(Value::Object(mut data)) => match data.remove("attributes") {
            Some(Value::Object(attributes)) => attributes,
            _ => Map::new(),
        },
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrapped_attributes_are_unwrapped_and_plain_objects_kept() {
        let wrapped = json!({"data": {"attributes": {"name": "x"}}});
        let Value::Object(map) = wrapped else { unreachable!() };
        assert_eq!(Value::Object(unwrap_attributes(map)), json!({"name": "x"}));
        let plain = json!({"data": "x"});
        let Value::Object(map) = plain.clone() else { unreachable!() };
        assert_eq!(Value::Object(unwrap_attributes(map)), plain);
    }
}
