//! A URL guard for tests.

use crate::ports::UrlGuard;

/// A URL guard that allows every URL but those containing `refused`.
#[derive(Debug, Default)]
pub struct PermissiveUrlGuard;

impl UrlGuard for PermissiveUrlGuard {
    fn check(&self, url: &str, _livemode: bool) -> Result<(), String> {
        if url.contains("refused") {
            return Err("refused by the test guard".to_owned());
        }
        Ok(())
    }
}
