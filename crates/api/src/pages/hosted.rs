//! What every hosted page shares: the security headers (a capability URL must not leak or be
//! framed), HTML and redirect answers, the per-page form token that keeps other sites from posting
//! into a page, the stylesheet and default images, and how money and methods read on a page.

use crate::state::Services;
use actix_web::cookie::{Cookie, SameSite};
use actix_web::http::{header, Method, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse, HttpResponseBuilder, Route};
use askama::Template;
use payments_application::ports::IdGenerator;
use payments_domain::ids::ClientSecret;
use payments_domain::payment_method::PaymentMethodType;

/// No scripts at all, styles and images from this service (images of line items from any https
/// site), and never inside a frame.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self' https: data:; \
                                       base-uri 'none'; frame-ancestors 'none'";
/// The cookie holding a page's form token; scoped to the page's own path.
const FORM_TOKEN_COOKIE: &str = "form_token";
/// The form field carrying the page's form token.
pub(super) const FORM_TOKEN_FIELD: &str = "form_token";
const FORM_TOKEN_LENGTH: usize = 32;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    let css = || asset("text/css; charset=utf-8", include_str!("../../assets/pages.css"));
    let svg = || asset("image/svg+xml", include_str!("../../assets/item.svg"));
    let get_only = || crate::routes::allow_only(&[Method::GET]);
    config
        .service(
            web::resource("/assets/pages.css").route(crate::routes::get_or_head().to(css)).default_service(get_only()),
        )
        .service(
            web::resource("/assets/item.svg").route(crate::routes::get_or_head().to(svg)).default_service(get_only()),
        );
}

async fn asset(content_type: &'static str, body: &'static str) -> HttpResponse {
    secured(HttpResponse::Ok())
        .content_type(content_type)
        .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
        .body(body)
}

/// A response builder with the headers every hosted page carries.
pub(super) fn secured(mut builder: HttpResponseBuilder) -> HttpResponseBuilder {
    builder
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
    builder
}

/// A rendered page with `status`; a template failure is logged and answered 500.
pub(super) fn html(status: StatusCode, rendered: Result<String, askama::Error>) -> HttpResponse {
    match rendered {
        Ok(body) => {
            let mut response = secured(HttpResponse::build(status));
            if let Some(seconds) = crate::error::retry_after_seconds(status) {
                response.insert_header((header::RETRY_AFTER, seconds));
            }
            response.content_type("text/html; charset=utf-8").body(body)
        }
        Err(error) => {
            tracing::error!(%error, "a page template failed");
            secured(HttpResponse::InternalServerError())
                .content_type("text/plain; charset=utf-8")
                .body("The page could not be shown.")
        }
    }
}

/// 303 to `location`. Redirect URLs are checked when they are stored, so every one makes a valid
/// header; one that does not (stored before the check) gets a page saying so rather than a 500.
pub(super) fn see_other(location: &str) -> HttpResponse {
    match header::HeaderValue::from_str(location) {
        Ok(location) => secured(HttpResponse::SeeOther()).insert_header((header::LOCATION, location)).finish(),
        Err(_) => {
            tracing::warn!("a stored redirect URL is not a valid Location header");
            let detail = "Your browser could not be sent on: the address to go to next is not valid. \
                          Go back to the shop yourself; nothing else is needed here.";
            message(StatusCode::OK, "Done here", detail, None, false)
        }
    }
}

#[derive(Template)]
#[template(path = "message.html")]
struct MessagePage<'a> {
    heading: &'a str,
    message: &'a str,
    link: Option<(&'a str, &'a str)>,
    test_mode: bool,
}

/// A page that only says something, with an optional link (`href`, text).
pub(super) fn message(
    status: StatusCode,
    heading: &str,
    message: &str,
    link: Option<(&str, &str)>,
    test_mode: bool,
) -> HttpResponse {
    html(status, MessagePage { heading, message, link, test_mode }.render())
}

/// The default service of a page serving `methods`: a 405 page saying `hint`, with `Allow`.
pub(super) fn not_allowed(methods: &'static [Method], hint: &'static str, test_mode: bool) -> Route {
    web::to(move || {
        let mut page = message(StatusCode::METHOD_NOT_ALLOWED, "Not allowed", hint, None, test_mode);
        if let Ok(allowed) = header::HeaderValue::from_str(&crate::routes::allow_header(methods)) {
            page.headers_mut().insert(header::ALLOW, allowed);
        }
        async move { page }
    })
}

