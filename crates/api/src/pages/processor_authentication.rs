//! Where a live customer authenticates (3-D Secure) with the processor's own script when the
//! processor has no page to send them to (Stripe's `use_stripe_sdk`): `GET /processor/authenticate/…`,
//! by the intent's redirect token. The page loads the processor's script (Stripe.js), which finishes
//! the authentication with the processor's client secret for the payment; then the customer goes on
//! to the return page, which records how the payment stands. The page holds no card data, and its
//! policy names only the processor's origins. Once there is nothing to authenticate, it sends the
//! customer straight to the return page.

use super::hosted::{html, message, not_allowed, secured, see_other};
use crate::state::{blocking, Services};
use actix_web::http::{header, Method, StatusCode};
use actix_web::{web, HttpResponse};
use askama::Template;
use payments_application::services::ScriptAuthentication;
use payments_domain::hosted_page::HostedPage;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    let script = || async {
        secured(HttpResponse::Ok())
            .content_type("text/javascript; charset=utf-8")
            .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
            .body(include_str!("../../assets/processor-authentication.js"))
    };
    config
        .service(
            web::resource(HostedPage::ProcessorAuthentication.route())
                .route(crate::routes::get_or_head().to(show))
                .default_service(not_allowed(&[Method::GET], "Follow the payment's link.", false)),
        )
        .service(
            web::resource("/assets/processor-authentication.js")
                .route(crate::routes::get_or_head().to(script))
                .default_service(crate::routes::allow_only(&[Method::GET])),
        );
}

#[derive(Template)]
#[template(path = "processor_authentication.html")]
struct AuthenticationPage<'a> {
    script_url: &'a str,
    publishable_key: &'a str,
    client_secret: &'a str,
    return_url: &'a str,
}

async fn show(token: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let token = token.into_inner();
    let asked = token.clone();
    match blocking(move || services.payment_intents.processor_authentication(&asked)).await {
        Ok(Some(authentication)) => page(&authentication),
        Ok(None) => see_other(&HostedPage::ProcessorReturn.url("", &token)),
        Err(error) if error.status() == StatusCode::NOT_FOUND => message(
            StatusCode::NOT_FOUND,
            "This link cannot be used",
            "This link is unknown or belongs to no live payment.",
            None,
            false,
        ),
        Err(error) => {
            tracing::warn!(%error, "the authentication page could not ask the processor");
            message(
                StatusCode::SERVICE_UNAVAILABLE,
                "Try again",
                "Your bank's check could not be started right now. Reload this page shortly.",
                None,
                false,
            )
        }
    }
}

/// The page, with a policy that lets it load, call and frame the processor's origins only.
fn page(authentication: &ScriptAuthentication) -> HttpResponse {
    let ScriptAuthentication { script, client_secret, return_url } = authentication;
    let template = AuthenticationPage {
        script_url: &script.url,
        publishable_key: &script.publishable_key,
        client_secret,
        return_url,
    };
    let policy = format!(
        "default-src 'none'; script-src 'self' {}; connect-src {}; frame-src {}; style-src 'self'; \
         img-src 'self' https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        script.script_origins.join(" "),
        script.connect_origins.join(" "),
        script.frame_origins.join(" "),
    );
    let mut response = html(StatusCode::OK, template.render());
    if let Ok(policy) = header::HeaderValue::from_str(&policy) {
        response.headers_mut().insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    response
}
