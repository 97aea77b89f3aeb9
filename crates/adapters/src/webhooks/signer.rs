//! The `Payrex-Signature` header: `t=<unix seconds>,te=<hex>,li=<hex>`, in exactly that order, the
//! field of the event's mode holding the hex HMAC-SHA256 of `"<t>.<raw body>"` keyed with the
//! webhook's secret key, the other field empty.

use hmac::{Hmac, Mac};
use payments_domain::time::Timestamp;
use sha2::Sha256;

/// The signature header of `body` signed at `signed_at` (whole seconds) in test
/// (`livemode == false`) or live mode.
#[must_use]
pub fn signature_header(secret_key: &str, signed_at: Timestamp, body: &[u8], livemode: bool) -> String {
    let timestamp = signed_at.unix_seconds();
    let signature = sign(secret_key, timestamp, body);
    if livemode {
        format!("t={timestamp},te=,li={signature}")
    } else {
        format!("t={timestamp},te={signature},li=")
    }
}

fn sign(secret_key: &str, timestamp: i64, body: &[u8]) -> String {
    // HMAC accepts keys of any length, so this cannot fail; if it ever did, say so in the log.
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret_key.as_bytes()) {
        Ok(mac) => mac,
        Err(error) => {
            tracing::error!(%error, "a webhook signature could not be computed");
            return String::new();
        }
    };
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::signature_header;
    use payments_domain::time::Timestamp;

    // Vectors computed independently with Python:
    //   hmac.new(b"whsk_testsecret", b"1700000000." + BODY, hashlib.sha256).hexdigest()
    //   hmac.new(b"whsk_livesecret", b"1700000001." + BODY, hashlib.sha256).hexdigest()
    const BODY: &[u8] = br#"{"id":"evt_1","resource":"event","type":"payment.paid"}"#;

    #[test]
    fn a_test_mode_signature_fills_te_and_leaves_li_empty() {
        assert_eq!(
            signature_header("whsk_testsecret", Timestamp::from_unix_seconds(1_700_000_000), BODY, false),
            "t=1700000000,te=355c8e1ad694792bb3992eda3436b090b51902fddd4e08c53aec4e7b5498b8ea,li="
        );
    }

    #[test]
    fn a_live_mode_signature_fills_li_and_leaves_te_empty() {
        assert_eq!(
            signature_header("whsk_livesecret", Timestamp::from_unix_millis(1_700_000_001_750), BODY, true),
            "t=1700000001,te=,li=bceb9f99253d4659e28a61005f936520452247739b98251f1b8c31c2ba7c9235"
        );
    }
}
