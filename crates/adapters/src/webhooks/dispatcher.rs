//! Sends one signed delivery over HTTP. Redirects are not followed; live-mode requests connect only
//! to public addresses, checked on the address actually resolved at delivery time.

use super::signer::signature_header;
use payments_application::services::{AttemptOutcome, DeliveryJob};
use payments_domain::webhook::is_public_address;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The signature header's name.
pub const SIGNATURE_HEADER: &str = "Payrex-Signature";

/// The HTTP side of deliveries.
#[derive(Clone)]
pub struct Dispatcher {
    test: reqwest::Client,
    live: reqwest::Client,
}

impl Dispatcher {
    /// Clients that give a receiver `timeout` to answer.
    ///
    /// # Errors
    /// When the HTTP client cannot be built (no TLS roots).
    pub fn new(timeout: Duration) -> Result<Self, String> {
        let builder = || {
            reqwest::Client::builder()
                .timeout(timeout)
                .redirect(reqwest::redirect::Policy::none())
                .user_agent(concat!("payments-webhooks/", env!("CARGO_PKG_VERSION")))
        };
        let test = builder().build().map_err(|e| format!("cannot build the webhook client: {e}"))?;
        let live = builder()
            .dns_resolver(Arc::new(PublicOnlyResolver))
            .build()
            .map_err(|e| format!("cannot build the webhook client: {e}"))?;
        Ok(Self { test, live })
    }

    /// Sends `job`, signed with a fresh timestamp, and reports how it went.
    pub async fn send(&self, job: &DeliveryJob) -> AttemptOutcome {
        let timestamp = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let timestamp = i64::try_from(timestamp).unwrap_or(i64::MAX);
        let signature = signature_header(&job.secret_key, timestamp, job.body.as_bytes(), job.livemode);
        let client = if job.livemode { &self.live } else { &self.test };
        let started = Instant::now();
        let sent = client
            .post(&job.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(SIGNATURE_HEADER, signature)
            .body(job.body.clone())
            .send()
            .await;
        let duration_ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
        match sent {
            Ok(response) => AttemptOutcome { status_code: Some(response.status().as_u16()), error: None, duration_ms },
            Err(error) => {
                let reason = if error.is_timeout() {
                    "timed out".to_owned()
                } else if error.is_connect() {
                    "connection failed".to_owned()
                } else {
                    error.to_string()
                };
                AttemptOutcome { status_code: None, error: Some(reason), duration_ms }
            }
        }
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
