//! The PROXY protocol version 2 header a server route with `proxy_protocol = true` writes at the
//! start of every connection to its target, so that the target sees the application's address
//! instead of the server's (HAProxy's `accept-proxy`, nginx's `listen ... proxy_protocol`).
//!
//! The addresses are the flow's [`Origin`]: the application's address and the client listener
//! it connected to, as the client saw them. A flow whose opening carried none gets a `LOCAL`
//! header (the target then uses the connection's own addresses). When the two addresses are of
//! different families, the IPv4 one is written as an IPv4-mapped IPv6 address, since a header
//! has one family. Encoding is the `ppp` crate's.

use std::net::SocketAddr;

use gtcp::wire::Origin;
use ppp::v2::{Addresses, Builder, Command, Protocol, Version};

/// The header for a flow of this origin.
pub fn header(origin: Option<Origin>) -> std::io::Result<Vec<u8>> {
    let (command, protocol, addresses) = match origin {
        Some(o) => (
            Command::Proxy,
            Protocol::Stream,
            Addresses::from(same_family(o)),
        ),
        None => (
            Command::Local,
            Protocol::Unspecified,
            Addresses::Unspecified,
        ),
    };
    Builder::with_addresses(Version::Two | command, protocol, addresses).build()
}

/// The origin's addresses in one family (IPv6 when they differ).
fn same_family(o: Origin) -> (SocketAddr, SocketAddr) {
    let v6 = |a: SocketAddr| match a {
        SocketAddr::V4(v4) => SocketAddr::new(v4.ip().to_ipv6_mapped().into(), v4.port()),
        v6 => v6,
    };
    if o.source.is_ipv4() == o.destination.is_ipv4() {
        (o.source, o.destination)
    } else {
        (v6(o.source), v6(o.destination))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(s: &str, d: &str) -> Origin {
        Origin {
            source: s.parse().unwrap(),
            destination: d.parse().unwrap(),
        }
    }

    /// The bytes of the protocol's specification: signature, version 2 + PROXY, TCP over IPv4,
    /// 12 bytes of addresses (source, destination, source port, destination port).
    #[test]
    fn an_ipv4_origin_gives_the_specified_bytes() {
        let h = header(Some(origin("192.0.2.7:50000", "127.0.0.1:8080"))).unwrap();
        let mut want = b"\r\n\r\n\0\r\nQUIT\n".to_vec();
        want.extend([0x21, 0x11, 0, 12, 192, 0, 2, 7, 127, 0, 0, 1]);
        want.extend(50000u16.to_be_bytes());
        want.extend(8080u16.to_be_bytes());
        assert_eq!(h, want);
    }

    #[test]
    fn mixed_families_are_written_as_ipv6_and_no_origin_as_local() {
        let h = header(Some(origin("[2001:db8::1]:1", "127.0.0.1:2"))).unwrap();
        assert_eq!(&h[12..16], &[0x21, 0x21, 0, 36]);
        assert_eq!(
            &h[32..48],
            &"::ffff:127.0.0.1"
                .parse::<std::net::Ipv6Addr>()
                .unwrap()
                .octets()
        );
        let local = header(None).unwrap();
        assert_eq!(&local[12..16], &[0x20, 0x00, 0, 0]);
        assert_eq!(local.len(), 16);
    }
}
