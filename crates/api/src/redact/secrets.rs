//! Secrets the service issues, found in any text: secret API keys and webhook secrets by their
//! owners' prefixes, client secrets by their mark, and the capability in a hosted page's link.

use super::REDACTED;
use payments_domain::account::ApiKey;
use payments_domain::hosted_page::HostedPage;
use payments_domain::ids::ClientSecret;
use payments_domain::webhook::WebhookSecret;
use std::borrow::Cow;
use std::sync::LazyLock;

/// `path` with the capability segment of a hosted page's link replaced, so a log line never holds
/// a working link: `/b/bstm_…_secret_…` is `/b/[redacted]`.
#[must_use]
pub fn without_capabilities(path: &str) -> Cow<'_, str> {
    for prefix in HostedPage::ALL.map(HostedPage::prefix) {
        if let Some(rest) = path.strip_prefix(prefix) {
            let tail = rest.find('/').map_or("", |slash| &rest[slash..]);
            return Cow::Owned(format!("{prefix}{REDACTED}{tail}"));
        }
    }
    Cow::Borrowed(path)
}

/// The prefixes of secret API keys and of webhook secrets, as their owners spell them.
static SECRET_KEY_PREFIXES: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut prefixes = ApiKey::secret_prefixes().to_vec();
    prefixes.push(WebhookSecret::PREFIX.to_owned());
    prefixes
});

/// `text` with the body of every secret API key and webhook secret replaced (`sk_live_[redacted]`):
/// a client that put its key in a path by mistake does not leave it in the log.
#[must_use]
pub fn without_secret_keys(text: &str) -> Cow<'_, str> {
    if !SECRET_KEY_PREFIXES.iter().any(|prefix| text.contains(prefix.as_str())) {
        return Cow::Borrowed(text);
    }
    let mut cleaned = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((at, prefix)) =
        SECRET_KEY_PREFIXES.iter().filter_map(|prefix| Some((rest.find(prefix.as_str())?, prefix.as_str()))).min()
    {
        cleaned.push_str(&rest[..at + prefix.len()]);
        cleaned.push_str(REDACTED);
        let key = &rest[at + prefix.len()..];
        let end = key.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(key.len());
        rest = &key[end..];
    }
    cleaned.push_str(rest);
    Cow::Owned(cleaned)
}

/// What separates an object's id from the random part of its client secret.
pub(super) const CLIENT_SECRET_MARK: &str = ClientSecret::MARK;

/// `text` with the random part of every client secret replaced (`pi_1_secret_[redacted]`).
#[must_use]
pub fn without_client_secrets(text: &str) -> Cow<'_, str> {
    if !text.contains(CLIENT_SECRET_MARK) {
        return Cow::Borrowed(text);
    }
    let mut cleaned = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(CLIENT_SECRET_MARK) {
        cleaned.push_str(&rest[..at + CLIENT_SECRET_MARK.len()]);
        let secret = &rest[at + CLIENT_SECRET_MARK.len()..];
        let end = secret.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(secret.len());
        if end > 0 {
            cleaned.push_str(REDACTED);
        }
        rest = &secret[end..];
    }
    cleaned.push_str(rest);
    Cow::Owned(cleaned)
}
