//! Structured logs through `tracing`: one span per request with its id, method, path and status.
//!
//! The span records the path without the query string (with the secret of a hosted page's link and
//! anything that looks like a card number removed) and no headers, so keys, client secrets, page
//! links and card numbers never reach a log line.

use crate::redact::path_as_kept;
use crate::settings::{LogFormat, LogSettings};
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::HttpMessage;
use tracing::Span;
use tracing::{Level, Subscriber};
use tracing_actix_web::{RequestId, RootSpanBuilder};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::EnvFilter;

/// The response header that carries the request id of the log lines.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// Installs the global subscriber, writing to standard error (standard output carries only what a
/// command prints for its user). `RUST_LOG` overrides the configured level.
pub fn init(settings: &LogSettings) {
    init_with_writer(settings, std::io::stderr);
}

/// Where actix-web's HTTP/1 connection handling logs a connection it closed on an error: at
/// `ERROR`, for anything from malformed HTTP sent by anyone to a client that went away.
const CONNECTION_ERRORS_TARGET: &str = "actix_http::h1::dispatcher";

/// Installs the global subscriber writing to `writer` (tests capture logs this way).
pub fn init_with_writer<W>(settings: &LogSettings, writer: W)
where
    W: for<'writer> MakeWriter<'writer> + Send + Sync + 'static,
{
    // The connection errors are counted (`payments_http_connection_errors_total`) and logged at
    // debug instead: unauthenticated and unlimited, they would let anyone fill the log with ERROR.
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new(&settings.level))
        .add_directive(format!("{CONNECTION_ERRORS_TARGET}=off").parse().expect("a valid directive"));
    let fmt = tracing_subscriber::fmt::layer().with_writer(writer);
    let output = match settings.format {
        LogFormat::Json => fmt.json().with_filter(filter).boxed(),
        LogFormat::Pretty => fmt.with_filter(filter).boxed(),
    };
    let connection_errors =
        ConnectionErrors.with_filter(Targets::new().with_target(CONNECTION_ERRORS_TARGET, Level::ERROR));
    let installed = tracing_subscriber::registry().with(output).with(connection_errors).try_init();
    // A second init (tests start several applications in one process) keeps the first subscriber.
    drop(installed);
}

/// Counts the connections actix-web closed on an error, and logs each at debug.
struct ConnectionErrors;

impl<S: Subscriber> Layer<S> for ConnectionErrors {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        payments_adapters::metrics::connection_errors().inc();
        let mut message = String::new();
        event.record(&mut |field: &tracing::field::Field, value: &dyn std::fmt::Debug| {
            if field.name() == "message" {
                message = format!("{value:?}");
            }
        });
        tracing::debug!(error = %message, "a connection was closed on a protocol error");
    }
}

/// The root span of a request.
pub struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let request_id = request.extensions().get::<RequestId>().map(ToString::to_string).unwrap_or_default();
        tracing::info_span!(
            "request",
            request_id = %request_id,
            method = %request.method(),
            path = %path_as_kept(request.path()),
            status = tracing::field::Empty,
        )
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, actix_web::Error>) {
        let status = match outcome {
            Ok(response) => response.status().as_u16(),
            Err(error) => error.as_response_error().status_code().as_u16(),
        };
        span.record("status", status);
        span.in_scope(|| tracing::info!(status, "request completed"));
    }
}

/// Copies the request id into the `X-Request-Id` response header, so a merchant can quote it.
///
/// # Errors
/// What the wrapped service returns.
pub async fn request_id_header(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let request_id = request.extensions().get::<RequestId>().map(ToString::to_string);
    let mut response = next.call(request).await?;
    if let Some(value) = request_id.and_then(|id| HeaderValue::from_str(&id).ok()) {
        response.headers_mut().insert(HeaderName::from_static(REQUEST_ID_HEADER), value);
    }
    Ok(response)
}
