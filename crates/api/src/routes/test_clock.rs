//! `/test_helpers/clock`: the test clock of the caller's account, read and moved forward (a test
//! secret key only; live mode runs on real time).

use super::endpoint::Endpoint;
use super::support::ok;
use crate::auth::TestSecretKey;
use crate::decode::{BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::test_clock::TestClockResource;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_domain::test_clock::{ClockMove, MAX_SECONDS_AHEAD};
use payments_domain::time::Timestamp;
use payments_domain::validation::FieldError;

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get("/test_helpers/clock", retrieve)
            .named("retrieve_test_clock", "Retrieve the test clock of the account's test mode")
            .answers::<TestClockResource>(),
        Endpoint::post("/test_helpers/clock/advance", advance)
            .named(
                "advance_test_clock",
                "Move the test clock forward; everything that falls due by then happens before the answer",
            )
            .body(movement)
            .answers::<TestClockResource>(),
    ]
}

async fn retrieve(
    TestSecretKey(scope): TestSecretKey,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let clock = blocking(move || services.test_clocks.retrieve(&scope)).await?;
    Ok(ok(&TestClockResource::new(clock)))
}

async fn advance(
    TestSecretKey(scope): TestSecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let movement = movement(&mut params);
    let movement = params.finish(movement)?;
    let clock = blocking(move || services.test_clocks.advance(&scope, movement)).await?;
    Ok(ok(&TestClockResource::new(clock)))
}

/// The move asked for: `to` a Unix time, or forward by `seconds`; exactly one of them.
fn movement(params: &mut Params) -> Option<ClockMove> {
    let to = params.integer_between("to", Some(0), None);
    let seconds = params.integer_between("seconds", Some(0), Some(MAX_SECONDS_AHEAD));
    params.exactly_one_of(&["to", "seconds"]);
    match (to, seconds) {
        (Some(to), None) => Some(ClockMove::To(Timestamp::from_unix_seconds(to))),
        (None, Some(seconds)) => Some(ClockMove::By { seconds }),
        (Some(_), Some(_)) => {
            params.push(FieldError::invalid("seconds", "Send either to or seconds, not both."));
            None
        }
        (None, None) => {
            params.missing_alternatives(
                "seconds",
                "Send to (a Unix time not earlier than the clock's now) or seconds (how far to move it).",
            );
            None
        }
    }
}
