//! Absolute `http` and `https` URLs in a form every reader takes the same way: printable ASCII (no
//! spaces, control characters or backslashes, which parsers drop or read as slashes differently),
//! the scheme spelled out with its two slashes, and a host right after them. `http:evil.example`,
//! `https:/evil.example` and `https:///evil.example` all resolve to a host in a browser, but not
//! the one a reader of the text expects. Redirect URLs and webhook URLs are both held to it.

use crate::limits::URL_LENGTH;
use crate::validation::Invalid;

/// A picture's address (a line item's, a product's): an absolute `https` URL.
///
/// # Errors
/// `parameter_invalid` otherwise.
pub fn https_image(url: String) -> Result<String, Invalid> {
    if parse(&url, "https://").is_ok_and(|parsed| parsed.scheme() == "https") {
        Ok(url)
    } else {
        Err(Invalid::value("An image must be an absolute https URL."))
    }
}

/// Checks `text` and returns it parsed; `schemes` says which schemes the caller takes, for the
/// message when the text has none of them.
///
/// # Errors
/// `parameter_invalid` saying what is wrong with the text.
pub(crate) fn parse(text: &str, schemes: &str) -> Result<url::Url, Invalid> {
    if text.chars().count() > URL_LENGTH {
        return Err(Invalid::value(format!("The URL must be at most {URL_LENGTH} characters long.")));
    }
    if let Some(refused) = text.chars().find(|c| !c.is_ascii_graphic() || *c == '\\') {
        let what = match refused {
            ' ' => "a space".to_owned(),
            '\\' => "a backslash".to_owned(),
            c if c.is_ascii_control() => format!("a control character (U+{:04X})", u32::from(c)),
            _ => "a character outside printable ASCII (percent-encode it)".to_owned(),
        };
        return Err(Invalid::value(format!("The URL must not contain {what}.")));
    }
    let lowercase = text.to_ascii_lowercase();
    let Some(authority) = ["https://", "http://"].iter().find_map(|scheme| lowercase.strip_prefix(scheme)) else {
        return Err(Invalid::value(format!("The URL must be an absolute URL starting with {schemes}.")));
    };
    if authority.is_empty() || authority.starts_with(['/', '?', '#']) {
        return Err(Invalid::value("The URL must name a host right after its scheme's two slashes."));
    }
    let url = url::Url::parse(text)
        .ok()
        .filter(|url| url.host().is_some())
        .ok_or_else(|| Invalid::value("The URL is not a valid absolute URL."))?;
    if let Some(url::Host::Domain(name)) = url.host() {
        if !is_host_name(name) {
            return Err(Invalid::value(format!(
                "{name} is not a host name: letters, digits, '-' and '_' between dots."
            )));
        }
    }
    Ok(url)
}

/// Whether `name` is made of labels of letters, digits, `-` and `_` (as container names have),
/// between single dots, perhaps with one at the end.
fn is_host_name(name: &str) -> bool {
    let name = name.strip_suffix('.').unwrap_or(name);
    name.split('.')
        .all(|label| !label.is_empty() && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
}
