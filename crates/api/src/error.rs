//! The error body and the HTTP status of every failure, in one place.
//!
//! Bodies follow the contract: `{"errors": [{"code", "detail", "parameter"?}]}`. A 5xx body is
//! opaque; its cause chain goes to the log.

use crate::redact::{name_holds_a_secret, shortened, without_card_numbers, REDACTED};
use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use payments_application::error::{cause_chain, BoxError};
use payments_application::ApplicationError;
use payments_domain::limits::IDENTIFIER_LENGTH;
use payments_domain::validation::FieldError;
use serde::Serialize;
use std::borrow::Cow;
use std::fmt;
use utoipa::ToSchema;

/// How long a client should wait before retrying when the database is unavailable.
const UNAVAILABLE_RETRY_AFTER_SECONDS: u64 = 1;

/// The `Retry-After` of an answer with `status` that says nothing else: a 503 (the database cannot
/// be reached, or takes no writes) is worth retrying shortly, by an API client or a person on a page.
#[must_use]
pub fn retry_after_seconds(status: StatusCode) -> Option<u64> {
    (status == StatusCode::SERVICE_UNAVAILABLE).then_some(UNAVAILABLE_RETRY_AFTER_SECONDS)
}
/// Most entries in one error body; a request with more problems is told about the first ones.
pub const MAX_ERRORS: usize = 50;

/// One entry of an error body.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorEntry {
    /// What went wrong, for programs: `parameter_required`, `resource_not_found`, a decline code…
    #[schema(value_type = String)]
    pub code: Cow<'static, str>,
    /// What went wrong, for people.
    pub detail: String,
    /// The parameter at fault (`billing[address][line1]`), when one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameter: Option<String>,
}

impl ErrorEntry {
    /// An entry whose texts never echo anything that looks like a card number, nor a parameter
    /// name that holds a secret among other text (a whole form body percent-encoded into one name).
    fn new(code: Cow<'static, str>, detail: &str, parameter: Option<&str>) -> Self {
        match parameter.filter(|name| name_holds_a_secret(name)) {
            Some(name) => Self {
                code,
                detail: without_card_numbers(&detail.replace(name, REDACTED)).into_owned(),
                parameter: Some(REDACTED.to_owned()),
            },
            None => Self {
                code,
                detail: without_card_numbers(detail).into_owned(),
                parameter: parameter.map(|name| without_card_numbers(name).into_owned()),
            },
        }
    }
}

/// The body of every error answer.
#[derive(Serialize, ToSchema)]
#[schema(as = Error)]
pub(crate) struct ErrorBody<'a> {
    errors: &'a [ErrorEntry],
}

/// A failed request: its status, what the client is told, and for 5xx the cause for the log.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    errors: Vec<ErrorEntry>,
    fields: Vec<FieldError>,
    cause: Option<BoxError>,
    /// The request changed state before failing (a recorded decline), so its answer is replayed to
    /// a retry with the same idempotency key.
    committed: bool,
    /// How long the client should wait before it tries again (`Retry-After`), when it should.
    retry_after_seconds: Option<u64>,
}

/// Marks a failure response whose request changed state, for the idempotency middleware.
#[derive(Debug, Clone, Copy)]
pub struct Committed;

impl ApiError {
    fn new(status: StatusCode, code: &'static str, detail: impl Into<String>) -> Self {
        Self {
            status,
            errors: vec![ErrorEntry::new(Cow::Borrowed(code), &detail.into(), None)],
            fields: Vec::new(),
            cause: None,
            committed: false,
            retry_after_seconds: None,
        }
    }

    /// 400 with one entry per bad parameter, at most [`MAX_ERRORS`].
    #[must_use]
    pub fn validation(mut fields: Vec<FieldError>) -> Self {
        fields.truncate(MAX_ERRORS);
        let errors = fields
            .iter()
            .map(|f| ErrorEntry::new(Cow::Borrowed(f.code.as_str()), &f.detail, Some(&f.parameter)))
            .collect();
        Self {
            status: StatusCode::BAD_REQUEST,
            errors,
            fields,
            cause: None,
            committed: false,
            retry_after_seconds: None,
        }
    }

    /// 400 with the processor's decline code; the failed attempt was recorded.
    #[must_use]
    pub fn declined(code: &str, detail: &str) -> Self {
        let mut error = Self::new(StatusCode::BAD_REQUEST, "generic_decline", detail);
        error.errors[0].code = Cow::Owned(code.to_owned());
        error.committed = true;
        error
    }

