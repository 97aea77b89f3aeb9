//! Whether an IP address is on the public internet, by the IANA IPv4 and IPv6 Special-Purpose
//! Address Registries: live-mode webhooks (and test-mode ones where the setting asks for it) may
//! only reach such addresses. An IPv6 address that carries an IPv4 address (mapped, translated,
//! NAT64) is judged by the IPv4 address it carries; the transition forms whose target cannot be
//! judged (6to4, Teredo, IPv4-compatible) are never public.

use ipnet::{Ipv4Net, Ipv6Net};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const fn v4(a: u8, b: u8, c: u8, d: u8, prefix: u8) -> Ipv4Net {
    Ipv4Net::new_assert(Ipv4Addr::new(a, b, c, d), prefix)
}

const fn v6(segments: [u16; 8], prefix: u8) -> Ipv6Net {
    let [a, b, c, d, e, f, g, h] = segments;
    Ipv6Net::new_assert(Ipv6Addr::new(a, b, c, d, e, f, g, h), prefix)
}

/// IPv4 blocks that are not globally reachable: the registry's entries, multicast and broadcast.
/// (`192.0.0.9/32` and `192.0.0.10/32`, anycast service addresses, are refused with their block.)
const NOT_PUBLIC_V4: [Ipv4Net; 16] = [
    v4(0, 0, 0, 0, 8),          // "this network"
    v4(10, 0, 0, 0, 8),         // private use
    v4(100, 64, 0, 0, 10),      // shared address space (CGNAT)
    v4(127, 0, 0, 0, 8),        // loopback
    v4(169, 254, 0, 0, 16),     // link local
    v4(172, 16, 0, 0, 12),      // private use
    v4(192, 0, 0, 0, 24),       // IETF protocol assignments
    v4(192, 0, 2, 0, 24),       // documentation (TEST-NET-1)
    v4(192, 88, 99, 0, 24),     // deprecated 6to4 relay anycast
    v4(192, 168, 0, 0, 16),     // private use
    v4(198, 18, 0, 0, 15),      // benchmarking
    v4(198, 51, 100, 0, 24),    // documentation (TEST-NET-2)
    v4(203, 0, 113, 0, 24),     // documentation (TEST-NET-3)
    v4(224, 0, 0, 0, 4),        // multicast
    v4(240, 0, 0, 0, 4),        // reserved
    v4(255, 255, 255, 255, 32), // limited broadcast
];

/// IPv6 global unicast space: everything else (loopback, unspecified, link and site local, unique
/// local, multicast, discard-only, local-use NAT64, SRv6, reserved) is never public.
const GLOBAL_UNICAST_V6: Ipv6Net = v6([0x2000, 0, 0, 0, 0, 0, 0, 0], 3);

/// Blocks inside global unicast that are not globally reachable or whose target cannot be judged.
const NOT_PUBLIC_V6: [Ipv6Net; 4] = [
    v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 23), // IETF protocol assignments, Teredo, benchmarking
    v6([0x2001, 0x0db8, 0, 0, 0, 0, 0, 0], 32), // documentation
    v6([0x2002, 0, 0, 0, 0, 0, 0, 0], 16), // 6to4
    v6([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20), // documentation
];

/// IPv6 forms that carry an IPv4 address in their last 32 bits and reach that address.
const CARRYING_V4: [Ipv6Net; 3] = [
    v6([0, 0, 0, 0, 0, 0xffff, 0, 0], 96),    // IPv4-mapped
    v6([0, 0, 0, 0, 0xffff, 0, 0, 0], 96),    // IPv4-translated (SIIT)
    v6([0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96), // NAT64 well-known prefix
];

/// Whether `address` is on the public internet.
#[must_use]
pub fn is_public_address(address: IpAddr) -> bool {
    match address {
        IpAddr::V4(address) => is_public_v4(address),
        IpAddr::V6(address) => {
            if CARRYING_V4.iter().any(|prefix| prefix.contains(&address)) {
                let [.., a, b, c, d] = address.octets();
                return is_public_v4(Ipv4Addr::new(a, b, c, d));
            }
            GLOBAL_UNICAST_V6.contains(&address) && !NOT_PUBLIC_V6.iter().any(|prefix| prefix.contains(&address))
        }
    }
}

fn is_public_v4(address: Ipv4Addr) -> bool {
    !NOT_PUBLIC_V4.iter().any(|prefix| prefix.contains(&address))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(address: &str) -> bool {
        is_public_address(address.parse().unwrap_or_else(|_| panic!("{address} is an address")))
    }

    #[test]
    fn special_purpose_and_private_addresses_are_not_public() {
        for address in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "192.0.0.8",
            "192.0.2.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fe80::1",
            "fec0::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "100::1",
            "::127.0.0.1",
            "::8.8.8.8",
            "::ffff:127.0.0.1",
            "::ffff:0:7f00:1",
            "64:ff9b::7f00:1",
            "64:ff9b::a00:1",
            "64:ff9b:1::808:808",
            "2002:7f00:1::",
            "2002:808:808::1",
            "2001::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:db8::1",
            "3fff::1",
            "5f00::1",
        ] {
            assert!(!public(address), "{address} must not be public");
        }
    }

    #[test]
    fn global_addresses_are_public_also_when_carried_in_ipv6() {
        for address in [
            "8.8.8.8",
            "1.1.1.1",
            "203.0.114.1",
            "192.31.196.1",
            "2606:4700:4700::1111",
            "2a00:1450:4001::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert!(public(address), "{address} must be public");
        }
    }
}
