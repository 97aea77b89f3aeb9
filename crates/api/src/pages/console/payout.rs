//! The balance and payouts in the console: the balance (available, pending, the next payout and
//! where it goes, the latest payouts), the payouts list, one payout with its transactions linked to
//! their payments and refunds, and those transactions as CSV for reconciliation.

use super::json::to_html;
use super::table::{list_page, object_page, ActionForm, Cell, Field, Filter, Object, Table};
use super::{date_time, load, refused, Action, Chrome, Signed};
use crate::representation::balance::{BalanceResource, ScheduleResource};
use crate::representation::payout::PayoutResource;
use crate::routes::payout::{list_request, schedule_change};
use crate::state::Services;
use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use payments_application::pagination::{Page, PageRequest};
use payments_application::ports::PayoutFilter;
use payments_application::{ApplicationError, Scope};
use payments_domain::error::DomainError;
use payments_domain::payout::{
    BankOutcome, Payout, PayoutInterval, PayoutSchedule, PayoutStatus, PayoutTransaction, ScheduleEditor, PAYOUT_TIME,
    TEST_BANK_ACCOUNTS,
};

const LIST: &str = "/dashboard/payouts";
const BALANCE: &str = "/dashboard/balance";
/// Lines of one payout its page shows at most (its CSV has them all).
const LINES_SHOWN: usize = 10_000;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    super::pages(config, LIST, list, detail);
    config.service(web::resource(BALANCE).route(crate::routes::get_or_head().to(balance)));
    super::form(config, format!("{BALANCE}/schedule"), change_schedule);
    config
        .service(web::resource(format!("{LIST}/{{id}}/transactions.csv")).route(crate::routes::get_or_head().to(csv)));
}

fn row(payout: &Payout) -> Vec<Cell> {
    vec![
        Cell::pesos(payout.net_amount()),
        Cell::status(payout.status().as_str()),
        Cell::id(payout.id().as_str()),
        Cell::pesos(payout.amount()),
        Cell::text(format!("{} ····{}", payout.destination().bank_name, last4(&payout.destination().account_number))),
        Cell::text(date_time(payout.created_at())),
    ]
}

fn last4(number: &str) -> &str {
    &number[number.len().saturating_sub(4)..]
}

fn table(payouts: &[Payout]) -> Table {
    Table {
        headers: vec!["Net amount", "Status", "Payout", "Gross", "To", "Made"],
        rows: payouts.iter().map(row).collect(),
    }
}

async fn list(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let found = super::listed(
        &signed,
        &request,
        LIST,
        list_request,
        move |scope, filter, page| services.payouts.list(scope, filter, page),
        |payout| payout.id().as_str(),
    );
    let (query, payouts, pager) = match found.await {
        Ok(listed) => listed,
        Err(page) => return page,
    };
    let statuses = PayoutStatus::ALL.iter().map(|status| status.as_str()).collect();
    let filters = vec![Filter::choice(&query, "status", "Status", statuses)];
    list_page(Chrome::new(&signed, "Payouts"), "Payouts", LIST, filters, table(&payouts), pager)
}

/// The lines of the payout `id`, the last first: every one, or the first `at_most`. Also whether
/// more were left out.
fn lines_of(
    services: &Services,
    scope: &Scope,
    id: &str,
    at_most: Option<usize>,
) -> Result<(Vec<PayoutTransaction>, bool), ApplicationError> {
    let mut lines = Vec::new();
    let mut page =
        PageRequest::new(Some(i64::from(PageRequest::MAX_LIMIT)), None, None).map_err(ApplicationError::Validation)?;
    loop {
        let Page { data, has_more } = services.payouts.transactions(scope, id, &page)?;
        let last = data.last().map(|line| line.id.to_string());
        lines.extend(data);
        let full = at_most.is_some_and(|at_most| lines.len() >= at_most);
        match last {
            Some(last) if has_more && !full => {
                page = PageRequest::new(Some(i64::from(PageRequest::MAX_LIMIT)), Some(last), None)
                    .map_err(ApplicationError::Validation)?;
            }
            _ => return Ok((lines, has_more)),
        }
    }
}

async fn detail(signed: Signed, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let scope = signed.scope();
    let id = id.into_inner();
    let found = load(move || {
        let payout = services.payouts.retrieve(&scope, &id)?;
        let lines = lines_of(&services, &scope, &id, Some(LINES_SHOWN))?;
        Ok((payout, lines))
    });
    let (payout, (lines, more)) = match found.await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let destination = payout.destination();
    let mut facts = vec![
        ("Made", Cell::text(date_time(payout.created_at()))),
        ("Gross", Cell::pesos(payout.amount())),
        (
            "Bank account",
            Cell::text(format!(
                "{} · {} · {}",
                destination.account_name, destination.bank_name, destination.account_number
            )),
        ),
        (
            "Transactions",
            Cell::linked(
                if more {
                    format!("the last {} shown · download all as CSV", lines.len())
                } else {
                    format!("{} · download CSV", lines.len())
                },
                format!("{LIST}/{}/transactions.csv", payout.id()),
            ),
        ),
    ];
    if let Some(code) = payout.failure_code() {
        facts.push(("Returned by the bank", Cell::text(code)));
    }
    let rows = lines
        .iter()
        .map(|line| {
            vec![
                Cell::text(line.transaction_type.as_str()),
                Cell::id(line.transaction_id.as_str()),
                Cell::pesos(line.amount),
                Cell::pesos(line.net_amount),
            ]
        })
        .collect();
    let transactions = Table { headers: vec!["Type", "Transaction", "Amount", "Net"], rows };
    let json = serde_json::to_value(PayoutResource::new(&payout)).unwrap_or_default();
    object_page(
        Chrome::new(&signed, "Payouts"),
        Object {
            back: ("Payouts", LIST.to_owned()),
            heading: crate::formatting::pesos(payout.net_amount()),
            status: Some(Cell::status(payout.status().as_str())),
            id: payout.id().to_string(),
            notice: None,
            facts,
            actions: Vec::new(),
            sections: vec![("Transactions", transactions)],
            json: to_html(&json),
        },
    )
}