    /// 429 `rate_limit_exceeded`: the key or address sent more than its limit.
    #[must_use]
    pub fn rate_limited(retry_after_seconds: u64) -> Self {
        let detail = format!("Too many requests; retry after {retry_after_seconds} seconds.");
        Self::new(StatusCode::TOO_MANY_REQUESTS, "rate_limit_exceeded", detail).retry_after(retry_after_seconds)
    }

    /// 429 `rate_limit_exceeded`: as many event streams are open as `whose` may have (a key's, or
    /// this instance's).
    #[must_use]
    pub fn too_many_streams(whose: &str, limit: usize, retry_after_seconds: u64) -> Self {
        let detail = format!(
            "{whose} has {limit} event streams open, the most it may have; close one, or retry after \
             {retry_after_seconds} seconds."
        );
        Self::new(StatusCode::TOO_MANY_REQUESTS, "rate_limit_exceeded", detail).retry_after(retry_after_seconds)
    }

    /// The same error, telling the client to retry after `seconds`.
    #[must_use]
    fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after_seconds = Some(seconds);
        self
    }

    /// 400 for a body that cannot be decoded at all.
    #[must_use]
    pub fn bad_body(detail: &str) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "parameter_invalid", detail)
    }

    /// 400 for a test helper called with a key it does not take (a live or public key).
    #[must_use]
    pub fn test_mode_only(detail: &str) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "parameter_invalid", detail)
    }

    /// 400 for a cross-origin request the CORS rules refuse (a preflight for a method a public key
    /// may not use on that path).
    #[must_use]
    pub fn cross_origin_refused(reason: &str) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "parameter_invalid",
            format!("This cross-origin request is refused: {reason}."),
        )
    }

    /// 400 when the body stream breaks off.
    #[must_use]
    pub fn unreadable_body() -> Self {
        Self::bad_body("The request body could not be read.")
    }

    /// 401 with a reason.
    #[must_use]
    pub fn unauthenticated(detail: &str) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "auth_invalid", detail)
    }

    /// 404 for a path no route serves.
    #[must_use]
    pub fn route_not_found(method: &str, path: &str) -> Self {
        Self::new(StatusCode::NOT_FOUND, "route_not_found", format!("No route serves {method} {path}."))
    }

    /// 405 `method_not_allowed` for a method a path does not serve; the answer's `Allow` header
    /// names the ones it does (see [`crate::routes::allow_only`]).
    #[must_use]
    pub fn method_not_allowed(method: &str, path: &str, allowed: &str) -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            format!("{path} does not serve {method}; it serves {allowed}."),
        )
    }

    /// 413 past the body limit.
    #[must_use]
    pub fn payload_too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("The request body is larger than {limit} bytes."),
        )
    }

    /// 408 when the body did not arrive in time.
    #[must_use]
    pub fn request_timeout(deadline: std::time::Duration) -> Self {
        Self::new(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            format!("The request body did not arrive within {} seconds.", deadline.as_secs()),
        )
    }

    /// 415 for a body that is neither JSON nor a form.
    #[must_use]
    pub fn unsupported_content_type(content_type: &str) -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "content_type_unsupported",
            format!("Send application/json or application/x-www-form-urlencoded, not {content_type}."),
        )
    }

    /// 503 when the database cannot be reached.
    #[must_use]
    pub fn unavailable(cause: BoxError) -> Self {
        let mut error = Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "service_unavailable",
            "The service is temporarily unavailable. Retry shortly.",
        );
        error.cause = Some(cause);
        error
    }

    /// 500 for a fault the client cannot fix.
    #[must_use]
    pub fn internal(cause: BoxError) -> Self {
        let mut error =
            Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal_system_error", "An internal error occurred.");
        error.cause = Some(cause);
        error
    }

    /// 500 described by a message for the log.
    #[must_use]
    pub fn internal_message(message: &str) -> Self {
        Self::internal(message.to_owned().into())
    }

    /// The HTTP status of this failure.
    #[must_use]
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// What the client is told, one line per entry, for a page that shows it; a 5xx's cause goes to
    /// the log as the API's answer sends it there.
    #[must_use]
    pub fn details(&self) -> Vec<String> {
        if self.status.is_server_error() {
            self.log_cause();
        }
        self.errors.iter().map(|entry| entry.detail.clone()).collect()
    }

    /// Logs the cause of the failure, when it has one: at WARN for a database that cannot be reached
    /// or takes no writes (503, an operational state the service answers correctly, each request
    /// of which would otherwise be an ERROR line), at ERROR for a fault of the service.
    fn log_cause(&self) {
        let Some(cause) = &self.cause else { return };
        let (status, error) = (self.status.as_u16(), cause_chain(cause.as_ref()));
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            tracing::warn!(status, %error, "request refused: the storage is unavailable");
        } else {
            tracing::error!(status, %error, "request failed");
        }
    }

    /// The JSON body the API answers this failure with.
    #[must_use]
    pub fn body(&self) -> String {
        serde_json::to_string(&ErrorBody { errors: &self.errors }).unwrap_or_default()
    }

    /// The parameter errors of a 400, for tests and callers that inspect them.
    #[must_use]
    pub fn field_errors(&self) -> &[FieldError] {
        &self.fields
    }
}

