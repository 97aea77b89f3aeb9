//! `/payouts`: list (by status and creation time), retrieve, and a payout's transactions, the call
//! PayRex's clients make (`payouts.list_transactions`).

use super::endpoint::Endpoint;
use super::support::{ok, page_request};
use crate::auth::{SecretKey, TestSecretKey};
use crate::decode::{BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::balance::ScheduleResource;
use crate::representation::envelope::List;
use crate::representation::payout::{PayoutResource, PayoutTransactionResource};
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::pagination::PageRequest;
use payments_application::ports::PayoutFilter;
use payments_domain::payout::{
    bank_text_pattern, BankAccount, PayoutInterval, PayoutStatus, ScheduleEditor, BANK_TEXT_MAX_CHARS, MONTHLY_ANCHORS,
    WEEKDAYS,
};
use payments_domain::time::Timestamp;
use payments_domain::validation::FieldError;

/// The latest creation time a filter may name: the year 9999.
const LATEST_CREATED: i64 = 253_402_300_799;

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get("/payouts", list)
            .named("list_payouts", "List payouts, newest first")
            .query(list_request)
            .answers::<PayoutResource>()
            .list(),
        Endpoint::get("/payouts/{id}", retrieve)
            .named("retrieve_payout", "Retrieve a payout")
            .answers::<PayoutResource>(),
        Endpoint::post("/test_helpers/payout_schedule", change_test_schedule)
            .named("update_test_payout_schedule", "Test helper: change the test mode's payout schedule or bank account")
            .body(schedule_change)
            .answers::<ScheduleResource>(),
        Endpoint::get("/payouts/{id}/transactions", transactions)
            .named("list_payout_transactions", "List a payout's transactions, the last first")
            .query(page_request)
            .answers::<PayoutTransactionResource>()
            .list(),
    ]
}

async fn list(
    SecretKey(scope): SecretKey,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let request = list_request(&mut params);
    let (filter, page) = params.finish(request)?;
    let payouts = blocking(move || services.payouts.list(&scope, &filter, &page)).await?;
    Ok(ok(&List::of(&payouts, PayoutResource::new)))
}

async fn retrieve(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let payout = blocking(move || services.payouts.retrieve(&scope, &id)).await?;
    Ok(ok(&PayoutResource::new(&payout)))
}

async fn transactions(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let page = page_request(&mut params);
    let page = params.finish(page)?;
    let lines = blocking(move || services.payouts.transactions(&scope, &id, &page)).await?;
    Ok(ok(&List::of(&lines, PayoutTransactionResource::new)))
}

/// Test mode's schedule changed as the operator would, so a merchant can try a weekly schedule or a
/// bank account that returns payouts (`000111111116`) with the secret test key alone.
async fn change_test_schedule(
    TestSecretKey(scope): TestSecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let change = schedule_change(&mut params);
    let (interval, destination) = params.finish(change)?;
    let schedule =
        blocking(move || services.payouts.change_schedule(&scope, ScheduleEditor::Merchant, interval, destination))
            .await?;
    Ok(ok(&ScheduleResource::new(&schedule)))
}

/// A change of payout schedule: `interval` (`daily`, `weekly` with `weekly_anchor`, `monthly` with
/// `monthly_anchor`, `manual`) and the `bank_account` (`account_name`, `account_number`,
/// `bank_name`), each optional.
pub(crate) fn schedule_change(params: &mut Params) -> Option<(Option<PayoutInterval>, Option<BankAccount>)> {
    let interval = params.choice("interval", || PayoutInterval::NAMES.to_vec());
    let weekly_anchor = params.choice("weekly_anchor", || WEEKDAYS.to_vec());
    params.only_where("weekly_anchor", "interval", "weekly");
    let monthly_anchor = params.integer_between(
        "monthly_anchor",
        Some(i64::from(*MONTHLY_ANCHORS.start())),
        Some(i64::from(*MONTHLY_ANCHORS.end())),
    );
    params.only_where("monthly_anchor", "interval", "monthly");
    let destination = params.object("bank_account", |bank| {
        let name = bank.required_string("account_name", BANK_TEXT_MAX_CHARS);
        bank.pattern("account_name", &bank_text_pattern());
        let number = bank.required_string("account_number", 20);
        bank.pattern("account_number", "^[0-9]{6,20}$");
        let bank_name = bank.required_string("bank_name", BANK_TEXT_MAX_CHARS);
        bank.pattern("bank_name", &bank_text_pattern());
        let (name, number, bank_name) = (name?, number?, bank_name?);
        match BankAccount::new(&name, &number, &bank_name) {
            Ok(account) => Some(account),
            Err((field, invalid)) => bank.check(field, Err(invalid)),
        }
    });
    let interval = match interval {
        Some(interval) => match PayoutInterval::parse(&interval, weekly_anchor.as_deref(), monthly_anchor) {
            Ok(interval) => Some(interval),
            Err((field, invalid)) => return params.check(field, Err(invalid)),
        },
        None => {
            for (anchor, given) in
                [("weekly_anchor", weekly_anchor.is_some()), ("monthly_anchor", monthly_anchor.is_some())]
            {
                if given {
                    params.push(FieldError::invalid(anchor, "Send it only with the interval it anchors."));
                    return None;
                }
            }
            None
        }
    };
    Some((interval, destination))
}

/// A list's filters: `status`, and `created[gte]` / `created[lte]` in Unix seconds; and the page.
pub(crate) fn list_request(params: &mut Params) -> Option<(PayoutFilter, PageRequest)> {
    let page = page_request(params);
    let status = params.one_of("status", &PayoutStatus::ALL, PayoutStatus::as_str);
    let (created_from, created_to) = params
        .object("created", |range| {
            let from = range.integer_between("gte", Some(0), Some(LATEST_CREATED));
            let to = range.integer_between("lte", Some(0), Some(LATEST_CREATED));
            Some((from.map(Timestamp::from_unix_seconds), to.map(Timestamp::from_unix_seconds)))
        })
        .unwrap_or_default();
    Some((PayoutFilter { status, created_from, created_to }, page?))
}
