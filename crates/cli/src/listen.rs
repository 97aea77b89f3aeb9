//! `payments listen`: follows `GET /events/stream` and forwards each event to local URLs, with the
//! body and signatures of a webhook delivery, signed with a secret derived from the API key (the
//! same on every run, so a receiver's configuration survives restarts). A dropped connection is
//! resumed from the last event received (`Last-Event-ID`), so a restart of the service loses and
//! repeats no event.

use crate::api::{Api, ApiError};
use crate::error::{now, CliError};
use crate::output::Printer;
use futures_util::StreamExt;
use payments_domain::event::EventType;
use payments_domain::time::Timestamp;
use payments_domain::webhook_signature::{hmac_sha256, signature_header, standard_signature};
use reqwest::{Method, StatusCode};
use russe::reqwest_0_12::ReqwestExt;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The waits before each retry of a failed forward while `listen` runs: five attempts in all.
const FORWARD_RETRY_DELAYS_MS: [u64; 4] = [1_000, 2_000, 4_000, 8_000];
/// How long a receiver has to answer a forward.
const FORWARD_TIMEOUT: Duration = Duration::from_secs(10);
/// The stream sends a comment every 15 seconds; this long without anything, it is taken as dead.
const STREAM_SILENCE: Duration = Duration::from_secs(45);
/// The API's event stream.
const STREAM: &str = "/events/stream";
/// The wait before reconnecting after the service said too many requests.
const RATE_LIMITED_DELAY: Duration = Duration::from_secs(5);
/// The wait before reconnecting to the stream.
const RECONNECT_DELAY: Duration = Duration::from_secs(1);

#[derive(Debug, clap::Args)]
pub struct ListenArgs {
    /// Where to forward events: a URL for every event, or TYPES=URL for some (TYPES is a
    /// comma-separated list of event types, `refund.*` for a family). Repeat for several rules;
    /// without any, events are only printed.
    #[arg(long = "forward-to", value_name = "[TYPES=]URL")]
    forward_to: Vec<String>,
    /// Receive only these event types (comma-separated; `billing_statement.*` for a family).
    #[arg(long, value_delimiter = ',', value_name = "TYPES")]
    events: Vec<String>,
}

/// Which event types a rule or filter takes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum TypePattern {
    Any,
    Exact(EventType),
    /// `refund.*`: the types that start with `refund.`.
    Family(String),
}

impl TypePattern {
    fn parse(text: &str) -> Result<Self, CliError> {
        let text = text.trim();
        if text == "*" {
            return Ok(Self::Any);
        }
        if let Some(family) = text.strip_suffix(".*") {
            let prefix = format!("{family}.");
            if EventType::ALL.iter().any(|t| t.as_str().starts_with(&prefix)) {
                return Ok(Self::Family(prefix));
            }
        } else if let Ok(event_type) = EventType::parse(text) {
            return Ok(Self::Exact(event_type));
        }
        Err(CliError::Usage(format!("unknown event type {text:?}; `payments trigger --list` lists them")))
    }

    fn matches(&self, event_type: &str) -> bool {
        match self {
            Self::Any => true,
            Self::Exact(exact) => exact.as_str() == event_type,
            Self::Family(prefix) => event_type.starts_with(prefix.as_str()),
        }
    }

    fn as_text(&self) -> String {
        match self {
            Self::Any => "*".to_owned(),
            Self::Exact(exact) => exact.as_str().to_owned(),
            Self::Family(prefix) => format!("{prefix}*"),
        }
    }
}

/// A `--forward-to` rule: the types it takes and where they go.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    types: Vec<TypePattern>,
    url: url::Url,
}

impl Rule {
    /// `URL` (every type) or `TYPES=URL`. A URL may hold `=` in its query: text before the first
    /// `=` is taken as types only when it holds no `://`.
    fn parse(text: &str) -> Result<Self, CliError> {
        let (types, url) = match text.split_once('=') {
            Some((types, url)) if !types.contains("://") => {
                (types.split(',').map(TypePattern::parse).collect::<Result<Vec<_>, _>>()?, url)
            }
            _ => (vec![TypePattern::Any], text),
        };
        let url = url::Url::parse(url.trim())
            .ok()
            .filter(|url| matches!(url.scheme(), "http" | "https"))
            .ok_or_else(|| CliError::Usage(format!("--forward-to {:?}: not an http or https URL", shown(text))))?;
        Ok(Self { types, url })
    }