/// The form token of the page at the request's path: the one its cookie already holds, or a new
/// one with the cookie to set. The cookie is `SameSite=Lax`, so a post from another site arrives
/// without it and is refused.
pub(super) fn form_token(request: &HttpRequest, ids: &dyn IdGenerator) -> (String, Option<Cookie<'static>>) {
    if let Some(existing) = request.cookie(FORM_TOKEN_COOKIE).map(|cookie| cookie.value().to_owned()) {
        if existing.len() == FORM_TOKEN_LENGTH && existing.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return (existing, None);
        }
    }
    let token = ids.alphanumeric(FORM_TOKEN_LENGTH);
    let cookie = Cookie::build(FORM_TOKEN_COOKIE, token.clone())
        .path(request.path().to_owned())
        .http_only(true)
        .secure(cookie_is_secure(request))
        .same_site(SameSite::Lax)
        .finish();
    (token, Some(cookie))
}

/// Whether a cookie the service sets is `Secure`, one rule for every cookie: when the public base URL
/// is https, or the request came over https (directly, or as a proxy's `X-Forwarded-Proto` says).
pub(super) fn cookie_is_secure(request: &HttpRequest) -> bool {
    let public_https = request.app_data::<web::Data<Services>>().is_some_and(|services| services.secure_cookies);
    public_https || request.connection_info().scheme().eq_ignore_ascii_case("https")
}

/// Whether a posted form carries the token of its page's cookie.
pub(super) fn form_token_matches(request: &HttpRequest, submitted: Option<&str>) -> bool {
    match (request.cookie(FORM_TOKEN_COOKIE), submitted) {
        (Some(cookie), Some(submitted)) => ClientSecret::from_stored(cookie.value().to_owned()).matches(submitted),
        _ => false,
    }
}

/// `url` with `pair` added to its query, before any `#fragment` (which never reaches the server).
pub(super) fn with_query_pair(url: &str, pair: &str) -> String {
    let (base, fragment) = url.split_once('#').map_or((url, None), |(base, fragment)| (base, Some(fragment)));
    let separator = if base.contains('?') { '&' } else { '?' };
    match fragment {
        Some(fragment) => format!("{base}{separator}{pair}#{fragment}"),
        None => format!("{base}{separator}{pair}"),
    }
}

/// How a payment method is named to a customer.
pub(super) fn method_name(method: PaymentMethodType) -> &'static str {
    match method {
        PaymentMethodType::Card => "Card",
        PaymentMethodType::Gcash => "GCash",
        PaymentMethodType::Maya => "Maya",
        PaymentMethodType::Billease => "BillEase",
        PaymentMethodType::Qrph => "QR Ph",
    }
}

#[cfg(test)]
mod tests {
    use super::{header, see_other, with_query_pair, StatusCode};

    #[test]
    fn the_client_secret_goes_into_the_query_before_any_fragment() {
        assert_eq!(with_query_pair("https://s.example/back", "k=v"), "https://s.example/back?k=v");
        assert_eq!(with_query_pair("https://s.example/back?a=1", "k=v"), "https://s.example/back?a=1&k=v");
        assert_eq!(with_query_pair("https://s.example/back#top", "k=v"), "https://s.example/back?k=v#top");
        assert_eq!(with_query_pair("https://s.example/b?a=1#x?y", "k=v"), "https://s.example/b?a=1&k=v#x?y");
    }

    #[test]
    fn a_redirect_that_is_no_valid_header_is_a_page_not_a_500() {
        let response = see_other("https://shop.example/done\n");
        assert_eq!(response.status(), StatusCode::OK);
        assert!(response.headers().get(header::LOCATION).is_none());
        assert!(response.headers().get(header::CONTENT_SECURITY_POLICY).is_some(), "with the pages' headers");
        let fine = see_other("https://shop.example/done?x=1");
        assert_eq!(fine.status(), StatusCode::SEE_OTHER);
        assert_eq!(fine.headers().get(header::LOCATION).unwrap(), "https://shop.example/done?x=1");
    }
}
