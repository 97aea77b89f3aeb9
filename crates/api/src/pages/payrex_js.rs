//! `GET /js/v1/payrex.js`: the client-side library a merchant's page loads (`assets/js/payrex.js`),
//! with the service's public base URL written in, so it calls this service wherever the page is.
//! Any origin may load it (`Access-Control-Allow-Origin: *`); browsers revalidate it by its `ETag`.
//! And the payment element's frame (`/js/v1/elements/payment`, with its script and style): the one
//! page of the service that any site may frame, since it exists to be shown in a merchant's page.
//! Framed with its publishable key (`?key=`), a live frame also names the account's processor,
//! where it tokenizes a card: its policy then lets it reach that one origin, and nothing else.

use crate::state::{blocking, Services};
use actix_web::http::header::{self, EntityTag, IfNoneMatch};
use actix_web::http::Method;
use actix_web::{web, HttpMessage, HttpRequest, HttpResponse};
use payments_domain::account::KeyKind;
use payments_domain::ids::ClientSecret;
use payments_domain::payment_method::PaymentMethodType;
use sha2::{Digest, Sha256};
use std::sync::LazyLock;

/// Where the library is served.
pub(crate) const PATH: &str = "/js/v1/payrex.js";
/// The library as written, with the base URL's placeholder in it.
const SOURCE: &str = include_str!("../../assets/js/payrex.js");
/// The placeholder, with its quotes: replaced by the base URL as a JSON string.
const BASE_URL_PLACEHOLDER: &str = "'__PAYMENTS_PUBLIC_BASE_URL__'";
/// The placeholder of how a client secret names its object ([`ClientSecret::MARK`]).
const CLIENT_SECRET_MARK_PLACEHOLDER: &str = "__CLIENT_SECRET_MARK__";
/// The element's page as written, with the placeholders of what the service writes in.
const FRAME_SOURCE: &str = include_str!("../../assets/js/payment-element.html");
/// The element's page: how a client secret names its object, and each payment method's name as a
/// customer reads it, written in from the domain (so the element names every method the service
/// takes, and restates none of them).
static FRAME_TEMPLATE: LazyLock<String> = LazyLock::new(|| {
    let names: serde_json::Map<String, serde_json::Value> = PaymentMethodType::ALL
        .iter()
        .map(|method| (method.as_str().to_owned(), super::hosted::method_name(*method).into()))
        .collect();
    let names = serde_json::Value::Object(names).to_string();
    FRAME_SOURCE
        .replace(CLIENT_SECRET_MARK_PLACEHOLDER, &html_attribute(ClientSecret::MARK))
        .replace("__METHOD_NAMES__", &html_attribute(&names))
});

