//! What every handler shares: registering a resource, answering 200 with JSON, reading a page
//! request, and the answers for routes and methods that do not exist.

use crate::decode::Params;
use crate::error::ApiError;
use actix_web::http::{header, Method};
use actix_web::{guard, web, HttpRequest, HttpResponse, Resource, ResponseError, Route};
use payments_application::pagination::PageRequest;
use payments_application::services::Access;
use payments_domain::account::KeyKind;
use payments_domain::limits::IDENTIFIER_LENGTH;
use payments_domain::pending_authorization::{chosen_decline, is_decline_code, Verdict};
use payments_domain::validation::FieldError;
use serde::Serialize;

/// A resource serving `methods` (GET implies HEAD), whose other methods answer 405 with `Allow`.
pub(crate) fn resource(path: &str, methods: &[Method]) -> Resource {
    web::resource(path).default_service(allow_only(methods))
}

/// A route for GET that serves HEAD too: the same answer, whose body the server leaves out.
#[must_use]
pub fn get_or_head() -> Route {
    web::route().guard(guard::Any(guard::Get()).or(guard::Head()))
}

/// The `Allow` header's value for `methods`: HEAD with GET, in the order RFC 9110 lists them.
#[must_use]
pub fn allow_header(methods: &[Method]) -> String {
    let order = [Method::GET, Method::HEAD, Method::POST, Method::PUT, Method::PATCH, Method::DELETE];
    let allowed =
        |method: &Method| methods.contains(method) || (*method == Method::HEAD && methods.contains(&Method::GET));
    order.iter().filter(|method| allowed(method)).map(Method::as_str).collect::<Vec<_>>().join(", ")
}

/// The default service of a resource serving `methods`: 405 `method_not_allowed`, with `Allow`.
#[must_use]
pub fn allow_only(methods: &[Method]) -> Route {
    let allowed = allow_header(methods);
    web::to(move |request: HttpRequest| {
        let error = ApiError::method_not_allowed(request.method().as_str(), request.path(), &allowed);
        let mut response = error.error_response();
        if let Ok(value) = header::HeaderValue::from_str(&allowed) {
            response.headers_mut().insert(header::ALLOW, value);
        }
        async move { response }
    })
}

/// 404 `route_not_found` for anything no route serves.
pub async fn route_not_found(request: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::route_not_found(request.method().as_str(), request.path()))
}

/// 200 with a JSON body.
pub(crate) fn ok<T: Serialize>(body: &T) -> HttpResponse {
    HttpResponse::Ok().json(body)
}

/// Reads `limit`, `after` and `before` of a list request.
pub(crate) fn page_request(params: &mut Params) -> Option<PageRequest> {
    let limit = params.integer_between("limit", Some(1), Some(i64::from(PageRequest::MAX_LIMIT)));
    let after = params.string("after", IDENTIFIER_LENGTH);
    let before = params.string("before", IDENTIFIER_LENGTH);
    match PageRequest::new(limit, after, before) {
        Ok(page) => Some(page),
        Err(errors) => {
            for error in errors {
                params.push(error);
            }
            None
        }
    }
}

/// The `client_secret` a public key sends to reach one object.
pub(crate) fn client_secret(params: &mut Params) -> Option<String> {
    let secret = params.string("client_secret", IDENTIFIER_LENGTH);
    params.secret("client_secret");
    secret
}

/// What a key may do: a secret key everything, a public key only with the object's client secret.
pub(crate) fn access(kind: KeyKind, client_secret: Option<&str>) -> Access<'_> {
    match kind {
        KeyKind::Secret => Access::SecretKey,
        KeyKind::Public => Access::ClientSecret(client_secret),
    }
}

/// How a test helper ends a pending authorization: `outcome` `approved` or `declined`, and with a
/// decline an optional `decline_code` (else the test page's own failure).
pub(crate) fn verdict(params: &mut Params) -> Option<Verdict> {
    let outcome = params.required_choice("outcome", || vec!["approved", "declined"]);
    let code = params.string("decline_code", 64);
    params.pattern("decline_code", "^[a-z][a-z0-9_]{0,63}$");
    params.only_where("decline_code", "outcome", "declined");
    let code = code.filter(|code| {
        let valid = is_decline_code(code);
        if !valid {
            let detail =
                "The parameter decline_code must be lowercase letters, digits and underscores, such as card_declined.";
            params.push(FieldError::invalid("decline_code", detail));
        }
        valid
    });
    match outcome.as_deref()? {
        "approved" if code.is_some() => {
            params.push(FieldError::invalid("decline_code", "A decline_code goes only with the outcome declined."));
            None
        }
        "approved" => Some(Verdict::Approve),
        "declined" => Some(Verdict::Decline(code.map(|code| chosen_decline(&code)))),
        _ => {
            params.push(FieldError::invalid("outcome", "The parameter outcome must be one of approved, declined."));
            None
        }
    }
}
