//! Which webhook URLs a mode may use: test mode any http(s) URL (local development) unless the
//! deployment refuses private targets in test mode too; live mode https only, to a host whose every
//! address is public.

use payments_application::ports::UrlGuard;
use payments_domain::public_address::is_public_address;
use std::net::ToSocketAddrs;

/// Checks URLs, resolving host names through the system resolver where addresses matter.
#[derive(Debug, Clone, Copy)]
pub struct ResolvingUrlGuard {
    /// Whether test-mode webhooks may target loopback and private addresses. True suits a laptop;
    /// on a shared deployment it would let anyone with a test key probe the internal network.
    pub private_targets_in_test: bool,
}

impl UrlGuard for ResolvingUrlGuard {
    fn check(&self, url: &str, livemode: bool) -> Result<(), String> {
        let parsed = url::Url::parse(url).map_err(|_| "The URL is not a valid absolute URL.".to_owned())?;
        let host = parsed.host_str().filter(|h| !h.is_empty()).ok_or("The URL has no host.")?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err("The URL must use http or https.".to_owned());
        }
        if livemode && parsed.scheme() != "https" {
            return Err("Live-mode webhooks must use https.".to_owned());
        }
        if !livemode && self.private_targets_in_test {
            return Ok(());
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

    const LOCAL: ResolvingUrlGuard = ResolvingUrlGuard { private_targets_in_test: true };
    const SHARED: ResolvingUrlGuard = ResolvingUrlGuard { private_targets_in_test: false };

    #[test]
    fn test_mode_allows_local_addresses_and_live_mode_does_not() {
        assert!(LOCAL.check("http://127.0.0.1:9000/hooks", false).is_ok());
        assert_eq!(LOCAL.check("ftp://example.com/", false).unwrap_err(), "The URL must use http or https.");
        assert_eq!(LOCAL.check("not a url", false).unwrap_err(), "The URL is not a valid absolute URL.");
        assert_eq!(LOCAL.check("http://127.0.0.1/hooks", true).unwrap_err(), "Live-mode webhooks must use https.");
        for url in [
            "https://127.0.0.1/hooks",
            "https://localhost/hooks",
            "https://[::1]/hooks",
            "https://10.0.0.8/hooks",
            "https://2130706433/hooks",
            "https://0x7f.1/hooks",
            "https://[::127.0.0.1]/hooks",
            "https://[::ffff:0:7f00:1]/hooks",
            "https://[64:ff9b::7f00:1]/hooks",
            "https://[2002:7f00:1::]/hooks",
            "https://[2001::1]/hooks",
            "https://[fec0::1]/hooks",
            "https://192.0.0.1/hooks",
            "https://198.18.0.1/hooks",
            "https://240.0.0.1/hooks",
        ] {
            let refused = LOCAL.check(url, true).unwrap_err();
            assert!(refused.ends_with("is not a public internet address."), "{url}: {refused}");
        }
    }

    #[test]
    fn a_shared_deployment_refuses_private_targets_in_test_mode_too() {
        assert_eq!(
            SHARED.check("http://127.0.0.1:9000/hooks", false).unwrap_err(),
            "The host 127.0.0.1 is not a public internet address."
        );
        assert_eq!(
            SHARED.check("http://[::ffff:10.0.0.1]/hooks", false).unwrap_err(),
            "The host ::ffff:a00:1 is not a public internet address."
        );
        assert!(SHARED.check("http://8.8.8.8/hooks", false).is_ok(), "test mode keeps plain http");
    }
}
