//! The hosted billing statement page, `/b/<client_secret>`: the merchant, the statement's number,
//! the customer, the line items and total, the due date ("overdue" after it) beside the shared
//! payment form (`payment_form`). Paying attaches the statement's intent as a browser would; once
//! paid (or voided, or marked uncollectible) the page shows that instead of the form.

use super::payment_form::{
    configure_page, in_flight, respond_with_form, status_page, Entered, PaymentForm, PaymentPage, Visit,
};
use crate::formatting::{long_date, pesos, statement_lines, StatementLine};
use crate::state::Services;
use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use askama::Template;
use payments_application::services::{AttachOutcome, AttachRequest, StatementPage};
use payments_application::ApplicationError;
use payments_domain::billing_statement::BillingStatementStatus;
use payments_domain::checkout_session::BillingDetailsCollection;
use payments_domain::description::Description;
use payments_domain::hosted_page::HostedPage;
use payments_domain::payment_intent::PaymentIntent;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    configure_page::<StatementPage>(config, &HostedPage::BillingStatement.route());
}

#[derive(Template)]
#[template(path = "billing_statement.html")]
struct StatementForm<'a> {
    test_mode: bool,
    merchant_name: &'a str,
    number: &'a str,
    customer_name: &'a str,
    customer_email: &'a str,
    due_date: String,
    overdue: bool,
    description: Option<&'a str>,
    items: Vec<StatementLine<'a>>,
    total: String,
    form: PaymentForm,
}

impl PaymentPage for StatementPage {
    fn load(services: &Services, secret: &str) -> Result<Self, ApplicationError> {
        services.billing_statements.page(secret)
    }

    fn pay(&self, services: &Services, request: AttachRequest) -> Result<AttachOutcome, ApplicationError> {
        services.billing_statements.pay(self, request)
    }

    fn intent(&self) -> Option<&PaymentIntent> {
        self.view.payment_intent.as_ref().map(|view| &view.intent)
    }

    fn completed(&self) -> bool {
        self.view.statement.status() == BillingStatementStatus::Paid
    }

    fn after_paid(&self, path: &str) -> String {
        path.to_owned()
    }

    fn payable(&self) -> bool {
        StatementPage::payable(self)
    }

    fn collection(&self) -> BillingDetailsCollection {
        self.view.statement.details().billing_details_collection
    }

    fn render(&self, visit: &Visit<'_>, entered: Entered, status: StatusCode) -> HttpResponse {
        let statement = &self.view.statement;
        let details = statement.details();
        let number = statement.finalization().map(|done| done.number.as_str()).unwrap_or_default();
        let total = pesos(statement.amount());
        let test_mode = !statement.livemode();
        let closed =
            |heading: &str, text: &str| status_page(StatusCode::GONE, test_mode, (heading, text), &total, None);
        match statement.status() {
            BillingStatementStatus::Paid => {
                let text = format!("Billing statement {number} is paid. Thank you: your payment was received.");
                return status_page(StatusCode::OK, test_mode, ("Paid", &text), &total, None);
            }
            BillingStatementStatus::Void => {
                let text = format!("{} voided billing statement {number}. Nothing is due.", self.view.merchant_name);
                return closed("This statement was voided", &text);
            }
            BillingStatementStatus::Uncollectible => {
                let text =
                    format!("Billing statement {number} is closed. Contact {} about it.", self.view.merchant_name);
                return closed("This statement is closed", &text);
            }
            BillingStatementStatus::Draft | BillingStatementStatus::Open => {}
        }
        if let Some(page) = self.intent().and_then(|intent| in_flight(intent, test_mode, &total)) {
            return page;
        }
        let items = statement_lines(statement);
        let customer = &self.view.customer;
        let render = |form| {
            StatementForm {
                test_mode,
                merchant_name: &self.view.merchant_name,
                number,
                customer_name: customer.name.as_str(),
                customer_email: customer.email.as_str(),
                due_date: details.due_at.map(long_date).unwrap_or_default(),
                overdue: self.overdue,
                description: details.description.as_ref().map(Description::as_str),
                items,
                total: total.clone(),
                form,
            }
            .render()
        };
        let button = format!("Pay {total}");
        respond_with_form(
            visit,
            &details.payment_methods,
            details.billing_details_collection,
            &entered,
            button,
            (status, render),
        )
    }
}
