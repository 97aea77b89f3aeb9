//! Hosted pages, rendered on the server so they work without JavaScript.

mod test_authorization;

use actix_web::web;

/// Registers every page.
pub fn configure(config: &mut web::ServiceConfig) {
    test_authorization::configure(config);
}
