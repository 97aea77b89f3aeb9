//! An account's live processor: which connector its live payments go through, where the processor
//! is, and the keys it gave the merchant. The secret key and the webhook secret are secrets: they
//! are kept only sealed (encrypted by a key of the service's settings), and are never shown, logged
//! or exported. The publishable key is not secret: the payment element's frame tokenizes cards with
//! it in the browser. Whether the processor answered the last call is kept, for the console.

use crate::ids::{AccountId, ConnectorAccountId};
use crate::time::Timestamp;
use crate::validation::FieldError;
use std::fmt;

/// The connectors a live account can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectorKind {
    /// A processor with Stripe's API (Stripe itself, or an emulator of it).
    Stripe,
}

impl ConnectorKind {
    pub const ALL: [Self; 1] = [Self::Stripe];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stripe => "stripe",
        }
    }

    /// How the processor's publishable keys start (a secret key starts otherwise).
    #[must_use]
    pub fn publishable_key_prefix(self) -> &'static str {
        match self {
            Self::Stripe => "pk_",
        }
    }

    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }
}

/// The keys a processor gave the merchant that must stay secret.
#[derive(Clone, PartialEq, Eq)]
pub struct ConnectorSecrets {
    pub secret_key: String,
    /// What the processor signs its webhooks with.
    pub webhook_secret: String,
}

impl fmt::Debug for ConnectorSecrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ConnectorSecrets { .. }")
    }
}

/// The longest key or address taken.
pub const MAX_SETTING_LENGTH: usize = 500;

/// What the operator sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectorSetup {
    pub kind: ConnectorKind,
    /// The processor's API, `https://…` (or `http://` on loopback, for an emulator).
    pub api_base_url: String,
    pub publishable_key: String,
    pub secrets: ConnectorSecrets,
}

impl ConnectorSetup {
    /// Checks what the operator sent.
    ///
    /// # Errors
    /// The fields that are empty, too long, or not a processor's address.
    pub fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut errors = Vec::new();
        let fields = [
            ("secret_key", self.secrets.secret_key.as_str()),
            ("webhook_secret", self.secrets.webhook_secret.as_str()),
            ("publishable_key", self.publishable_key.as_str()),
            ("api_base_url", self.api_base_url.as_str()),
        ];
        for (name, value) in fields {
            if value.trim().is_empty() || value.len() > MAX_SETTING_LENGTH || value.chars().any(char::is_control) {
                errors.push(FieldError::invalid(
                    name,
                    format!(
                        "Give the processor's {name}: 1 to {MAX_SETTING_LENGTH} characters, no control characters."
                    ),
                ));
            }
        }
        if !is_processor_address(&self.api_base_url) {
            errors.push(FieldError::invalid(
                "api_base_url",
                "The processor's address is https://host[:port][/path], or http:// on this machine (127.0.0.1, \
                 for an emulator), with no query, fragment, spaces or quotes.",
            ));
        }
        // The publishable key is shown to every customer's browser: a secret key there would be
        // published.
        if !self.publishable_key.starts_with(self.kind.publishable_key_prefix()) {
            errors.push(FieldError::invalid(
                "publishable_key",
                format!(
                    "The processor's publishable key starts with {}; a secret key is never shown to browsers.",
                    self.kind.publishable_key_prefix()
                ),
            ));
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

/// `https://host…`, or `http://127.0.0.1…` / `http://localhost…` for an emulator on this machine:
/// a scheme, a host, a port and a path only, in plain characters (it is named in the payment
/// element's policy, and paths are added to it).
fn is_processor_address(url: &str) -> bool {
    let loopback = ["http://127.0.0.1", "http://localhost"];
    let scheme_ok = (url.starts_with("https://") && url.len() > "https://".len())
        || loopback
            .iter()
            .any(|start| url.strip_prefix(start).is_some_and(|rest| rest.is_empty() || rest.starts_with([':', '/'])));
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '/' | '_' | '~' | '[' | ']');
    scheme_ok && url.chars().all(plain)
}

/// How the processor answered the connector's last call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastCall {
    /// It answered (a refusal is an answer); `false`: not reached, or no answer.
    pub answered: bool,
    pub at: Timestamp,
}

/// [`ConnectorSecrets`] sealed: what is stored of them.
#[derive(Clone, PartialEq, Eq)]
pub struct SealedSecrets(pub Vec<u8>);

impl fmt::Debug for SealedSecrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SealedSecrets({} bytes)", self.0.len())
    }
}

