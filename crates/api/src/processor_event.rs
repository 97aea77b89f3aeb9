//! Where live processors send their events: `POST /processor/webhooks/{connector}`, one address per
//! account's connector, by its unguessable id. An event is checked and kept once, and answered
//! `200` at once; a forged, foreign-mode or malformed one is answered `400` and kept nowhere. Not
//! in the public OpenAPI document: the processor calls it, not a merchant.

use crate::error::ApiError;
use crate::state::{blocking, Services};
use actix_web::http::Method;
use actix_web::{web, HttpRequest, HttpResponse};
use payments_domain::hosted_page::HostedPage;
use serde_json::json;

/// Registers the processors' event address.
pub fn configure(config: &mut web::ServiceConfig) {
    config.service(
        web::resource(HostedPage::ProcessorWebhooks.route())
            .route(web::post().to(receive))
            .default_service(crate::routes::allow_only(&[Method::POST])),
    );
}

async fn receive(
    request: HttpRequest,
    body: web::Bytes,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let connector = request.match_info().get("capability").unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> = request
        .headers()
        .iter()
        .filter_map(|(name, value)| Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned())))
        .collect();
    blocking(move || services.processor_events.receive(&connector, &headers, &body)).await?;
    Ok(HttpResponse::Ok().json(json!({"received": true})))
}
