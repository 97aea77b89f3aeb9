//! The hosted checkout page, `/c/<client_secret>`: the session's line items and total beside the
//! shared payment form (`payment_form`). Paying attaches the session's intent as a browser would;
//! redirects (3-D Secure, e-wallets) come back to this page, which then sends the customer on to
//! `success_url`. Works without JavaScript.

use super::payment_form::{
    configure_page, in_flight, respond_with_form, status_page, Entered, PaymentForm, PaymentPage, Visit,
};
use crate::formatting::pesos;
use crate::state::Services;
use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use askama::Template;
use payments_application::services::{AttachOutcome, AttachRequest, CheckoutPage};
use payments_application::ApplicationError;
use payments_domain::checkout_session::{BillingDetailsCollection, CheckoutSessionStatus};
use payments_domain::description::Description;
use payments_domain::hosted_page::HostedPage;
use payments_domain::payment_intent::PaymentIntent;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    configure_page::<CheckoutPage>(config, &HostedPage::Checkout.route());
}

struct ItemLine<'a> {
    name: &'a str,
    description: Option<&'a str>,
    image: &'a str,
    quantity: i64,
    unit_price: String,
    line_total: String,
}

#[derive(Template)]
#[template(path = "checkout.html")]
struct CheckoutForm<'a> {
    test_mode: bool,
    description: Option<&'a str>,
    items: Vec<ItemLine<'a>>,
    total: String,
    cancel_url: &'a str,
    form: PaymentForm,
}

impl PaymentPage for CheckoutPage {
    fn load(services: &Services, secret: &str) -> Result<Self, ApplicationError> {
        services.checkout_sessions.page(secret)
    }

    fn pay(&self, services: &Services, request: AttachRequest) -> Result<AttachOutcome, ApplicationError> {
        services.checkout_sessions.pay(self, request)
    }

    fn intent(&self) -> Option<&PaymentIntent> {
        Some(&self.view.payment_intent.intent)
    }

    fn completed(&self) -> bool {
        self.view.session.status() == CheckoutSessionStatus::Completed
    }

    fn after_paid(&self, _path: &str) -> String {
        self.view.session.success_url()
    }

    fn payable(&self) -> bool {
        self.payable
    }

    fn collection(&self) -> BillingDetailsCollection {
        self.view.session.details().billing_details_collection
    }

    fn render(&self, visit: &Visit<'_>, entered: Entered, status: StatusCode) -> HttpResponse {
        let session = &self.view.session;
        let details = session.details();
        let total = pesos(details.amount.centavos());
        let test_mode = !session.livemode();
        if self.completed() {
            let success_url = session.success_url();
            let text = ("Paid", "Thank you: your payment was received.");
            return status_page(
                StatusCode::OK,
                test_mode,
                text,
                &total,
                Some((&success_url, "Return to the merchant")),
            );
        }
        if !self.payable {
            let link = Some((details.cancel_url.as_str(), "Return to the merchant"));
            let text = "This checkout session has expired and can no longer be paid. Nothing was charged.";
            return status_page(StatusCode::GONE, test_mode, ("This payment page has expired", text), &total, link);
        }
        if let Some(page) = in_flight(&self.view.payment_intent.intent, test_mode, &total) {
            return page;
        }
        let items = details
            .line_items
            .iter()
            .map(|item| ItemLine {
                name: &item.name,
                description: item.description.as_ref().map(Description::as_str),
                image: item.image.as_deref().unwrap_or("/assets/item.svg"),
                quantity: item.quantity,
                unit_price: pesos(item.amount),
                line_total: pesos(item.total().unwrap_or(i64::MAX)),
            })
            .collect();
        let button = format!("{} {total}", details.submit_type.verb());
        let render = |form| {
            CheckoutForm {
                test_mode,
                description: details.description.as_ref().map(Description::as_str),
                items,
                total: total.clone(),
                cancel_url: details.cancel_url.as_str(),
                form,
            }
            .render()
        };
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