/// An account's live connector, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectorAccount {
    /// Unguessable: the processor's webhooks for the account come to an address made from it.
    pub id: ConnectorAccountId,
    pub account_id: AccountId,
    pub kind: ConnectorKind,
    pub api_base_url: String,
    pub publishable_key: String,
    pub secrets: SealedSecrets,
    pub last_call: Option<LastCall>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl ConnectorAccount {
    /// A connector the operator set up at `now`, its secrets sealed.
    #[must_use]
    pub fn new(
        id: ConnectorAccountId,
        account_id: AccountId,
        setup: &ConnectorSetup,
        secrets: SealedSecrets,
        now: Timestamp,
    ) -> Self {
        Self {
            id,
            account_id,
            kind: setup.kind,
            api_base_url: setup.api_base_url.clone(),
            publishable_key: setup.publishable_key.clone(),
            secrets,
            last_call: None,
            created_at: now,
            updated_at: now,
        }
    }
}

/// Where a customer's browser sends a live card to be tokenized, with the connector's publishable
/// key: the card goes from the browser straight to the processor, and only the processor's token
/// reaches the service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardTokenizer {
    /// The processor's address the card is posted to.
    pub url: String,
    /// That address's origin (`https://host[:port]`), which the payment element's frame may reach.
    pub origin: String,
    pub publishable_key: String,
}

/// The processor's own script, which finishes a customer's authentication (3-D Secure) in the
/// browser when the processor offers no page to send the customer to (Stripe's `use_stripe_sdk`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthenticationScript {
    /// The script's address.
    pub url: String,
    /// The origins the script is loaded from, calls and frames (as Stripe's guide to content
    /// security policies lists them), which the page's policy names.
    pub script_origins: Vec<String>,
    pub connect_origins: Vec<String>,
    pub frame_origins: Vec<String>,
    pub publishable_key: String,
}

/// Stripe's API, whose script is served from its own origin.
const STRIPE_API_ORIGIN: &str = "https://api.stripe.com";

impl ConnectorAccount {
    /// Where a browser tokenizes a card for this connector: a Stripe-API processor takes it at
    /// `/v1/tokens` with the publishable key (as Stripe.js does). `None` for an address whose
    /// origin is not plainly a scheme and a host, which no page's policy may name.
    #[must_use]
    pub fn card_tokenizer(&self) -> Option<CardTokenizer> {
        let (base, origin) = self.plain_base_and_origin()?;
        let url = match self.kind {
            ConnectorKind::Stripe => format!("{base}/v1/tokens"),
        };
        Some(CardTokenizer { url, origin, publishable_key: self.publishable_key.clone() })
    }

    /// The processor's script that finishes an authentication in the customer's browser: Stripe.js
    /// from `js.stripe.com` for Stripe's API (with the frames its guide to policies names), or from
    /// the processor's own address under `/js.stripe.com/v3/` for another Stripe-API server (as
    /// localstripe serves it). `None` for an address that is not plainly a scheme and a host.
    #[must_use]
    pub fn authentication_script(&self) -> Option<AuthenticationScript> {
        let (base, origin) = self.plain_base_and_origin()?;
        let publishable_key = self.publishable_key.clone();
        Some(match self.kind {
            ConnectorKind::Stripe if origin == STRIPE_API_ORIGIN => {
                let js = ["https://js.stripe.com", "https://*.js.stripe.com"].map(str::to_owned);
                AuthenticationScript {
                    url: "https://js.stripe.com/v3/".to_owned(),
                    script_origins: js.to_vec(),
                    connect_origins: vec![origin],
                    frame_origins: [js.as_slice(), &["https://hooks.stripe.com".to_owned()]].concat(),
                    publishable_key,
                }
            }
            ConnectorKind::Stripe => AuthenticationScript {
                url: format!("{base}/js.stripe.com/v3/"),
                script_origins: vec![origin.clone()],
                connect_origins: vec![origin.clone()],
                frame_origins: vec![origin],
                publishable_key,
            },
        })
    }