impl From<ApplicationError> for ApiError {
    fn from(error: ApplicationError) -> Self {
        match error {
            ApplicationError::Validation(fields) => Self::validation(fields),
            ApplicationError::InvalidState(refusal) => {
                Self::new(StatusCode::BAD_REQUEST, "resource_invalid_state", refusal.to_string())
            }
            ApplicationError::NotFound { resource, id } => {
                // An id from a path can be of any length: the answer shows what an id can be.
                let shown = shortened(&id, IDENTIFIER_LENGTH);
                Self::new(StatusCode::NOT_FOUND, "resource_not_found", format!("No {resource} with id {shown} exists."))
            }
            ApplicationError::Unauthenticated => Self::unauthenticated("The API key is invalid."),
            ApplicationError::Conflict => Self::new(
                StatusCode::CONFLICT,
                "resource_conflict",
                "The resource was changed by a concurrent request. Retry with its current state.",
            ),
            ApplicationError::IdempotencyKeyReused => Self::new(
                StatusCode::BAD_REQUEST,
                "idempotency_key_reused",
                "This idempotency key was used with a different method, path or body.",
            ),
            ApplicationError::IdempotencyKeyInUse => Self::new(
                StatusCode::CONFLICT,
                "idempotency_key_in_use",
                "A request with this idempotency key is still being processed.",
            ),
            ApplicationError::ProcessorRefused { code, detail } => Self::declined(&code, &detail),
            ApplicationError::ProcessorUnavailable(detail) => {
                Self::new(StatusCode::SERVICE_UNAVAILABLE, "service_unavailable", detail).retry_after(5)
            }
            ApplicationError::Unavailable(cause) => Self::unavailable(cause),
            ApplicationError::NotConfigured(what) => {
                Self::new(StatusCode::SERVICE_UNAVAILABLE, "service_unavailable", what)
            }
            ApplicationError::Internal(cause) => Self::internal(cause),
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let codes: Vec<&str> = self.errors.iter().map(|e| e.code.as_ref()).collect();
        write!(f, "{} {}", self.status.as_u16(), codes.join(", "))
    }
}

impl std::error::Error for ApiError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.as_deref().map(|cause| cause as &(dyn std::error::Error + 'static))
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        self.log_cause();
        let mut response = HttpResponse::build(self.status);
        if let Some(seconds) = self.retry_after_seconds.or(retry_after_seconds(self.status)) {
            response.insert_header((header::RETRY_AFTER, seconds));
        }
        let mut response = response.json(ErrorBody { errors: &self.errors });
        if self.committed {
            response.extensions_mut().insert(Committed);
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The levels of what `run` logs.
    fn levels_logged(run: impl FnOnce()) -> String {
        let written = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let writer = written.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || Captured(writer.clone()))
            .with_max_level(tracing::Level::DEBUG)
            .finish();
        tracing::subscriber::with_default(subscriber, run);
        let text = String::from_utf8(written.lock().unwrap().clone()).unwrap();
        text
    }

    struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_database_that_takes_no_writes_is_a_warning_and_a_fault_an_error() {
        let unavailable = levels_logged(|| {
            let response =
                ApiError::from(ApplicationError::Unavailable("the database is read-only".into())).error_response();
            assert_eq!(response.headers().get(header::RETRY_AFTER).map(|v| v.to_str().unwrap()), Some("1"));
        });
        assert!(unavailable.contains("WARN") && !unavailable.contains("ERROR"), "{unavailable}");
        let fault = levels_logged(|| {
            ApiError::internal("a bug".into()).error_response();
        });
        assert!(fault.contains("ERROR"), "{fault}");
    }

    #[test]
    fn error_bodies_hold_at_most_fifty_entries() {
        let fields = (0..500).map(|i| FieldError::invalid(format!("p{i}"), "unknown")).collect();
        assert_eq!(ApiError::validation(fields).errors.len(), MAX_ERRORS);
    }
}
