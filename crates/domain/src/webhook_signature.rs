//! The signatures a webhook delivery carries (and `payments listen` forwards), made with each of
//! the webhook's signing secrets (the current one first, then one rotated out that is still in its
//! overlap):
//!
//! - `Payrex-Signature`: `t=<unix seconds>,te=<hex>,li=<hex>`, in exactly that order, the field of
//!   the event's mode holding the hex HMAC-SHA256 of `"<t>.<raw body>"` keyed with the current
//!   secret, the other field empty, as PayRex's clients read it (the first three positions). A
//!   rotated-out secret's signature follows as one more field of the mode's name.
//! - The Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`):
//!   `v1,<base64>` of the HMAC-SHA256 of `"<id>.<timestamp>.<raw body>"` for each secret, space
//!   separated, keyed with the secret's bytes.

use crate::time::Timestamp;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The `Payrex-Signature` header of `body` signed at `signed_at` (whole seconds) in test
/// (`livemode == false`) or live mode, with `secret_keys` (the current one first).
#[must_use]
pub fn signature_header(secret_keys: &[String], signed_at: Timestamp, body: &[u8], livemode: bool) -> String {
    let timestamp = signed_at.unix_seconds();
    let field = if livemode { "li" } else { "te" };
    let mut signatures =
        secret_keys.iter().map(|key| hex::encode(hmac_sha256(key, &[timestamp.to_string().as_bytes(), b".", body])));
    let current = signatures.next().unwrap_or_default();
    let mut header =
        if livemode { format!("t={timestamp},te=,li={current}") } else { format!("t={timestamp},te={current},li=") };
    for previous in signatures {
        header.push_str(&format!(",{field}={previous}"));
    }
    header
}

/// The Standard Webhooks `webhook-signature` of the message `id` with `body`, signed at `signed_at`.
#[must_use]
pub fn standard_signature(secret_keys: &[String], id: &str, signed_at: Timestamp, body: &[u8]) -> String {
    let timestamp = signed_at.unix_seconds().to_string();
    let signed = [id.as_bytes(), b".", timestamp.as_bytes(), b".", body];
    secret_keys
        .iter()
        .map(|key| format!("v1,{}", STANDARD.encode(hmac_sha256(key, &signed))))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The HMAC-SHA256 of `parts`, one after the other, keyed with `secret_key`'s bytes.
#[must_use]
pub fn hmac_sha256(secret_key: &str, parts: &[&[u8]]) -> Vec<u8> {
    // HMAC takes a key of any length: this never fails (an empty signature would not verify).
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret_key.as_bytes()) else {
        return Vec::new();
    };
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use super::{signature_header, standard_signature};
    use crate::time::Timestamp;

    // Vectors computed independently with Python:
    //   hmac.new(b"whsk_testsecret", b"1700000000." + BODY, hashlib.sha256).hexdigest()
    //   hmac.new(b"whsk_livesecret", b"1700000001." + BODY, hashlib.sha256).hexdigest()
    //   base64.b64encode(hmac.new(KEY, b"evt_1.1700000000." + BODY, hashlib.sha256).digest())
    const BODY: &[u8] = br#"{"id":"evt_1","resource":"event","type":"payment.paid"}"#;
    const AT: Timestamp = Timestamp::from_unix_seconds(1_700_000_000);

    fn keys(keys: &[&str]) -> Vec<String> {
        keys.iter().map(|key| (*key).to_owned()).collect()
    }

    #[test]
    fn a_test_mode_signature_fills_te_and_leaves_li_empty() {
        assert_eq!(
            signature_header(&keys(&["whsk_testsecret"]), AT, BODY, false),
            "t=1700000000,te=355c8e1ad694792bb3992eda3436b090b51902fddd4e08c53aec4e7b5498b8ea,li="
        );
    }

    #[test]
    fn a_live_mode_signature_fills_li_and_leaves_te_empty() {
        assert_eq!(
            signature_header(&keys(&["whsk_livesecret"]), Timestamp::from_unix_millis(1_700_000_001_750), BODY, true),
            "t=1700000001,te=,li=bceb9f99253d4659e28a61005f936520452247739b98251f1b8c31c2ba7c9235"
        );
    }

    #[test]
    fn a_rotated_out_secret_signs_after_the_three_positions() {
        assert_eq!(
            signature_header(&keys(&["whsk_newsecret", "whsk_testsecret"]), AT, BODY, false),
            "t=1700000000,te=3dc3e83753b404b00c152faaae641f2497500b1c9210108b11fa91933eaa9c64,li=,\
             te=355c8e1ad694792bb3992eda3436b090b51902fddd4e08c53aec4e7b5498b8ea"
        );
    }

    #[test]
    fn the_standard_webhooks_signature_lists_each_secrets() {
        assert_eq!(
            standard_signature(&keys(&["whsk_newsecret", "whsk_testsecret"]), "evt_1", AT, BODY),
            "v1,lptSHbmKVZjSkWYFOEMGak5n+1+YQQ3SXrEIv+B9xLM= v1,7e5udO9l/Yng1X1UdHPNocbkEZXXTzTvaHjJ+V+ycSg="
        );
    }
}
