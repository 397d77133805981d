//! Who a per-client limit counts: the one definition of "a client" behind every per-IP limit
//! (the connection share in `server`, the global rate limit's share, the state-sync and public
//! storage-relay rate limits, the stream caps).
//!
//! A client is its peer address, except that an IPv6 peer counts as its whole /56 network. One
//! host or cloud instance is given a /64 and one subscriber commonly a /56 (RFC 6177 recommends
//! /48 to /56 per site), and either picks any source address in it at will: keyed by the full
//! address, or by /64, every per-client limit would be many limits to one customer, who would
//! take every connection, stream and rate-limit share there is (ten shares of the connections
//! are all of them). An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, which a
//! dual-stack listener reports for an IPv4 peer) is that IPv4 address: read as IPv6, every IPv4
//! client would share one /64 and so one client's share.

use axum::{
    extract::{ConnectInfo, FromRequestParts},
    http::{Extensions, request::Parts},
};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Bits of an IPv6 address that name its client: the /56 network, a subscriber's allocation.
const IPV6_CLIENT_PREFIX_BITS: u32 = 56;

/// A client as the per-client limits count it (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClientId(IpAddr);

impl ClientId {
    /// Requests that did not come over a socket (a router driven in-process) all count as this
    /// one client.
    pub const IN_PROCESS: Self = Self(IpAddr::V4(Ipv4Addr::UNSPECIFIED));

    /// The client a peer at `ip` is.
    pub fn of(ip: IpAddr) -> Self {
        match ip {
            IpAddr::V4(v4) => Self(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Self(IpAddr::V4(v4)),
                None => {
                    let network = u128::from(v6) & (u128::MAX << (128 - IPV6_CLIENT_PREFIX_BITS));
                    Self(IpAddr::V6(Ipv6Addr::from(network)))
                }
            },
        }
    }

    /// The client a request came from, if it came over a socket (`ConnectInfo`, set by
    /// [`crate::serve`]).
    pub(crate) fn of_request(extensions: &Extensions) -> Option<Self> {
        extensions.get::<ConnectInfo<SocketAddr>>().map(|ConnectInfo(peer)| Self::of(peer.ip()))
    }
}

impl std::fmt::Display for ClientId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => v4.fmt(f),
            IpAddr::V6(v6) => write!(f, "{v6}/{IPV6_CLIENT_PREFIX_BITS}"),
        }
    }
}

/// A handler's client ([`ClientId::IN_PROCESS`] for requests that did not come over a socket).
impl<S: Send + Sync> FromRequestParts<S> for ClientId {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self::of_request(&parts.extensions).unwrap_or(Self::IN_PROCESS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(ip: &str) -> ClientId {
        ClientId::of(ip.parse().unwrap())
    }

    #[test]
    fn an_ipv6_network_of_56_bits_is_one_client() {
        assert_eq!(client("2001:db8:1:2:aaaa::1"), client("2001:db8:1:2:ffff:ffff:ffff:ffff"));
        // Every /64 of the subscriber's /56 is the same client.
        assert_eq!(client("2001:db8:1:200::1"), client("2001:db8:1:2ff::1"));
        assert_eq!(client("2001:db8:1:2ab::7").to_string(), "2001:db8:1:200::/56");
        assert_ne!(client("2001:db8:1:200::1"), client("2001:db8:1:300::1"));
    }

    #[test]
    fn ipv4_clients_are_their_address_however_they_are_reported() {
        assert_eq!(client("::ffff:192.0.2.7"), client("192.0.2.7"));
        assert_ne!(client("::ffff:192.0.2.7"), client("::ffff:192.0.2.8"));
        assert_ne!(client("192.0.2.7"), client("192.0.2.8"));
        assert_eq!(client("::ffff:192.0.2.7").to_string(), "192.0.2.7");
    }
}