/// `text` escaped for an HTML attribute in double quotes.
fn html_attribute(text: &str) -> String {
    text.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The payment element's frame: any page may frame it; it runs only its own script and talks only
/// to the service (and, in live mode, to the processor that tokenizes the card).
const FRAME_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                            base-uri 'none'; form-action 'none'; frame-ancestors *";

/// The frame's page for a test key or none: no tokenizer, and the page's own policy.
static FRAME: LazyLock<String> = LazyLock::new(|| FRAME_TEMPLATE.replace("__TOKENIZER__", ""));

pub(super) fn configure(config: &mut web::ServiceConfig) {
    let frame_script = || asset("text/javascript; charset=utf-8", include_str!("../../assets/js/payment-element.js"));
    let frame_style = || asset("text/css; charset=utf-8", include_str!("../../assets/js/payment-element.css"));
    let get_only = || crate::routes::allow_only(&[Method::GET]);
    config
        .service(web::resource(PATH).route(crate::routes::get_or_head().to(script)).default_service(get_only()))
        .service(
            web::resource("/js/v1/elements/payment")
                .route(crate::routes::get_or_head().to(frame))
                .default_service(get_only()),
        )
        .service(
            web::resource("/js/v1/payment-element.js")
                .route(crate::routes::get_or_head().to(frame_script))
                .default_service(get_only()),
        )
        .service(
            web::resource("/js/v1/payment-element.css")
                .route(crate::routes::get_or_head().to(frame_style))
                .default_service(get_only()),
        );
}

/// The element's frame, for the publishable key it is framed with. Live, the account's processor
/// tokenizes the card: the page names it (its address and publishable key), and its policy lets it
/// reach that origin; with no processor, the page says cards go nowhere. A test key (or none) gets
/// the page as it is: its cards go to the simulator, through the service.
async fn frame(query: web::Query<FrameQuery>, services: web::Data<Services>) -> HttpResponse {
    let Some(key) = query.into_inner().key else {
        return asset("text/html; charset=utf-8", FRAME.as_str()).await;
    };
    let live = blocking(move || {
        let caller = services.accounts.authenticate(&key)?;
        if caller.key_kind != KeyKind::Public || !caller.scope.livemode() {
            return Ok(None);
        }
        services.connectors.card_tokenizer(&caller.scope).map(Some)
    })
    .await;
    let Ok(Some(tokenizer)) = live else {
        return asset("text/html; charset=utf-8", FRAME.as_str()).await;
    };
    let (named, policy) = match tokenizer {
        Some(tokenizer) => (
            serde_json::json!({"url": tokenizer.url, "publishable_key": tokenizer.publishable_key}).to_string(),
            FRAME_POLICY.replace("connect-src 'self'", &format!("connect-src 'self' {}", tokenizer.origin)),
        ),
        None => ("\"none\"".to_owned(), FRAME_POLICY.to_owned()),
    };
    let page = FRAME_TEMPLATE.replace("__TOKENIZER__", &html_attribute(&named));
    // Asked again each time: the account's processor may change.
    let mut page = framed(policy, "text/html; charset=utf-8", page);
    page.headers_mut().insert(header::CACHE_CONTROL, header::HeaderValue::from_static("no-cache"));
    page
}

/// The frame's query: the publishable key it is framed with.
#[derive(serde::Deserialize)]
struct FrameQuery {
    key: Option<String>,
}

/// One of the element frame's files, as it is in the repository.
async fn asset(content_type: &'static str, body: &'static str) -> HttpResponse {
    framed(FRAME_POLICY.to_owned(), content_type, body)
}

fn framed(
    policy: String,
    content_type: &'static str,
    body: impl actix_web::body::MessageBody + 'static,
) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((header::CONTENT_SECURITY_POLICY, policy))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::CACHE_CONTROL, "public, max-age=300"))
        .body(body)
}

/// The library for a service at `public_base_url`.
fn library(public_base_url: &str) -> String {
    let base = serde_json::Value::from(public_base_url.trim_end_matches('/')).to_string();
    SOURCE.replace(BASE_URL_PLACEHOLDER, &base).replace(CLIENT_SECRET_MARK_PLACEHOLDER, ClientSecret::MARK)
}

async fn script(request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let body = library(&services.public_base_url);
    let digest = Sha256::digest(body.as_bytes());
    let tag = EntityTag::new_strong(digest.iter().take(8).map(|byte| format!("{byte:02x}")).collect());
    let unchanged = match request.get_header::<IfNoneMatch>() {
        Some(IfNoneMatch::Any) => true,
        Some(IfNoneMatch::Items(tags)) => tags.iter().any(|seen| seen.weak_eq(&tag)),
        None => false,
    };
    let mut response = if unchanged { HttpResponse::NotModified() } else { HttpResponse::Ok() };
    response
        .insert_header((header::ETAG, tag))
        .insert_header((header::CACHE_CONTROL, "public, max-age=300"))
        .insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
    if unchanged {
        response.finish()
    } else {
        response.content_type("text/javascript; charset=utf-8").body(body)
    }
}

#[cfg(test)]
mod tests {
    use super::library;

    #[test]
    fn the_base_url_is_written_in_as_a_string() {
        let script = library("https://pay.example/base/");
        assert!(script.contains(r#"var SERVICE_URL = "https://pay.example/base";"#), "{script}");
        assert!(!script.contains("__PAYMENTS_PUBLIC_BASE_URL__") && !script.contains("__CLIENT_SECRET_MARK__"));
    }
}