    fn takes(&self, event_type: &str) -> bool {
        self.types.iter().any(|pattern| pattern.matches(event_type))
    }
}

/// `url` as printed: a password in it shown as `***`.
fn shown(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        _ => url.to_owned(),
    }
}

/// The signing secret of forwarded events for an API key: the same for the key on every run, and
/// not the key (an HMAC of a fixed label keyed with it).
#[must_use]
pub fn signing_secret(api_key: &str) -> String {
    let digest = hmac_sha256(api_key, &[b"payments listen: forwarded event signing secret"]);
    format!("whsk_{}", &hex::encode(digest)[..40])
}

/// One event read from the stream.
struct Received {
    id: String,
    event_type: String,
    livemode: bool,
    body: Arc<str>,
}

pub(crate) async fn run(api: &Api, args: &ListenArgs, printer: &Printer) -> Result<(), CliError> {
    let rules = args.forward_to.iter().map(|rule| Rule::parse(rule)).collect::<Result<Vec<_>, _>>()?;
    let filter = args.events.iter().map(|pattern| TypePattern::parse(pattern)).collect::<Result<Vec<_>, _>>()?;
    let secret = signing_secret(api.key());
    let http = reqwest::Client::builder()
        .timeout(FORWARD_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|source| ApiError::Unreachable { url: "the receivers".to_owned(), source })?;
    let listener = Listener { rules, filter, forwarding: Arc::new(Forwarding { http, secret, printer: *printer }) };
    let mut last_event_id: Option<String> = None;
    let mut connected_before = false;
    loop {
        let Some(response) = connect(api, &mut last_event_id, connected_before, printer).await? else {
            tokio::time::sleep(RECONNECT_DELAY).await;
            continue;
        };
        if connected_before {
            printer.note("listen: reconnected");
        } else {
            print_ready(printer, &listener.forwarding.secret, &listener.rules);
        }
        connected_before = true;
        listener.follow(response, &mut last_event_id, printer).await;
        tokio::time::sleep(RECONNECT_DELAY).await;
    }
}

fn print_ready(printer: &Printer, secret: &str, rules: &[Rule]) {
    let types = |rule: &Rule| rule.types.iter().map(TypePattern::as_text).collect::<Vec<_>>();
    let routes: Vec<String> =
        rules.iter().map(|rule| format!("{} → {}", types(rule).join(","), shown(rule.url.as_str()))).collect();
    let forwarding = if routes.is_empty() {
        " Not forwarding: printing events.".to_owned()
    } else {
        format!(" Forwarding {}.", routes.join("; "))
    };
    let described: Vec<Value> =
        rules.iter().map(|rule| json!({"url": shown(rule.url.as_str()), "events": types(rule)})).collect();
    printer.line(
        format!("Ready. Forwarded events are signed with {secret} (the same for this key on every run).{forwarding}"),
        &json!({"type": "ready", "secret": secret, "forward_to": described}),
    );
}

