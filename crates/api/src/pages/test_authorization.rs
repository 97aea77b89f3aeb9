//! The test authorization page: where 3-D Secure challenges and e-wallet redirects of test mode land.
//! "Authorize" or "Fail" completes the attempt and returns the customer to
//! `return_url?payment_intent_client_secret=…` (or `setup_intent_client_secret=…` when a card is
//! being saved by a setup intent).

use super::hosted::{html, message, method_name, not_allowed, see_other, with_query_pair};
use crate::decode::BodyParams;
use crate::formatting::pesos;
use crate::state::{blocking, Services};
use actix_web::http::{Method, StatusCode};
use actix_web::{web, HttpResponse};
use askama::Template;
use payments_application::services::{AuthorizationFlow, RedirectCompletion};
use payments_application::ApplicationError;
use payments_domain::hosted_page::HostedPage;
use payments_domain::limits::CHOICE_LENGTH;
use payments_domain::payment_method::PaymentMethodType;
use qrcode::render::svg;
use qrcode::QrCode;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config.service(
        web::resource(HostedPage::TestAuthorization.route())
            .route(crate::routes::get_or_head().to(show))
            .route(web::post().to(decide))
            .default_service(not_allowed(&[Method::GET, Method::POST], "Use the buttons of the page.", true)),
    );
}

#[derive(Template)]
#[template(path = "test_authorization.html")]
struct AuthorizationPage<'a> {
    intent_id: &'a str,
    /// "Payment intent" or "Setup intent".
    intent_kind: &'static str,
    /// "payment", or "card" when a card is being saved.
    subject: &'static str,
    amount: Option<String>,
    method_name: &'static str,
    description: Option<&'a str>,
    qr_svg: Option<String>,
}

async fn show(token: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let page = match blocking(move || {
        services.payment_intents.redirect_page(&token).or_else(|_| services.setup_intents.redirect_page(&token))
    })
    .await
    {
        Ok(page) => page,
        Err(_) => return unusable_link(),
    };
    let qr_svg = (page.method == PaymentMethodType::Qrph).then(|| qr_code(&page.redirect_url)).flatten();
    let template = AuthorizationPage {
        intent_id: &page.intent_id,
        intent_kind: if page.amount.is_some() { "Payment intent" } else { "Setup intent" },
        subject: if page.amount.is_some() { "payment" } else { "card" },
        amount: page.amount.map(pesos),
        method_name: method_in_sentence(page.method),
        description: page.description.as_deref(),
        qr_svg,
    };
    html(StatusCode::OK, template.render())
}

async fn decide(
    token: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> HttpResponse {
    let authorized = match params.string("decision", CHOICE_LENGTH).as_deref() {
        Some("authorize") => true,
        Some("fail") => false,
        _ => {
            let detail = "Use one of the two buttons of the page.";
            return message(StatusCode::BAD_REQUEST, "Choose an outcome", detail, None, true);
        }
    };
    let completion = match blocking(move || match services.payment_intents.complete_redirect(&token, authorized) {
        Err(ApplicationError::NotFound { .. }) => services.setup_intents.complete_redirect(&token, authorized),
        other => other,
    })
    .await
    {
        Ok(completion) => completion,
        Err(error) if error.status() == StatusCode::NOT_FOUND => return unusable_link(),
        Err(error) if error.status() == StatusCode::SERVICE_UNAVAILABLE => {
            return message(
                StatusCode::SERVICE_UNAVAILABLE,
                "Try again",
                "The payment could not be completed right now.",
                None,
                true,
            )
        }
        Err(_) => {
            return message(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "The payment could not be completed.",
                None,
                true,
            )
        }
    };
    after_authorization(completion, true)
}

/// Where the customer goes once an authorization page is done: the merchant's `return_url`, with
/// the intent's client secret, or a page that tells how the attempt ended (with test mode's badge
/// on test mode's page).
pub(super) fn after_authorization(completion: RedirectCompletion, test_mode: bool) -> HttpResponse {
    let saving = completion.client_secret_parameter == "setup_intent_client_secret";
    match completion.return_url {
        Some(return_url) => {
            let pair = format!("{}={}", completion.client_secret_parameter, completion.client_secret);
            let location = with_query_pair(&return_url, &pair);
            see_other(&location)
        }
        None if completion.awaiting_customer => {
            let detail = "Your bank has not confirmed this payment yet. Go back to the page you paid on to finish it.";
            message(StatusCode::OK, "Not finished yet", detail, None, test_mode)
        }
        None if completion.succeeded => {
            let heading = match (saving, completion.already_used) {
                (true, true) => "Card already saved",
                (true, false) => "Card saved",
                (false, true) => "Payment already authorized",
                (false, false) => "Payment authorized",
            };
            message(StatusCode::OK, heading, "You can close this page.", None, test_mode)
        }
        None => {
            let heading = match (saving, completion.already_used) {
                (true, true) => "Card already refused",
                (true, false) => "Card not saved",
                (false, true) => "Payment already failed",
                (false, false) => "Payment failed",
            };
            let detail = completion.error.map_or_else(|| "The attempt failed.".to_owned(), |e| e.detail);
            message(StatusCode::OK, heading, &detail, None, test_mode)
        }
    }
}

fn unusable_link() -> HttpResponse {
    message(
        StatusCode::NOT_FOUND,
        "This link cannot be used",
        "This test authorization link is unknown, was already used, or has expired.",
        None,
        true,
    )
}

fn qr_code(payload: &str) -> Option<String> {
    let code = QrCode::new(payload.as_bytes()).ok()?;
    Some(code.render::<svg::Color<'_>>().min_dimensions(200, 200).build())
}

/// A method as the page's sentences name it ("this card payment", "this GCash payment").
fn method_in_sentence(method: PaymentMethodType) -> &'static str {
    match method {
        PaymentMethodType::Card => "card",
        other => method_name(other),
    }
}