/// A payout's lines as CSV: one row per line, the columns PayRex's payout transactions have.
async fn csv(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let scope = signed.scope();
    let id = request.match_info().get("id").unwrap_or_default().to_owned();
    let file_name = format!("{id}-transactions.csv");
    let lines = match load(move || lines_of(&services, &scope, &id, None)).await {
        Ok((lines, _)) => lines,
        Err(response) => return response,
    };
    let mut text = String::from("id,transaction_type,transaction_id,amount,net_amount,created_at\r\n");
    for line in lines.iter().rev() {
        text.push_str(&format!(
            "{},{},{},{},{},{}\r\n",
            line.id,
            line.transaction_type.as_str(),
            line.transaction_id,
            line.amount,
            line.net_amount,
            line.created_at.unix_seconds()
        ));
    }
    HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((header::CONTENT_DISPOSITION, format!("attachment; filename=\"{file_name}\"")))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(text)
}

async fn balance(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let scope = signed.scope();
    let livemode = scope.livemode();
    let found = load(move || {
        let view = services.balance.retrieve(&scope)?;
        let latest = services.payouts.list(
            &scope,
            &PayoutFilter::default(),
            &PageRequest::new(Some(5), None, None).map_err(ApplicationError::Validation)?,
        )?;
        Ok((view, latest.data))
    });
    let (view, latest) = match found.await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let mut facts =
        vec![("Available", Cell::pesos(view.balance.available)), ("Pending", Cell::pesos(view.balance.pending))];
    if let Some(schedule) = &view.schedule {
        let held = || format!("none: {}", schedule.held_because().unwrap_or("not scheduled"));
        let next = schedule.next_payout_at.map_or_else(held, date_time);
        facts.push(("Next payout", Cell::text(next)));
        let interval = schedule.interval;
        let anchor =
            interval.weekly_anchor().map(str::to_owned).or(interval.monthly_anchor().map(|day| format!("day {day}")));
        let every = anchor.map_or_else(|| interval.as_str().to_owned(), |on| format!("{} ({on})", interval.as_str()));
        facts.push(("Schedule", Cell::text(every)));
        let destination = &schedule.destination;
        facts.push((
            "Bank account",
            Cell::text(format!(
                "{} · {} · {}",
                destination.account_name, destination.bank_name, destination.account_number
            )),
        ));
        if let Err(DomainError::Invalid(refused)) = schedule.may_be_changed_by(ScheduleEditor::Merchant) {
            facts.push(("Changes", Cell::text(refused.detail)));
        }
    }
    object_page(
        Chrome::new(&signed, "Balance"),
        Object {
            back: ("Payouts", LIST.to_owned()),
            heading: crate::formatting::pesos(view.balance.available),
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
                .map(schedule_forms)
                .unwrap_or_default(),
            sections: vec![("Latest payouts", table(&latest))],
            json: to_html(&serde_json::to_value(BalanceResource::new(&view, livemode)).unwrap_or_default()),
        },
    )
}

/// The schedule's two forms: how often, and to which bank account. Each posts what the operator
/// API's schedule change takes.
fn schedule_forms(schedule: &PayoutSchedule) -> Vec<ActionForm> {
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
            note: test_bank_accounts_note().into(),
            fields: vec![
                field("bank_account[account_name]", "Account name", destination.account_name.clone()),
                field("bank_account[account_number]", "Account number", destination.account_number.clone()),
                field("bank_account[bank_name]", "Bank", destination.bank_name.clone()),
            ],
        },
    ]
}

/// What the test bank accounts do, as the domain decides it.
fn test_bank_accounts_note() -> String {
    let returned: Vec<String> = TEST_BANK_ACCOUNTS
        .iter()
        .filter_map(|(number, outcome)| match outcome {
            BankOutcome::Returned { code, .. } => Some(format!("{number} is returned ({code})")),
            BankOutcome::Deposited => None,
        })
        .collect();
    format!("In test mode, {}; any other account receives its payouts.", returned.join(", "))
}

fn capitalized(words: &str) -> String {
    let mut letters = words.chars();
    letters.next().map(|first| first.to_uppercase().chain(letters).collect()).unwrap_or_default()
}

/// A change of the schedule from either form, read as the operator API reads it.
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