    /// The processor's address without a trailing `/`, and its origin (`https://host[:port]`), when
    /// the origin is plainly a scheme and a host.
    fn plain_base_and_origin(&self) -> Option<(&str, String)> {
        let base = self.api_base_url.trim_end_matches('/');
        let (scheme, rest) = base.split_once("://")?;
        let host = rest.split('/').next()?;
        let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']');
        if host.is_empty() || !host.chars().all(plain) || !matches!(scheme, "https" | "http") {
            return None;
        }
        Some((base, format!("{scheme}://{host}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_is_tokenized_at_the_processors_origin_with_the_publishable_key() {
        let stripe = connector("https://api.stripe.com/").card_tokenizer().unwrap();
        assert_eq!(
            stripe,
            CardTokenizer {
                url: "https://api.stripe.com/v1/tokens".into(),
                origin: "https://api.stripe.com".into(),
                publishable_key: "pk_live_1".into(),
            }
        );
        let emulator = connector("http://127.0.0.1:8420/base").card_tokenizer().unwrap();
        assert_eq!(
            (emulator.url.as_str(), emulator.origin.as_str()),
            ("http://127.0.0.1:8420/base/v1/tokens", "http://127.0.0.1:8420")
        );
        assert_eq!(connector("https://evil.example; script-src *").card_tokenizer(), None);
    }

    #[test]
    fn stripe_js_comes_from_stripe_or_from_the_emulator_that_stands_for_it() {
        let stripe = connector("https://api.stripe.com").authentication_script().unwrap();
        assert_eq!(
            (stripe.url.as_str(), stripe.script_origins.as_slice(), stripe.connect_origins.as_slice()),
            (
                "https://js.stripe.com/v3/",
                ["https://js.stripe.com", "https://*.js.stripe.com"].map(String::from).as_slice(),
                ["https://api.stripe.com".to_owned()].as_slice()
            )
        );
        assert_eq!(
            stripe.frame_origins,
            ["https://js.stripe.com", "https://*.js.stripe.com", "https://hooks.stripe.com"]
        );
        let emulator = connector("http://127.0.0.1:8420/").authentication_script().unwrap();
        assert_eq!(
            (emulator.url.as_str(), emulator.script_origins.as_slice(), emulator.publishable_key.as_str()),
            ("http://127.0.0.1:8420/js.stripe.com/v3/", ["http://127.0.0.1:8420".to_owned()].as_slice(), "pk_live_1")
        );
        assert_eq!(connector("https://evil.example 'unsafe-inline'").authentication_script(), None);
    }

    fn connector(api_base_url: &str) -> ConnectorAccount {
        let id = ConnectorAccountId::from_random("0VcKRLxCJeUzS3dfAVJZjOW6tPNtjH8b");
        let account = AccountId::from_random("0VcKRLxAcctUzS3dfAVJZjOW6tPNtjH8");
        let setup = setup(api_base_url, "sk_live_1");
        ConnectorAccount::new(id, account, &setup, SealedSecrets(vec![]), Timestamp::from_unix_seconds(0))
    }

    fn setup(api_base_url: &str, secret_key: &str) -> ConnectorSetup {
        ConnectorSetup {
            kind: ConnectorKind::Stripe,
            api_base_url: api_base_url.to_owned(),
            publishable_key: "pk_live_1".to_owned(),
            secrets: ConnectorSecrets { secret_key: secret_key.to_owned(), webhook_secret: "whsec_1".to_owned() },
        }
    }

    #[test]
    fn a_setup_names_a_processor_and_its_keys() {
        assert_eq!(setup("https://api.stripe.com", "sk_live_1").validate(), Ok(()));
        assert_eq!(setup("http://127.0.0.1:8420", "sk_live_1").validate(), Ok(()));
        let fields = |setup: ConnectorSetup| -> Vec<String> {
            setup.validate().unwrap_err().into_iter().map(|error| error.parameter).collect()
        };
        assert_eq!(fields(setup("http://api.example.com", "sk")), ["api_base_url"]);
        assert_eq!(fields(setup("https://", "sk")), ["api_base_url"]);
        assert_eq!(fields(setup("https://api.stripe.com", " ")), ["secret_key"]);
        assert_eq!(fields(setup("https://api.stripe.com", "sk\n1")), ["secret_key"]);
        assert_eq!(fields(setup("https://api.stripe.com", &"k".repeat(501))), ["secret_key"]);
        for address in [
            "http://127.0.0.1:28878 'unsafe-inline'",
            "http://127.0.0.1:28878;script-src *",
            "https://*.evil.example",
            "http://127.0.0.1:28878/v1?x=1#y",
            "http://127.0.0.1.evil.example",
        ] {
            assert_eq!(fields(setup(address, "sk_live_1")), ["api_base_url"], "{address}");
        }
        assert_eq!(setup("http://localhost/stripe", "sk_live_1").validate(), Ok(()));
        for published in ["sk_live_abcdef", "rk_live_x", "whsec_1"] {
            let mut secret_shown = setup("https://api.stripe.com", "sk_live_1");
            secret_shown.publishable_key = published.to_owned();
            assert_eq!(fields(secret_shown), ["publishable_key"], "{published}");
        }
    }

    #[test]
    fn secrets_never_show_in_debug_output() {
        let shown = format!("{:?}", setup("https://api.stripe.com", "sk_live_very_secret"));
        assert!(!shown.contains("very_secret") && !shown.contains("whsec_1"), "{shown}");
    }
}
