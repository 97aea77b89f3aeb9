//! Payouts in the console: the payouts list, one payout with its last transactions linked to their
//! payments and refunds (one read), and all its transactions as CSV for reconciliation, streamed a
//! read at a time with the payment each line comes from.

use super::csv_file::{spreadsheet_safe, Rows};
use super::json::to_html;
use super::table::{list_page, object_page, Cell, Filter, Object, Table};
use super::{date_time, load, refused, Chrome, Signed};
use crate::representation::payout::PayoutResource;
use crate::routes::payout::list_request;
use crate::state::{blocking, Services};
use actix_web::web::Bytes;
use actix_web::{web, HttpRequest, HttpResponse};
use payments_application::ports::ReconciliationLine;
use payments_application::{ApplicationError, Scope};
use payments_domain::ids::PayoutTransactionId;
use payments_domain::payout::{BankAccount, Payout, PayoutStatus};

/// The payouts list.
pub(super) const LIST: &str = "/dashboard/payouts";
/// Lines of one payout its page shows at most, the last first (its CSV has them all).
const LINES_SHOWN: u32 = 100;
/// Lines the CSV export reads at once.
const LINES_PER_READ: u32 = 1_000;
/// The CSV's columns: the line's, as PayRex's payout transactions have them, then what a merchant
/// reconciles an order by.
const CSV_COLUMNS: [&str; 10] = [
    "id",
    "transaction_type",
    "transaction_id",
    "amount",
    "net_amount",
    "created_at",
    "payment_id",
    "payment_description",
    "payment_metadata",
    "customer_email",
];

pub(super) fn configure(config: &mut web::ServiceConfig) {
    super::pages(config, LIST, list, detail);
    super::one_page(config, &format!("{LIST}/{{id}}/transactions.csv"), csv);
}

fn row(payout: &Payout) -> Vec<Cell> {
    let destination = payout.destination();
    vec![
        Cell::pesos(payout.net_amount().get()),
        Cell::status(payout.status()),
        Cell::id(payout.id().as_str()),
        Cell::pesos(payout.amount().get()),
        Cell::text(format!("{} ····{}", destination.bank_name(), last4(destination.account_number()))),
        Cell::text(date_time(payout.created_at())),
    ]
}

/// A bank account as a fact: its name, bank and number.
pub(super) fn bank_account(destination: &BankAccount) -> Cell {
    Cell::text(format!(
        "{} · {} · {}",
        destination.account_name(),
        destination.bank_name(),
        destination.account_number()
    ))
}

fn last4(number: &str) -> &str {
    &number[number.len().saturating_sub(4)..]
}

/// A table of payouts, as the list and the balance's page show them.
pub(super) fn payouts_table(payouts: &[Payout]) -> Table {
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
    list_page(Chrome::new(&signed, "Payouts"), "Payouts", LIST, filters, payouts_table(&payouts), pager)
}

async fn detail(signed: Signed, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let scope = signed.scope();
    let id = id.into_inner();
    let page = match load(move || services.payouts.page(&scope, &id, LINES_SHOWN)).await {
        Ok(page) => page,
        Err(response) => return response,
    };
    let payout = &page.payout;
    let destination = payout.destination();
    let csv = format!("{LIST}/{}/transactions.csv", payout.id());
    let count = if page.more {
        format!("the last {} shown · download all as CSV", page.lines.len())
    } else {
        format!("{} · download CSV", page.lines.len())
    };
    let mut facts = vec![
        ("Made", Cell::text(date_time(payout.created_at()))),
        ("Gross", Cell::pesos(payout.amount().get())),
        ("Bank account", bank_account(destination)),
        ("Transactions", Cell::linked(count, csv)),
    ];
    if let Some(code) = payout.failure_code() {
        facts.push(("Returned by the bank", Cell::text(code)));
    }
    let rows = page
        .lines
        .iter()
        .map(|line| {
            vec![
                Cell::text(line.source.transaction_type().as_str()),
                Cell::id(line.source.id()),
                Cell::pesos(line.amount.get()),
                Cell::pesos(line.net_amount.get()),
            ]
        })
        .collect();
    let transactions = Table { headers: vec!["Type", "Transaction", "Amount", "Net"], rows };
    let json = serde_json::to_value(PayoutResource::new(payout)).unwrap_or_default();
    object_page(
        Chrome::new(&signed, "Payouts"),
        Object {
            back: ("Payouts", LIST.to_owned()),
            heading: crate::formatting::pesos(payout.net_amount().get()),
            status: Some(Cell::status(payout.status())),
            id: payout.id().to_string(),
            notice: None,
            facts,
            actions: Vec::new(),
            sections: vec![("Transactions", transactions)],
            json: to_html(&json),
        },
    )
}

