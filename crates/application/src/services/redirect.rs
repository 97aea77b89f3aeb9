//! What payment intents and setup intents share about the customer's side: the test authorization
//! page they redirect to, and the client secret a browser proves itself with.

use crate::error::ApplicationError;
use crate::ports::IdGenerator;
use payments_domain::account::Mode;
use payments_domain::hosted_page::HostedPage;
use payments_domain::ids::ClientSecret;
use payments_domain::payment_intent::PaymentError;
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::redirect_url::RedirectUrl;
use payments_domain::validation::FieldError;

/// Length of the secret token of a redirect page.
pub(crate) const REDIRECT_TOKEN_LENGTH: usize = 40;

/// How the caller proves it may see or use an intent.
#[derive(Debug, Clone, Copy)]
pub enum Access<'a> {
    /// A secret key: everything.
    SecretKey,
    /// A public key with the intent's client secret.
    ClientSecret(Option<&'a str>),
}

impl Access<'_> {
    /// Whether the customer is present (a browser with the client secret) rather than the merchant
    /// alone.
    #[must_use]
    pub fn customer_present(&self) -> bool {
        matches!(self, Self::ClientSecret(_))
    }
}

/// Refuses `url`, given as `parameter`, where the scope's mode may not send a customer (a plain
/// `http` URL in live mode).
pub(crate) fn check_redirect_url(
    scope: &crate::scope::Scope,
    parameter: &str,
    url: Option<&RedirectUrl>,
) -> Result<(), ApplicationError> {
    match url {
        Some(url) => {
            url.allowed_in(scope.livemode()).map_err(|invalid| ApplicationError::invalid(invalid.at(parameter)))
        }
        None => Ok(()),
    }
}

/// What the test authorization page shows.
#[derive(Debug, Clone)]
pub struct RedirectPage {
    pub intent_id: String,
    /// The amount to pay; `None` when a card is being saved, not charged.
    pub amount: Option<i64>,
    pub currency: &'static str,
    pub method: PaymentMethodType,
    pub description: Option<String>,
    /// The page's own address (what a QR Ph code encodes in the simulator).
    pub redirect_url: String,
}

/// Where the customer goes after the test authorization page.
#[derive(Debug, Clone)]
pub struct RedirectCompletion {
    pub return_url: Option<String>,
    /// The query parameter that carries the client secret back to the merchant's page:
    /// `payment_intent_client_secret` or `setup_intent_client_secret`.
    pub client_secret_parameter: &'static str,
    pub client_secret: String,
    pub succeeded: bool,
    pub error: Option<PaymentError>,
    /// The page had already been used (a double submission, or a lost race): this is how the
    /// intent stands now, and nothing was changed.
    pub already_used: bool,
    /// The intent still awaits the customer's action (a live customer back before the processor
    /// decided): not failed, not finished.
    pub awaiting_customer: bool,
}

/// A new test authorization page (token, URL) in test mode; live mode has no such page.
pub(crate) fn test_redirect(ids: &dyn IdGenerator, public_base_url: &str, mode: Mode) -> Option<(String, String)> {
    match mode {
        Mode::Test => {
            let token = ids.alphanumeric(REDIRECT_TOKEN_LENGTH);
            let url = HostedPage::TestAuthorization.url(public_base_url, &token);
            Some((token, url))
        }
        Mode::Live => None,
    }
}

/// Whether `token` has the shape this service issues (only those are looked up).
pub(crate) fn well_formed_token(token: &str) -> Result<(), ApplicationError> {
    if token.len() == REDIRECT_TOKEN_LENGTH && token.bytes().all(|b| b.is_ascii_alphanumeric()) {
        Ok(())
    } else {
        Err(unknown_token())
    }
}

pub(crate) fn unknown_token() -> ApplicationError {
    ApplicationError::NotFound { resource: "test authorization", id: "this link".to_owned() }
}

/// Checks a caller's access to an intent whose client secret is `secret`; `resource` names it in
/// the error ("payment intent", "setup intent").
pub(crate) fn check_client_secret(
    secret: &ClientSecret,
    access: Access<'_>,
    resource: &str,
) -> Result<(), ApplicationError> {
    let parameter = "client_secret";
    match access {
        Access::SecretKey => Ok(()),
        Access::ClientSecret(None) => Err(ApplicationError::invalid(FieldError::required(parameter))),
        Access::ClientSecret(Some(presented)) if secret.matches(presented) => Ok(()),
        Access::ClientSecret(Some(_)) => Err(ApplicationError::invalid(FieldError::invalid(
            parameter,
            format!("The client secret does not match this {resource}."),
        ))),
    }
}