/// Opens the event stream after `last_event_id`: `None` when it should be tried again (the service
/// went away after a first connection, or forgot the last event, which then is cleared); an error
/// when it cannot work at all (no service at first, a refused key).
async fn connect(
    api: &Api,
    last_event_id: &mut Option<String>,
    connected_before: bool,
    printer: &Printer,
) -> Result<Option<reqwest::Response>, CliError> {
    let mut request = api.request(Method::GET, STREAM);
    if let Some(id) = last_event_id.as_deref() {
        request = request.header("Last-Event-ID", id);
    }
    let response = match request.send().await {
        Ok(response) => response,
        Err(source) if !connected_before => return Err(ApiError::Unreachable { url: api.url(STREAM), source }.into()),
        Err(error) => {
            printer.note(format!("listen: the service is not answering ({error}); reconnecting"));
            return Ok(None);
        }
    };
    let status = response.status();
    if status.is_success() {
        return Ok(Some(response));
    }
    if status == StatusCode::BAD_REQUEST && last_event_id.is_some() {
        printer.note("listen: the service no longer has the last event received (a new database?); following from now");
        *last_event_id = None;
        return Ok(None);
    }
    if (status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS) && connected_before {
        printer.note(format!("listen: the service answered {status}; reconnecting"));
        if status == StatusCode::TOO_MANY_REQUESTS {
            tokio::time::sleep(RATE_LIMITED_DELAY).await;
        }
        return Ok(None);
    }
    let body = response.text().await.unwrap_or_default();
    Err(ApiError::refused(Method::GET, STREAM, status, &body).into())
}

/// What `listen` does with the events it receives.
struct Listener {
    rules: Vec<Rule>,
    filter: Vec<TypePattern>,
    forwarding: Arc<Forwarding>,
}

impl Listener {
    /// Reads the stream until it ends, breaks or goes silent, keeping the id of the last event.
    async fn follow(&self, response: reqwest::Response, last_event_id: &mut Option<String>, printer: &Printer) {
        let mut events = response.sse_stream();
        loop {
            let next = match tokio::time::timeout(STREAM_SILENCE, events.next()).await {
                Ok(Some(Ok(next))) => next,
                Ok(Some(Err(error))) => {
                    return printer.note(format!("listen: the connection broke ({error}); reconnecting"))
                }
                Ok(None) => return printer.note("listen: the service closed the connection; reconnecting"),
                Err(_) => return printer.note("listen: the connection went silent; reconnecting"),
            };
            let russe::Event::Message(message) = next else { continue };
            if message.event.as_deref() == Some("stream_start") {
                // Where the stream starts: resumed from there if it drops before its first event.
                *last_event_id = message.id.as_ref().map(ToString::to_string).or(last_event_id.take());
                continue;
            }
            let Some(received) = received(&message) else {
                printer.note(format!("listen: skipped a message that is no event: {}", message.data));
                continue;
            };
            *last_event_id = Some(received.id.clone());
            self.take(received, printer);
        }
    }

    /// Prints the event, or forwards it to every rule that takes it (each forward on its own task,
    /// so that a receiver's retries hold up no other event).
    fn take(&self, received: Received, printer: &Printer) {
        if !self.filter.is_empty() && !self.filter.iter().any(|pattern| pattern.matches(&received.event_type)) {
            return;
        }
        if self.rules.is_empty() {
            let event = serde_json::from_str::<Value>(&received.body).unwrap_or(Value::Null);
            printer.line(
                format!("{}  {}  {}", clock_time(now()), received.event_type, received.id),
                &json!({"type": "event", "event": event}),
            );
            return;
        }
        let received = Arc::new(received);
        for rule in self.rules.iter().filter(|rule| rule.takes(&received.event_type)) {
            tokio::spawn(forward(self.forwarding.clone(), received.clone(), rule.url.clone()));
        }
    }
}

/// The event a stream message carries: its id, type and mode, from its JSON.
fn received(message: &russe::Message) -> Option<Received> {
    let envelope: Value = serde_json::from_str(&message.data).ok()?;
    Some(Received {
        id: envelope.get("id")?.as_str()?.to_owned(),
        event_type: envelope.get("type")?.as_str()?.to_owned(),
        livemode: envelope.get("livemode").and_then(Value::as_bool).unwrap_or(false),
        body: Arc::from(&*message.data),
    })
}

/// What every forward shares.
struct Forwarding {
    http: reqwest::Client,
    secret: String,
    printer: Printer,
}

