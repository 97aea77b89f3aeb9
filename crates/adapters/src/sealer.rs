//! Seals the processors' secrets for storage with AES-256-GCM (the `aes-gcm` crate) under a key of
//! the service's settings, with a fresh random nonce per seal, stored before the ciphertext, and
//! the account's id as associated data: sealed secrets open only on their own account's row.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Key, Nonce};
use payments_application::ports::{SealError, SecretSealer};
use payments_domain::connector_account::{ConnectorSecrets, SealedSecrets};
use payments_domain::ids::AccountId;
use rand::RngCore;
use serde::{Deserialize, Serialize};

/// The length of a nonce, stored before the ciphertext.
const NONCE_LENGTH: usize = 12;

/// What is sealed.
#[derive(Serialize, Deserialize)]
struct Plain {
    secret_key: String,
    webhook_secret: String,
}

/// AES-256-GCM under the settings' key, or no key (secrets cannot be kept).
pub struct AesGcmSealer {
    cipher: Option<Aes256Gcm>,
}

/// The settings' key is not 64 hexadecimal digits.
#[derive(Debug, thiserror::Error)]
#[error("live_processor.credentials_key must be 64 hexadecimal digits (32 random bytes), or empty")]
pub struct BadKey;

impl AesGcmSealer {
    /// A sealer with the key `hex_key` (64 hexadecimal digits), or none when it is empty.
    ///
    /// # Errors
    /// [`BadKey`] for anything else.
    pub fn new(hex_key: &str) -> Result<Self, BadKey> {
        if hex_key.is_empty() {
            return Ok(Self { cipher: None });
        }
        let bytes = hex::decode(hex_key).map_err(|_| BadKey)?;
        if bytes.len() != 32 {
            return Err(BadKey);
        }
        Ok(Self { cipher: Some(Aes256Gcm::new(Key::<Aes256Gcm>::from_slice(&bytes))) })
    }
}

impl SecretSealer for AesGcmSealer {
    fn seal(&self, secrets: &ConnectorSecrets, account_id: &AccountId) -> Result<SealedSecrets, SealError> {
        let cipher = self.cipher.as_ref().ok_or(SealError::NoKey)?;
        let plain = Plain { secret_key: secrets.secret_key.clone(), webhook_secret: secrets.webhook_secret.clone() };
        let plain = serde_json::to_vec(&plain).map_err(|_| SealError::Unreadable)?;
        let mut nonce = [0_u8; NONCE_LENGTH];
        rand::rng().fill_bytes(&mut nonce);
        let payload = Payload { msg: plain.as_slice(), aad: account_id.as_str().as_bytes() };
        let sealed = cipher.encrypt(Nonce::from_slice(&nonce), payload).map_err(|_| SealError::Unreadable)?;
        Ok(SealedSecrets([nonce.as_slice(), sealed.as_slice()].concat()))
    }

    fn open(&self, sealed: &SealedSecrets, account_id: &AccountId) -> Result<ConnectorSecrets, SealError> {
        let cipher = self.cipher.as_ref().ok_or(SealError::NoKey)?;
        if sealed.0.len() < NONCE_LENGTH {
            return Err(SealError::Unreadable);
        }
        let (nonce, ciphertext) = sealed.0.split_at(NONCE_LENGTH);
        let payload = Payload { msg: ciphertext, aad: account_id.as_str().as_bytes() };
        let plain = cipher.decrypt(Nonce::from_slice(nonce), payload).map_err(|_| SealError::Unreadable)?;
        let plain: Plain = serde_json::from_slice(&plain).map_err(|_| SealError::Unreadable)?;
        Ok(ConnectorSecrets { secret_key: plain.secret_key, webhook_secret: plain.webhook_secret })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

    fn secrets() -> ConnectorSecrets {
        ConnectorSecrets { secret_key: "sk_live_secret".into(), webhook_secret: "whsec_secret".into() }
    }

    #[test]
    fn sealed_secrets_open_with_their_key_on_their_account_only_and_show_nothing() {
        let account = AccountId::from_random("0VcKRLxAcctUzS3dfAVJZjOW6tPNtjH8");
        let sealer = AesGcmSealer::new(KEY).unwrap();
        let sealed = sealer.seal(&secrets(), &account).unwrap();
        assert!(!String::from_utf8_lossy(&sealed.0).contains("secret"));
        assert_ne!(sealer.seal(&secrets(), &account).unwrap(), sealed, "a fresh nonce each time");
        assert_eq!(sealer.open(&sealed, &account).unwrap(), secrets());
        let other_account = AccountId::from_random("1VcKRLxAcctUzS3dfAVJZjOW6tPNtjH8");
        assert_eq!(sealer.open(&sealed, &other_account), Err(SealError::Unreadable), "copied to another account");
        let other = AesGcmSealer::new(&KEY.replace("00", "ff")).unwrap();
        assert_eq!(other.open(&sealed, &account), Err(SealError::Unreadable));
        let mut damaged = sealed.clone();
        damaged.0[20] ^= 1;
        assert_eq!(sealer.open(&damaged, &account), Err(SealError::Unreadable));
        assert_eq!(sealer.open(&SealedSecrets(vec![1, 2]), &account), Err(SealError::Unreadable));
    }

    #[test]
    fn without_a_key_nothing_is_sealed() {
        let sealer = AesGcmSealer::new("").unwrap();
        let account = AccountId::from_random("0VcKRLxAcctUzS3dfAVJZjOW6tPNtjH8");
        assert_eq!(sealer.seal(&secrets(), &account), Err(SealError::NoKey));
        assert!(AesGcmSealer::new("abc").is_err() && AesGcmSealer::new(&"0".repeat(62)).is_err());
    }
}
