//! Where a customer's browser is sent back to the merchant: a payment or setup intent's
//! `return_url`, a checkout session's `success_url` and `cancel_url`.
//!
//! The service puts the URL in a `Location` header and a page's link as it was given, so it accepts
//! only text that every reader takes the same way ([`crate::absolute_url`]), with no user name or
//! password (a link that shows one host and opens another). Live mode needs `https`.

use crate::absolute_url;
use crate::validation::Invalid;

/// A URL a customer may be redirected to, exactly as the merchant gave it and as it was checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedirectUrl(String);

impl RedirectUrl {
    /// # Errors
    /// `parameter_invalid` saying what is wrong with the text.
    pub fn new(text: String) -> Result<Self, Invalid> {
        let url = absolute_url::parse(&text, "https:// (or http:// in test mode)")?;
        if !url.username().is_empty() || url.password().is_some() || authority_has_at(&text) {
            return Err(Invalid::value("The URL must not contain a user name or password."));
        }
        Ok(Self(text))
    }

    /// A URL this service made itself (its own hosted pages), or read back from storage, where it
    /// was stored after the check.
    #[must_use]
    pub fn trusted(text: String) -> Self {
        Self(text)
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether a customer may be sent here in a mode: live mode needs `https`.
    ///
    /// # Errors
    /// `parameter_invalid` for a plain `http` URL in live mode.
    pub fn allowed_in(&self, livemode: bool) -> Result<(), Invalid> {
        if livemode && !self.0.get(..8).is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://")) {
            return Err(Invalid::value("In live mode the URL must start with https://."));
        }
        Ok(())
    }
}

/// Whether the part of `text` between the scheme and the path names a user (an `@` there).
fn authority_has_at(text: &str) -> bool {
    let authority = text.split_once("://").map_or("", |(_, rest)| rest);
    authority[..authority.find(['/', '?', '#']).unwrap_or(authority.len())].contains('@')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_absolute_urls_are_kept_as_given() {
        for given in [
            "https://shop.example/done",
            "https://shop.example",
            "HTTPS://Shop.Example:8443/a/b?c=d&e=%20#f",
            "http://127.0.0.1:3000/return",
            "https://[::1]/done",
            "https://shop.example/success?session={CHECKOUT_SESSION_ID}",
        ] {
            assert_eq!(RedirectUrl::new(given.to_owned()).map(|url| url.0), Ok(given.to_owned()), "{given}");
        }
    }

    #[test]
    fn ambiguous_or_unsafe_text_is_refused_with_the_reason() {
        for (given, reason) in [
            ("https://shop.example/done\n", "control character (U+000A)"),
            ("https://shop.example/\r\nSet-Cookie: a=b", "control character (U+000D)"),
            ("https://shop.example/\u{7f}", "control character (U+007F)"),
            ("https://shop.example/a b", "a space"),
            ("https://shop.example\\@evil.example/", "a backslash"),
            ("https:\\\\evil.example/", "a backslash"),
            ("https://shop.example/caf\u{e9}", "outside printable ASCII"),
            ("http:evil.example", "starting with https://"),
            ("https:/evil.example", "starting with https://"),
            ("//evil.example/", "starting with https://"),
            ("javascript://shop.example/%0Aalert(1)", "starting with https://"),
            ("ftp://shop.example/", "starting with https://"),
            ("https:///evil.example", "host right after"),
            ("https://", "host right after"),
            ("https://?x", "host right after"),
            ("https://user:pass@evil.example/", "user name or password"),
            ("https://shop.example@evil.example/", "user name or password"),
            ("https://exa mple", "a space"),
            ("https://shop..example:99999/", "not a valid absolute URL"),
        ] {
            let refused = RedirectUrl::new(given.to_owned()).expect_err(given);
            assert!(refused.detail.contains(reason), "{given:?}: {}", refused.detail);
        }
        let long = format!("https://shop.example/{}", "a".repeat(crate::limits::URL_LENGTH));
        assert!(RedirectUrl::new(long).is_err());
    }

    #[test]
    fn live_mode_needs_https() {
        let plain = RedirectUrl::new("http://shop.example/done".to_owned()).expect("a URL");
        assert!(plain.allowed_in(false).is_ok());
        assert!(plain.allowed_in(true).unwrap_err().detail.contains("https://"));
        let secure = RedirectUrl::new("HTTPS://shop.example/done".to_owned()).expect("a URL");
        assert!(secure.allowed_in(true).is_ok());
    }
}
