//! Hosted pages, rendered on the server so they work without JavaScript.

mod billing_statement;
mod checkout;
mod console;
mod hosted;
pub(crate) mod mailbox;
mod page;
mod payment_form;
mod payrex_js;
mod processor_authentication;
mod processor_return;
mod reference;
mod test_authorization;

pub use reference::ApiReference;

use actix_web::web;

/// Registers every page; the developer console's when `console` is on.
pub fn configure(config: &mut web::ServiceConfig, console: bool) {
    hosted::configure(config);
    console::configure(config, console);
    checkout::configure(config);
    billing_statement::configure(config);
    mailbox::configure(config);
    test_authorization::configure(config);
    page::configure(config);
    processor_authentication::configure(config);
    processor_return::configure(config);
    reference::configure(config);
    payrex_js::configure(config);
}
