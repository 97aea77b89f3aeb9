//! Rate limits: a GCRA token bucket (governor) per secret API key, and per client address for
//! everything else: the hosted pages, requests without a key, and requests with a public key. A
//! secret key gets its own bucket once the service has authenticated it; until then its requests
//! count against their address, so a flood of made-up keys is limited like any other request from
//! that address. A public key never gets a bucket of its own: it is printed in every checkout page,
//! so a bucket per public key would let any visitor use up the limit of the merchant's other
//! customers; each visitor's address has its own bucket instead. Over the limit a request is answered `429 rate_limit_exceeded`
//! with `Retry-After`; every answer carries `RateLimit-Limit`, `RateLimit-Remaining` and
//! `RateLimit-Reset` (seconds until the bucket is full again). The buckets live in the instance:
//! with several instances behind a load balancer, each enforces its own.

use crate::error::ApiError;
use crate::settings::RateLimitSettings;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage};
use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::{Quota, RateLimiter};
use payments_application::Caller;
use payments_domain::account::KeyKind;
use std::collections::HashSet;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::RwLock;
use std::time::Duration;

type Buckets = RateLimiter<
    String,
    governor::state::keyed::DefaultKeyedStateStore<String>,
    DefaultClock,
    StateInformationMiddleware,
>;

/// Checks between two sweeps of the buckets that are full again (which forgets them).
const SWEEP_EVERY: u64 = 4_096;
/// The longest presented key that gets a bucket of its own; longer ones count as their address.
const LONGEST_KEY: usize = 128;
/// The most keys remembered as accepted; past it the memory starts over.
const REMEMBERED_KEYS: usize = 100_000;
/// Paths never limited: the probes of load balancers and orchestrators.
const UNLIMITED_PATHS: [&str; 2] = ["/healthz", "/readyz"];

/// One kind of bucket: its limiter and the burst it allows.
struct Limit {
    buckets: Buckets,
    burst: u32,
    per_second: u32,
}

impl Limit {
    fn new(per_second: u32, burst: u32) -> Self {
        let rate = NonZeroU32::new(per_second).unwrap_or(NonZeroU32::MIN);
        let size = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
        let buckets = RateLimiter::keyed(Quota::per_second(rate).allow_burst(size)).with_middleware();
        Self { buckets, burst: size.get(), per_second: rate.get() }
    }
}

/// The limits of one instance.
pub struct RateLimits {
    per_key: Limit,
    per_address: Limit,
    checks: AtomicU64,
    /// Secret keys the service has authenticated, which get buckets of their own.
    accepted_keys: RwLock<HashSet<String>>,
}

/// What a check decided, with what the headers say.
struct Decision {
    allowed: bool,
    /// Whether the key was accepted before (and the token came from its own bucket).
    key_accepted: bool,
    limit: u32,
    remaining: u32,
    /// Seconds until the bucket is full again (allowed) or until one more request is (refused).
    wait: Duration,
}

impl RateLimits {
    /// The limits of the settings; `None` when they are switched off.
    #[must_use]
    pub fn new(settings: RateLimitSettings) -> Option<Self> {
        settings.enabled.then(|| Self {
            per_key: Limit::new(settings.per_key_per_second, settings.per_key_burst),
            per_address: Limit::new(settings.per_address_per_second, settings.per_address_burst),
            checks: AtomicU64::new(0),
            accepted_keys: RwLock::new(HashSet::new()),
        })
    }

    fn accepted(&self, key: &str) -> bool {
        self.accepted_keys.read().is_ok_and(|keys| keys.contains(key))
    }

    fn accept(&self, key: String) {
        if let Ok(mut keys) = self.accepted_keys.write() {
            if keys.len() >= REMEMBERED_KEYS {
                keys.clear();
            }
            keys.insert(key);
        }
    }

    /// Takes a token from the key's bucket when the key was accepted before, else from the
    /// address's.
    fn check(&self, request: &ServiceRequest, key: Option<&String>) -> Decision {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            for limit in [&self.per_key, &self.per_address] {
                limit.buckets.retain_recent();
                limit.buckets.shrink_to_fit();
            }
        }
        let accepted = key.filter(|key| self.accepted(key));
        let (limit, key) = match accepted {
            Some(key) => (&self.per_key, key.clone()),
            None => {
                let address = request.peer_addr().map(|address| address.ip().to_string()).unwrap_or_default();
                (&self.per_address, address)
            }
        };
        match limit.buckets.check_key(&key) {
            Ok(state) => {
                let remaining = state.remaining_burst_capacity();
                let used = limit.burst.saturating_sub(remaining);
                let wait = Duration::from_secs_f64(f64::from(used) / f64::from(limit.per_second));
                Decision { allowed: true, key_accepted: accepted.is_some(), limit: limit.burst, remaining, wait }
            }
            Err(refused) => {
                let wait = refused.wait_time_from(DefaultClock::default().now());
                Decision { allowed: false, key_accepted: accepted.is_some(), limit: limit.burst, remaining: 0, wait }
            }
        }
    }
}

/// The API key a request presents, unchecked, when it is short enough to be one.
fn presented_key(request: &ServiceRequest) -> Option<String> {
    crate::auth::presented_key(request.request()).ok().filter(|key| key.len() <= LONGEST_KEY)
}

/// Whether the request of `response` was authenticated with a secret key (an answer other than 401
/// is not enough: a made-up key gets one from a path that never authenticates, such as `/docs`).
fn authenticated_secret_key(response: &ServiceResponse<BoxBody>) -> bool {
    response.request().extensions().get::<Caller>().is_some_and(|caller| caller.key_kind == KeyKind::Secret)
}

/// A wait in whole seconds, rounded up.
fn whole_seconds(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

/// Applies the limits (when switched on) before anything else reads the request.
///
/// # Errors
/// What the wrapped service returns.
pub async fn rate_limit(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let data = request.app_data::<web::Data<Option<RateLimits>>>().cloned();
    let Some(limits) = data.as_ref().and_then(|data| data.get_ref().as_ref()) else {
        return next.call(request).await.map(ServiceResponse::map_into_boxed_body);
    };
    if UNLIMITED_PATHS.contains(&request.path()) {
        return next.call(request).await.map(ServiceResponse::map_into_boxed_body);
    }
    let key = presented_key(&request);
    let decision = limits.check(&request, key.as_ref());
    let mut response = if decision.allowed {
        let response = next.call(request).await?.map_into_boxed_body();
        if let Some(key) = key.filter(|_| !decision.key_accepted && authenticated_secret_key(&response)) {
            limits.accept(key);
        }
        response
    } else {
        // A refusal whose wait rounds to nothing (the window turned as it was decided) still asks
        // for a second: `Retry-After: 0` would invite the same request at once.
        request.error_response(ApiError::rate_limited(whole_seconds(decision.wait).max(1)))
    };
    let headers = response.headers_mut();
    headers.insert(HeaderName::from_static("ratelimit-limit"), HeaderValue::from(decision.limit));
    headers.insert(HeaderName::from_static("ratelimit-remaining"), HeaderValue::from(decision.remaining));
    headers.insert(HeaderName::from_static("ratelimit-reset"), HeaderValue::from(whole_seconds(decision.wait)));
    Ok(response)
}
