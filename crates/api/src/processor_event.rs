//! Where live processors send their events: `POST /processor/webhooks/{connector}`, one address per
//! account's connector, by its unguessable id. An event is checked and kept once, and answered
//! `200` at once; a forged, foreign-mode or malformed one is answered `400` and kept nowhere. Not
//! in the public OpenAPI document: the processor calls it, not a merchant.

use crate::decode::read_body;
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
    payload: web::Payload,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    // The API's own limits: a body past them is refused in the contract's shape.
    let body = read_body(&request, &mut payload.into_inner()).await?;
    let connector = request.match_info().get("capability").unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> = request
        .headers()
        .iter()
        .filter_map(|(name, value)| Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned())))
        .collect();
    blocking(move || services.processor_events.receive(&connector, &headers, &body)).await?;
    Ok(HttpResponse::Ok().json(json!({"received": true})))
}
