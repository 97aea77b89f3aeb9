//! The [`WebhookSender`] port over HTTP: sends one signed delivery. Redirects are not followed and proxies are never used; live
//! mode (and test mode where private targets are refused) connects only to public addresses, checked
//! on the address actually resolved at delivery time and on IP literals before connecting.

use payments_application::ports::{OutgoingWebhook, Sending, WebhookSender};
use payments_domain::public_address::is_public_address;
use payments_domain::webhook_delivery::{AttemptOutcome, RESPONSE_EXCERPT_BYTES};
use payments_domain::webhook_signature::{signature_header, standard_signature};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The signature header's name.
pub const SIGNATURE_HEADER: &str = "Payrex-Signature";

/// Why the HTTP client could not be built (no TLS roots, for one).
#[derive(Debug, thiserror::Error)]
#[error("cannot build the webhook HTTP client")]
pub struct SenderBuildError(#[source] reqwest::Error);

/// The [`WebhookSender`] over HTTP with reqwest.
#[derive(Clone)]
pub struct HttpWebhookSender {
    /// Connects anywhere: test mode on a laptop, where receivers run on localhost.
    anywhere: reqwest::Client,
    /// Connects only to public addresses.
    public_only: reqwest::Client,
    private_targets_in_test: bool,
}

impl HttpWebhookSender {
    /// Clients that give a receiver `timeout` to answer; test mode may reach private addresses when
    /// `private_targets_in_test`.
    ///
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn new(timeout: Duration, private_targets_in_test: bool) -> Result<Self, SenderBuildError> {
        let builder = || {
            reqwest::Client::builder()
                .timeout(timeout)
                .redirect(reqwest::redirect::Policy::none())
                // HTTP(S)_PROXY would connect on the deliveries' behalf, past the address checks.
                .no_proxy()
                .user_agent(concat!("payments-webhooks/", env!("CARGO_PKG_VERSION")))
        };
        let anywhere = builder().build().map_err(SenderBuildError)?;
        let public_only = builder().dns_resolver(Arc::new(PublicOnlyResolver)).build().map_err(SenderBuildError)?;
        Ok(Self { anywhere, public_only, private_targets_in_test })
    }

    async fn post(&self, webhook: OutgoingWebhook<'_>) -> AttemptOutcome {
        let signature =
            signature_header(webhook.secret_keys, webhook.signed_at, webhook.body.as_bytes(), webhook.livemode);
        let standard =
            standard_signature(webhook.secret_keys, webhook.event_id, webhook.signed_at, webhook.body.as_bytes());
        let public_only = webhook.livemode || !self.private_targets_in_test;
        let client = if public_only { &self.public_only } else { &self.anywhere };
        // An IP literal is never resolved, so the resolver's check does not see it: check it here.
        if public_only && !has_public_or_named_host(webhook.url) {
            let error = Some("the webhook address is not a public internet address".to_owned());
            return AttemptOutcome { status_code: None, error, duration_ms: 0, response_excerpt: None };
        }
        let started = Instant::now();
        let sent = client
            .post(webhook.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(SIGNATURE_HEADER, signature)
            .header("webhook-id", webhook.event_id)
            .header("webhook-timestamp", webhook.signed_at.unix_seconds().to_string())
            .header("webhook-signature", standard)
            .body(webhook.body.to_owned())
            .send()
            .await;
        let duration_ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
        match sent {
            Ok(response) => {
                let status_code = Some(response.status().as_u16());
                AttemptOutcome { status_code, error: None, duration_ms, response_excerpt: excerpt(response).await }
            }
            Err(error) => {
                let reason = if error.is_timeout() {
                    "timed out".to_owned()
                } else if error.is_connect() {
                    "connection failed".to_owned()
                } else {
                    error.to_string()
                };
                AttemptOutcome { status_code: None, error: Some(reason), duration_ms, response_excerpt: None }
            }
        }
    }
}

/// The start of a receiver's answer, as text: what arrives of its first
/// [`RESPONSE_EXCERPT_BYTES`] within the request's timeout; `None` when it is empty.
async fn excerpt(mut response: reqwest::Response) -> Option<String> {
    let mut start = Vec::new();
    while start.len() < RESPONSE_EXCERPT_BYTES {
        match response.chunk().await {
            Ok(Some(chunk)) => start.extend_from_slice(&chunk),
            Ok(None) | Err(_) => break,
        }
    }
    start.truncate(RESPONSE_EXCERPT_BYTES);
    let text = String::from_utf8_lossy(&start).trim_end_matches('\u{fffd}').to_owned();
    Some(text).filter(|text| !text.is_empty())
}

impl WebhookSender for HttpWebhookSender {
    fn send<'a>(&'a self, webhook: OutgoingWebhook<'a>) -> Sending<'a> {
        Box::pin(self.post(webhook))
    }
}

/// False when the URL's host is an IP address that is not public (or the URL does not parse); names
/// are left to [`PublicOnlyResolver`].
fn has_public_or_named_host(url: &str) -> bool {
    match url::Url::parse(url).ok().and_then(|url| url.host().map(|host| host.to_owned())) {
        Some(url::Host::Domain(_)) => true,
        Some(url::Host::Ipv4(address)) => is_public_address(address.into()),
        Some(url::Host::Ipv6(address)) => is_public_address(address.into()),
        None => false,
    }
}

/// Resolves like the system, then keeps only public addresses: a live webhook whose name points at
/// a private, loopback or link-local address is never contacted.
struct PublicOnlyResolver;

impl Resolve for PublicOnlyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let resolved = tokio::task::spawn_blocking(move || (host.as_str(), 0).to_socket_addrs())
                .await
                .map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)??;
            let public: Vec<SocketAddr> = resolved.filter(|address| is_public_address(address.ip())).collect();
            if public.is_empty() {
                return Err("the webhook host resolves to no public address".into());
            }
            Ok(Box::new(public.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{has_public_or_named_host, HttpWebhookSender};
    use payments_application::ports::{OutgoingWebhook, WebhookSender};
    use payments_domain::time::Timestamp;
    use std::time::Duration;

    const KEYS: &[String] = &[];

    fn outgoing(url: &str, livemode: bool) -> OutgoingWebhook<'_> {
        OutgoingWebhook {
            url,
            event_id: "evt_test",
            body: "{}",
            secret_keys: KEYS,
            livemode,
            signed_at: Timestamp::from_unix_seconds(1_700_000_000),
        }
    }

    #[tokio::test]
    async fn a_private_ip_literal_is_never_contacted_where_private_targets_are_refused() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a local port");
        listener.set_nonblocking(true).expect("non-blocking");
        let url = format!("http://{}/hooks", listener.local_addr().expect("its address"));
        let shared = HttpWebhookSender::new(Duration::from_secs(1), false).expect("a sender");
        for livemode in [false, true] {
            let outcome = shared.send(outgoing(&url, livemode)).await;
            assert_eq!(outcome.error.as_deref(), Some("the webhook address is not a public internet address"));
        }
        assert!(listener.accept().is_err(), "nothing connected");
        let laptop = HttpWebhookSender::new(Duration::from_millis(300), true).expect("a sender");
        let outcome = laptop.send(outgoing(&url, false)).await;
        assert_ne!(outcome.error.as_deref(), Some("the webhook address is not a public internet address"));
        assert!(listener.accept().is_ok(), "test mode on a laptop reaches localhost");
    }

    #[test]
    fn ip_literals_are_judged_before_connecting() {
        for url in ["https://127.0.0.1/", "https://[::ffff:7f00:1]/", "https://2130706433/", "http://[fd00::1]:80/"] {
            assert!(!has_public_or_named_host(url), "{url}");
        }
        for url in ["https://8.8.8.8/", "https://hooks.example.com/", "https://[2606:4700:4700::1111]/"] {
            assert!(has_public_or_named_host(url), "{url}");
        }
    }
}
