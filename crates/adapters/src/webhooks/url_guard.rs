//! Which webhook URLs a mode may use: test mode any http(s) URL (local development); live mode https
//! only, to a host whose every address is public.

use payments_application::ports::UrlGuard;
use payments_domain::webhook::is_public_address;
use std::net::ToSocketAddrs;

/// Checks URLs, resolving live-mode host names through the system resolver.
#[derive(Debug, Default, Clone, Copy)]
pub struct ResolvingUrlGuard;

impl UrlGuard for ResolvingUrlGuard {
    fn check(&self, url: &str, livemode: bool) -> Result<(), String> {
        let parsed = url::Url::parse(url).map_err(|_| "The URL is not a valid absolute URL.".to_owned())?;
        let host = parsed.host_str().filter(|h| !h.is_empty()).ok_or("The URL has no host.")?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err("The URL must use http or https.".to_owned());
        }
        if !livemode {
            return Ok(());
        }
        if parsed.scheme() != "https" {
            return Err("Live-mode webhooks must use https.".to_owned());
        }
        let port = parsed.port_or_known_default().unwrap_or(443);
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let addresses: Vec<_> =
            (host, port).to_socket_addrs().map_err(|_| format!("The host {host} cannot be resolved."))?.collect();
        if addresses.is_empty() || addresses.iter().any(|address| !is_public_address(address.ip())) {
            return Err(format!("The host {host} is not a public internet address."));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_mode_allows_local_addresses_and_live_mode_does_not() {
        assert!(ResolvingUrlGuard.check("http://127.0.0.1:9000/hooks", false).is_ok());
        assert!(ResolvingUrlGuard.check("ftp://example.com/", false).is_err());
        assert!(ResolvingUrlGuard.check("not a url", false).is_err());
        assert!(ResolvingUrlGuard.check("http://127.0.0.1/hooks", true).is_err());
        assert!(ResolvingUrlGuard.check("https://127.0.0.1/hooks", true).is_err());
        assert!(ResolvingUrlGuard.check("https://localhost/hooks", true).is_err());
        assert!(ResolvingUrlGuard.check("https://[::1]/hooks", true).is_err());
        assert!(ResolvingUrlGuard.check("https://10.0.0.8/hooks", true).is_err());
    }
}
