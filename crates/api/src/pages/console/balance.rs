//! The balance in the console: what is available and pending, the next payout and where it goes,
//! the latest payouts, and, where the merchant may (the domain says: test mode), the forms that
//! change the schedule and the bank account. One read.

use super::json::to_html;
use super::payout::{bank_account, payouts_table, LIST};
use super::table::{object_page, ActionForm, Cell, Field, Object};
use super::{date_time, load, refused, Action, Chrome, Signed};
use crate::representation::balance::{BalanceResource, ScheduleResource};
use crate::routes::payout::schedule_change;
use crate::state::Services;
use actix_web::{web, HttpRequest, HttpResponse};
use payments_application::ports::KnownAccount;
use payments_domain::error::DomainError;
use payments_domain::payout::{BankOutcome, PayoutInterval, PayoutSchedule, ScheduleEditor, PAYOUT_TIME};

/// The balance's page.
pub(super) const BALANCE: &str = "/dashboard/balance";
/// The latest payouts the page lists.
const LATEST_PAYOUTS: u32 = 5;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    super::one_page(config, BALANCE, balance);
    super::form(config, format!("{BALANCE}/schedule"), change_schedule);
}

async fn balance(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let scope = signed.scope();
    let livemode = scope.livemode();
    let page = match load(move || services.balance.page(&scope, LATEST_PAYOUTS)).await {
        Ok(page) => page,
        Err(response) => return response,
    };
    let view = &page.view;
    let mut facts = vec![
        ("Available", Cell::pesos(view.balance.available.get())),
        ("Pending", Cell::pesos(view.balance.pending.get())),
    ];
    if let Some(schedule) = &view.schedule {
        let held = || format!("none: {}", schedule.held_because().unwrap_or("not scheduled"));
        let next = schedule.next_payout_at.map_or_else(held, date_time);
        facts.push(("Next payout", Cell::text(next)));
        let interval = schedule.interval;
        let anchor =
            interval.weekly_anchor().map(str::to_owned).or(interval.monthly_anchor().map(|day| format!("day {day}")));
        let every = anchor.map_or_else(|| interval.as_str().to_owned(), |on| format!("{} ({on})", interval.as_str()));
        facts.push(("Schedule", Cell::text(every)));
        facts.push(("Bank account", bank_account(&schedule.destination)));
        if let Err(DomainError::Invalid(refused)) = schedule.may_be_changed_by(ScheduleEditor::Merchant) {
            facts.push(("Changes", Cell::text(refused.detail)));
        }
    }
    object_page(
        Chrome::new(&signed, "Balance"),
        Object {
            back: ("Payouts", LIST.to_owned()),
            heading: crate::formatting::pesos(view.balance.available.get()),
            status: None,
            id: "balance".to_owned(),
            notice: Some(match request.query_string() {
                "done=scheduled" => "Schedule saved.",
                _ => "Available is what the next payout takes; pending is paid payments still settling.",
            }),
            facts,
            actions: view
                .schedule
                .as_ref()
                .filter(|schedule| schedule.may_be_changed_by(ScheduleEditor::Merchant).is_ok())
                .map(|schedule| schedule_forms(schedule, &page.known_accounts))
                .unwrap_or_default(),
            sections: vec![("Latest payouts", payouts_table(&page.latest))],
            json: to_html(&serde_json::to_value(BalanceResource::new(view, livemode)).unwrap_or_default()),
        },
    )
}

/// The schedule's two forms: how often, and to which bank account. Each posts what the API's
/// `POST /test_helpers/payout_schedule` takes.
fn schedule_forms(schedule: &PayoutSchedule, known_accounts: &[KnownAccount]) -> Vec<ActionForm> {
    let field = |name, label, value: String| Field { name, label: Some(label), value };
    let interval = schedule.interval;
    let destination = &schedule.destination;
    vec![
        ActionForm {
            title: "Payout schedule",
            path: format!("{BALANCE}/schedule"),
            button: "Save schedule",
            class: "secondary",
            note: format!(
                "{} (a weekly one on a day, {}; a monthly one on a day {}). Payouts are made at {PAYOUT_TIME}.",
                capitalized(&PayoutInterval::names_in_words()),
                PayoutInterval::days_of_week(),
                PayoutInterval::days_of_month(),
            )
            .into(),
            fields: vec![
                field("interval", "Interval", interval.as_str().to_owned()),
                field("weekly_anchor", "Day of the week", interval.weekly_anchor().unwrap_or_default().to_owned()),
                field(
                    "monthly_anchor",
                    "Day of the month",
                    interval.monthly_anchor().map(|day| day.to_string()).unwrap_or_default(),
                ),
            ],
        },
        ActionForm {
            title: "Bank account",
            path: format!("{BALANCE}/schedule"),
            button: "Save bank account",
            class: "secondary",
            note: known_accounts_note(known_accounts).into(),
            fields: vec![
                field("bank_account[account_name]", "Account name", destination.account_name().to_owned()),
                field("bank_account[account_number]", "Account number", destination.account_number().to_owned()),
                field("bank_account[bank_name]", "Bank", destination.bank_name().to_owned()),
            ],
        },
    ]
}

/// What the rail's known accounts do (the test bank's), as the rail says.
fn known_accounts_note(known_accounts: &[KnownAccount]) -> String {
    let returned: Vec<String> = known_accounts
        .iter()
        .filter_map(|known| match &known.outcome {
            BankOutcome::Returned { code } => Some(format!("{} is returned ({code})", known.account_number)),
            BankOutcome::Deposited => None,
        })
        .collect();
    if returned.is_empty() {
        return "Payouts go to this account.".to_owned();
    }
    format!("In test mode, {}; any other account receives its payouts.", returned.join(", "))
}

fn capitalized(words: &str) -> String {
    let mut letters = words.chars();
    letters.next().map(|first| first.to_uppercase().chain(letters).collect()).unwrap_or_default()
}

/// A change of the schedule from either form, read as the API's test helper reads it.
async fn change_schedule(action: Action, services: web::Data<Services>) -> HttpResponse {
    let Action { signed, params } = action;
    let mut params = params.without_blanks();
    let change = schedule_change(&mut params);
    let (interval, destination) = match params.finish(change) {
        Ok(change) => change,
        Err(error) => return refused(&error, BALANCE),
    };
    let scope = signed.scope();
    super::act(BALANCE, "scheduled", move || {
        let schedule = services.payouts.change_schedule(&scope, ScheduleEditor::Merchant, interval, destination)?;
        Ok(serde_json::to_value(ScheduleResource::new(&schedule)).unwrap_or_default())
    })
    .await
}