/// Sends `event` to `url` until it answers 2xx or the retries run out, printing every attempt.
async fn forward(context: Arc<Forwarding>, event: Arc<Received>, url: url::Url) {
    let printed_url = shown(url.as_str());
    for (attempt, retry_in) in (1..).zip(FORWARD_RETRY_DELAYS_MS.iter().copied().map(Some).chain([None])) {
        let started = Instant::now();
        let signed_at = now();
        let body = event.body.as_bytes();
        let secrets = std::slice::from_ref(&context.secret);
        let sent = context
            .http
            .post(url.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("Payrex-Signature", signature_header(secrets, signed_at, body, event.livemode))
            .header("webhook-id", &event.id)
            .header("webhook-timestamp", signed_at.unix_seconds().to_string())
            .header("webhook-signature", standard_signature(secrets, &event.id, signed_at, body))
            .body(event.body.to_string())
            .send()
            .await;
        let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let (status, error) = match &sent {
            Ok(response) => (Some(response.status().as_u16()), None),
            Err(error) if error.is_timeout() => (None, Some("timed out".to_owned())),
            Err(error) if error.is_connect() => (None, Some("connection failed".to_owned())),
            Err(error) if error.is_request() => (None, Some("the connection closed without an answer".to_owned())),
            Err(error) => (None, Some(error.to_string())),
        };
        let delivered = payments_domain::webhook_delivery::is_delivered(status, error.as_deref());
        let (outcome, after) = match (delivered, retry_in) {
            (true, _) => ("delivered", String::new()),
            (false, Some(delay)) => ("retrying", format!(", retrying in {} s", delay / 1000)),
            (false, None) => ("gave_up", ", gave up".to_owned()),
        };
        let answered = status.map_or_else(|| error.clone().unwrap_or_default(), |status| format!("[{status}]"));
        context.printer.line(
            format!(
                "{}  {}  {}  --> {answered} POST {printed_url} ({latency_ms} ms{after})",
                clock_time(signed_at),
                event.event_type,
                event.id
            ),
            &json!({
                "type": "forward", "event_id": event.id, "event_type": event.event_type, "url": printed_url,
                "attempt": attempt, "status": status, "error": error, "latency_ms": latency_ms, "outcome": outcome,
            }),
        );
        match retry_in {
            Some(delay) if !delivered => tokio::time::sleep(Duration::from_millis(delay)).await,
            _ => return,
        }
    }
}

/// `HH:MM:SS` (UTC) of `at`.
fn clock_time(at: Timestamp) -> String {
    let seconds = at.unix_seconds().rem_euclid(86_400);
    format!("{:02}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60)
}

#[cfg(test)]
mod tests {
    use super::{shown, signing_secret, Rule, TypePattern};
    use payments_domain::event::EventType;

    #[test]
    fn a_rule_is_a_url_or_types_then_a_url() {
        let every = Rule::parse("http://localhost:3000/hooks?a=b").unwrap();
        assert_eq!(every.types, [TypePattern::Any]);
        assert_eq!(every.url.as_str(), "http://localhost:3000/hooks?a=b");
        let some = Rule::parse("refund.*,payment.paid=http://localhost:4000/").unwrap();
        assert!(some.takes("refund.created") && some.takes("payment.paid"));
        assert!(!some.takes("payment.failed") && !some.takes("payment_intent.succeeded"));
        assert_eq!(some.types[1], TypePattern::Exact(EventType::PaymentPaid));
        for bad in ["refund.nope=http://x/", "ftp://x/", "http//x", "nothing.*=http://x/", "payment.paid="] {
            assert!(Rule::parse(bad).is_err(), "{bad} is refused");
        }
    }

    #[test]
    fn a_password_in_a_url_is_not_printed() {
        assert_eq!(shown("http://hooks:s3cret@localhost:3000/x"), "http://hooks:***@localhost:3000/x");
        assert_eq!(shown("http://localhost:3000/x"), "http://localhost:3000/x");
    }

    #[test]
    fn the_signing_secret_is_stable_per_key_and_hides_it() {
        let secret = signing_secret("sk_test_abc");
        assert_eq!(secret, signing_secret("sk_test_abc"));
        assert_ne!(secret, signing_secret("sk_test_abd"));
        assert!(secret.starts_with("whsk_") && secret.len() == 45 && !secret.contains("abc"), "{secret}");
    }
}
