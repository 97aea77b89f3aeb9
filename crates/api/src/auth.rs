//! Authentication: the API key from `Authorization` (Basic with or without the trailing colon, or
//! Bearer), resolved once per request and kept in the request's extensions.

use crate::error::ApiError;
use crate::state::Services;
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{web, FromRequest, HttpMessage, HttpRequest};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use payments_application::{Caller, Scope};
use payments_domain::account::KeyKind;
use std::future::Future;
use std::pin::Pin;

/// A caller authenticated with a secret key: the only kind most endpoints accept.
#[derive(Debug, Clone)]
pub struct SecretKey(pub Scope);

impl FromRequest for SecretKey {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let request = request.clone();
        Box::pin(async move {
            let caller = authenticate(&request).await?;
            match caller.key_kind {
                KeyKind::Secret => Ok(Self(caller.scope)),
                KeyKind::Public => Err(ApiError::unauthenticated("This request needs a secret API key.")),
            }
        })
    }
}

/// A caller with a test secret key: the only kind the test helpers take. A live or public key is a
/// 400 that says so (the request is understood; it is the key that cannot do this).
#[derive(Debug, Clone)]
pub struct TestSecretKey(pub Scope);

impl FromRequest for TestSecretKey {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let request = request.clone();
        Box::pin(async move {
            let caller = authenticate(&request).await?;
            match (caller.key_kind, caller.scope.livemode()) {
                (KeyKind::Secret, false) => Ok(Self(caller.scope)),
                (KeyKind::Secret, true) => Err(ApiError::test_mode_only(
                    "Test helpers work only in test mode: live mode runs on real time. Use a test secret key (sk_test_…).",
                )),
                (KeyKind::Public, _) => Err(ApiError::test_mode_only(
                    "Test helpers need a test secret key (sk_test_…), not a public key.",
                )),
            }
        })
    }
}

/// A caller with any key, secret or public; the handler decides what a public key may do.
#[derive(Debug, Clone)]
pub struct AnyKey(pub Caller);

impl FromRequest for AnyKey {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let request = request.clone();
        Box::pin(async move { authenticate(&request).await.map(Self) })
    }
}

/// The caller of this request, looked up once and then taken from the request's extensions.
///
/// # Errors
/// `auth_invalid` for a missing, malformed or unknown key; 503 when the database is unreachable.
pub async fn authenticate(request: &HttpRequest) -> Result<Caller, ApiError> {
    if let Some(caller) = request.extensions().get::<Caller>() {
        return Ok(caller.clone());
    }
    let presented = presented_key(request)?;
    let services = request
        .app_data::<web::Data<Services>>()
        .ok_or_else(|| ApiError::internal_message("the services are not registered"))?
        .clone();
    let caller = crate::state::blocking(move || services.accounts.authenticate(&presented)).await?;
    request.extensions_mut().insert(caller.clone());
    Ok(caller)
}

/// Whether a presented bearer token is the expected one. Their digests are compared in constant
/// time, so neither the time taken nor the lengths say how much of the token matched.
#[must_use]
pub fn token_matches(presented: &str, expected: &str) -> bool {
    use sha2::{Digest, Sha256};
    use subtle::ConstantTimeEq;
    Sha256::digest(presented.as_bytes()).ct_eq(&Sha256::digest(expected.as_bytes())).into()
}

/// The key a request presents, unchecked: the Basic user name or the Bearer token.
///
/// # Errors
/// 401 when there is none, or several, or the header is malformed.
pub(crate) fn presented_key(request: &HttpRequest) -> Result<String, ApiError> {
    if request.headers().get_all(header::AUTHORIZATION).nth(1).is_some() {
        return Err(ApiError::unauthenticated("Send one Authorization header, not several."));
    }
    let value = request
        .headers()
        .get(header::AUTHORIZATION)
        .ok_or_else(|| {
            ApiError::unauthenticated("No API key was given. Send it with HTTP Basic or Bearer authentication.")
        })?
        .to_str()
        .map_err(|_| malformed())?;
    let (scheme, credentials) = value.trim().split_once(' ').ok_or_else(malformed)?;
    let credentials = credentials.trim();
    if scheme.eq_ignore_ascii_case("bearer") {
        return Ok(credentials.to_owned());
    }
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(malformed());
    }
    let decoded = STANDARD.decode(credentials).map_err(|_| malformed())?;
    let decoded = String::from_utf8(decoded).map_err(|_| malformed())?;
    let key = decoded.strip_suffix(':').unwrap_or(&decoded);
    if key.contains(':') {
        return Err(malformed());
    }
    Ok(key.to_owned())
}

fn malformed() -> ApiError {
    ApiError::unauthenticated("The Authorization header is malformed. Use Basic with the key as user name, or Bearer.")
}