/// A payout's lines as CSV, the first made first: streamed a read of [`LINES_PER_READ`] lines at a
/// time, so a payout of any size costs the service one read's memory.
async fn csv(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let scope = signed.scope();
    let id = request.match_info().get("id").unwrap_or_default().to_owned();
    // The first read answers a payout that is not there with the console's page, before any byte
    // of the file.
    let first = {
        let (services, scope, id) = (services.clone(), scope.clone(), id.clone());
        load(move || services.payouts.reconciliation(&scope, &id, None, LINES_PER_READ)).await
    };
    let first = match first {
        Ok(first) => first,
        Err(response) => return response,
    };
    let header_and_first = match csv_rows(&first, true) {
        Ok(bytes) => bytes,
        Err(error) => return refused(&crate::error::ApiError::from(error), LIST),
    };
    let file_name = format!("{id}-transactions.csv");
    let after = cursor_after(&first);
    super::csv_file::download(&file_name, header_and_first, after, move |after| {
        let (services, scope, id) = (services.clone(), scope.clone(), id.clone());
        async move {
            let lines = next_lines(services, scope, id, after).await?;
            Ok((csv_rows(&lines, false)?, cursor_after(&lines)))
        }
    })
}

/// Where the next read starts, after a full read.
fn cursor_after(lines: &[ReconciliationLine]) -> Option<PayoutTransactionId> {
    (lines.len() == LINES_PER_READ as usize).then(|| lines.last().map(|last| last.line.id.clone())).flatten()
}

/// The lines after `after`, one read.
async fn next_lines(
    services: web::Data<Services>,
    scope: Scope,
    id: String,
    after: PayoutTransactionId,
) -> Result<Vec<ReconciliationLine>, crate::error::ApiError> {
    blocking(move || services.payouts.reconciliation(&scope, &id, Some(&after), LINES_PER_READ)).await
}

/// `lines` as CSV rows (after the header, when `with_header`).
fn csv_rows(lines: &[ReconciliationLine], with_header: bool) -> Result<Bytes, ApplicationError> {
    let mut rows = Rows::new();
    if with_header {
        rows.write(CSV_COLUMNS)?;
    }
    for ReconciliationLine { line, payment } in lines {
        let metadata = payment
            .as_ref()
            .and_then(|payment| payment.metadata.as_ref())
            .map(|metadata| serde_json::to_string(metadata).unwrap_or_default());
        rows.write([
            line.id.to_string(),
            line.source.transaction_type().as_str().to_owned(),
            line.source.id().to_owned(),
            line.amount.to_string(),
            line.net_amount.to_string(),
            line.created_at.unix_seconds().to_string(),
            payment.as_ref().map(|payment| payment.id.to_string()).unwrap_or_default(),
            spreadsheet_safe(payment.as_ref().and_then(|payment| payment.description.clone())),
            spreadsheet_safe(metadata),
            spreadsheet_safe(payment.as_ref().and_then(|payment| payment.customer_email.clone())),
        ])?;
    }
    rows.into_bytes()
}
