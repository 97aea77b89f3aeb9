//! `GET /balance`: what the account's mode has available for payout, what is pending, and its
//! payout schedule.

use super::endpoint::Endpoint;
use super::support::ok;
use crate::auth::SecretKey;
use crate::decode::QueryParams;
use crate::error::ApiError;
use crate::representation::balance::BalanceResource;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![Endpoint::get("/balance", retrieve)
        .named("retrieve_balance", "Retrieve the balance and the payout schedule")
        .answers::<BalanceResource>()]
}

async fn retrieve(
    SecretKey(scope): SecretKey,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let livemode = scope.livemode();
    let view = blocking(move || services.balance.retrieve(&scope)).await?;
    Ok(ok(&BalanceResource::new(&view, livemode)))
}
