//! Where a live processor sends the customer back after its own page (3-D Secure):
//! `GET /processor/return/…`, by the intent's redirect token, which only the processor and the
//! customer hold. The service asks the processor how the payment stands, records it, and sends the
//! customer on to the merchant's `return_url` with the intent's client secret, as after test mode's
//! authorization page. Coming back again (a reload) answers the same, and records nothing twice.

use super::hosted::{message, not_allowed};
use super::test_authorization::after_authorization;
use crate::state::{blocking, Services};
use actix_web::http::{Method, StatusCode};
use actix_web::{web, HttpResponse};
use payments_domain::hosted_page::HostedPage;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config.service(
        web::resource(HostedPage::ProcessorReturn.route())
            .route(crate::routes::get_or_head().to(come_back))
            .default_service(not_allowed(&[Method::GET], "Follow the processor's link back.", false)),
    );
}

async fn come_back(token: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    match blocking(move || services.payment_intents.return_from_processor(&token)).await {
        Ok(completion) => after_authorization(completion, false),
        Err(error) if error.status() == StatusCode::NOT_FOUND => message(
            StatusCode::NOT_FOUND,
            "This link cannot be used",
            "This return link is unknown or belongs to no live payment.",
            None,
            false,
        ),
        Err(error) => {
            tracing::warn!(%error, "the return page could not ask the processor");
            message(
                StatusCode::SERVICE_UNAVAILABLE,
                "Try again",
                "The payment's outcome could not be read right now. Reload this page shortly.",
                None,
                false,
            )
        }
    }
}
