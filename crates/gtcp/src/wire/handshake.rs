//! The versioned, authenticated handshake that opens every pool connection.
//!
//! ```text
//! client → server  ClientHello { "GTCP", version, client nonce }
//! server → client  ServerHello { "GTCP", version, server nonce, server proof }
//! client → server  ClientAuth  { session, connection, owner flow, client proof }
//! server → client  Verdict     { accepted, or refused with a reason }
//! ```
//!
//! The client counts a connection as established only once the server's [`Verdict`] accepts
//! it; a refusal (too many sessions, shutting down, ...) is an answer, not a lost connection.
//!
//! Both proofs are keyed MACs over both nonces (so neither can be replayed on another
//! connection) with distinct labels (so one side's proof is never valid as the other's):
//!
//! * server proof = MAC(`"schedtcp server v1"` ‖ client nonce ‖ server nonce)
//! * client proof = MAC(`"schedtcp client v1"` ‖ server nonce ‖ client nonce ‖ session ‖
//!   connection ‖ owner)
//!
//! The MAC itself comes from the driver through [`Authenticator`] (the tunnel uses HMAC-SHA-256
//! from the `hmac` and `sha2` crates): the core holds no key and does no cryptography. Nonces are
//! arguments too, so a handshake is deterministic under test.

use bytes::{Buf, BufMut, BytesMut};

use super::{WireError, VERSION};
use crate::ids::{ConnId, FlowId};

const MAGIC: &[u8; 4] = b"GTCP";
const T_CLIENT_HELLO: u8 = 0xF1;
const T_SERVER_HELLO: u8 = 0xF2;
const T_CLIENT_AUTH: u8 = 0xF3;
const T_VERDICT: u8 = 0xF4;
const SERVER_LABEL: &[u8] = b"schedtcp server v1";
const CLIENT_LABEL: &[u8] = b"schedtcp client v1";

/// A 32-byte nonce, drawn fresh by the driver for every connection.
pub type Nonce = [u8; 32];
/// A 32-byte MAC tag.
pub type Tag = [u8; 32];
/// Identifies one client instance (one origin of the origin–destination pair) across its pool
/// connections.
pub type SessionId = [u8; 16];

/// Keyed MAC over the concatenation of `parts`, provided by the driver.
pub trait Authenticator {
    /// The tag of `parts` under the pre-shared key.
    fn tag(&self, parts: &[&[u8]]) -> Tag;
    /// Whether `tag` is the tag of `parts`; implementations must compare in constant time.
    fn verify(&self, parts: &[&[u8]], tag: &Tag) -> bool;
}

/// First message, client to server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientHello {
    pub version: u16,
    pub nonce: Nonce,
}

/// Second message, server to client: the server's nonce and its proof of the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerHello {
    pub version: u16,
    pub nonce: Nonce,
    pub proof: Tag,
}

/// Third message, client to server: which session and connection this is, which flow owns the
/// connection (none for a warm spare), and the client's proof of the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientAuth {
    pub session: SessionId,
    pub conn: ConnId,
    pub owner: Option<FlowId>,
    pub proof: Tag,
}

impl ClientHello {
    pub const LEN: usize = 1 + 4 + 2 + 32;

    pub fn new(nonce: Nonce) -> Self {
        Self {
            version: VERSION,
            nonce,
        }
    }

    pub fn encode(&self, out: &mut BytesMut) {
        out.put_u8(T_CLIENT_HELLO);
        out.put_slice(MAGIC);
        out.put_u16(self.version);
        out.put_slice(&self.nonce);
    }

    /// Takes the message off `buf` once it is complete; refuses other versions.
    pub fn decode(buf: &mut BytesMut) -> Result<Option<Self>, WireError> {
        let Some(mut m) = take(buf, T_CLIENT_HELLO, Self::LEN)? else {
            return Ok(None);
        };
        let version = magic_version(&mut m)?;
        Ok(Some(Self {
            version,
            nonce: array(&mut m),
        }))
    }
}

impl ServerHello {
    pub const LEN: usize = 1 + 4 + 2 + 32 + 32;

    /// The server's answer to `hello`, proving the key.
    pub fn answer(auth: &dyn Authenticator, hello: &ClientHello, nonce: Nonce) -> Self {
        let proof = auth.tag(&[SERVER_LABEL, &hello.nonce, &nonce]);
        Self {
            version: VERSION,
            nonce,
            proof,
        }
    }

    /// Whether this answer proves the key for the client's `client_nonce`.
    pub fn verify(&self, auth: &dyn Authenticator, client_nonce: &Nonce) -> Result<(), WireError> {
        if auth.verify(&[SERVER_LABEL, client_nonce, &self.nonce], &self.proof) {
            Ok(())
        } else {
            Err(WireError::AuthFailed)
        }
    }

    pub fn encode(&self, out: &mut BytesMut) {
        out.put_u8(T_SERVER_HELLO);
        out.put_slice(MAGIC);
        out.put_u16(self.version);
        out.put_slice(&self.nonce);
        out.put_slice(&self.proof);
    }

    pub fn decode(buf: &mut BytesMut) -> Result<Option<Self>, WireError> {
        let Some(mut m) = take(buf, T_SERVER_HELLO, Self::LEN)? else {
            return Ok(None);
        };
        let version = magic_version(&mut m)?;
        Ok(Some(Self {
            version,
            nonce: array(&mut m),
            proof: array(&mut m),
        }))
    }
}

impl ClientAuth {
    pub const LEN: usize = 1 + 16 + 8 + 8 + 32;

    /// The client's proof for this connection, after the server's `server` answer to `hello`.
    pub fn new(
        auth: &dyn Authenticator,
        hello: &ClientHello,
        server: &ServerHello,
        session: SessionId,
        conn: ConnId,
        owner: Option<FlowId>,
    ) -> Self {
        let proof = auth.tag(&[&Self::message(hello, server, &session, conn, owner)]);
        Self {
            session,
            conn,
            owner,
            proof,
        }
    }

    /// Checks the client's proof; on success the connection may carry frames.
    pub fn verify(
        &self,
        auth: &dyn Authenticator,
        hello: &ClientHello,
        server: &ServerHello,
    ) -> Result<(), WireError> {
        let m = Self::message(hello, server, &self.session, self.conn, self.owner);
        if auth.verify(&[&m], &self.proof) {
            Ok(())
        } else {
            Err(WireError::AuthFailed)
        }
    }

    /// The bytes the client proof covers.
    fn message(
        hello: &ClientHello,
        server: &ServerHello,
        session: &SessionId,
        conn: ConnId,
        owner: Option<FlowId>,
    ) -> Vec<u8> {
        let mut m = Vec::with_capacity(CLIENT_LABEL.len() + 32 + 32 + 16 + 16);
        m.extend_from_slice(CLIENT_LABEL);
        m.extend_from_slice(&server.nonce);
        m.extend_from_slice(&hello.nonce);
        m.extend_from_slice(session);
        m.extend_from_slice(&conn.0.to_be_bytes());
        m.extend_from_slice(&owner.map_or(0, |f| f.0).to_be_bytes());
        m
    }

    pub fn encode(&self, out: &mut BytesMut) {
        out.put_u8(T_CLIENT_AUTH);
        out.put_slice(&self.session);
        out.put_u64(self.conn.0);
        out.put_u64(self.owner.map_or(0, |f| f.0));
        out.put_slice(&self.proof);
    }

    pub fn decode(buf: &mut BytesMut) -> Result<Option<Self>, WireError> {
        let Some(mut m) = take(buf, T_CLIENT_AUTH, Self::LEN)? else {
            return Ok(None);
        };
        let session = array(&mut m);
        let conn = ConnId(m.get_u64());
        let owner = match m.get_u64() {
            0 => None,
            f => Some(FlowId(f)),
        };
        Ok(Some(Self {
            session,
            conn,
            owner,
            proof: array(&mut m),
        }))
    }
}

/// Why a server refused an authenticated pool connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The server serves as many live sessions as it may.
    #[error("the server serves as many sessions as it may")]
    TooManySessions,
    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The connection names a flow or connection the server cannot take.
    #[error("the server cannot take this connection's flow")]
    Unacceptable,
    /// The server could not set the session up.
    #[error("the server could not set the session up")]
    Internal,
    /// A reason this build does not know.
    #[error("refused for reason {0}")]
    Other(u8),
}

impl Refusal {
    fn code(self) -> u8 {
        match self {
            Refusal::TooManySessions => 1,
            Refusal::ShuttingDown => 2,
            Refusal::Unacceptable => 3,
            Refusal::Internal => 4,
            Refusal::Other(c) => c,
        }
    }

    fn from_code(c: u8) -> Self {
        match c {
            1 => Refusal::TooManySessions,
            2 => Refusal::ShuttingDown,
            3 => Refusal::Unacceptable,
            4 => Refusal::Internal,
            c => Refusal::Other(c),
        }
    }
}

/// Last message, server to client: the connection is accepted (frames follow) or refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Accepted,
    Refused(Refusal),
}

impl Verdict {
    pub const LEN: usize = 2;

    pub fn encode(&self, out: &mut BytesMut) {
        out.put_u8(T_VERDICT);
        out.put_u8(match self {
            Verdict::Accepted => 0,
            Verdict::Refused(r) => r.code(),
        });
    }

    pub fn decode(buf: &mut BytesMut) -> Result<Option<Self>, WireError> {
        let Some(mut m) = take(buf, T_VERDICT, Self::LEN)? else {
            return Ok(None);
        };
        Ok(Some(match m.get_u8() {
            0 => Verdict::Accepted,
            c => Verdict::Refused(Refusal::from_code(c)),
        }))
    }
}

fn take(buf: &mut BytesMut, want: u8, len: usize) -> Result<Option<BytesMut>, WireError> {
    let Some(&got) = buf.first() else {
        return Ok(None);
    };
    if got != want {
        return Err(WireError::UnexpectedMessage { got, want });
    }
    if buf.len() < len {
        return Ok(None);
    }
    let mut m = buf.split_to(len);
    m.advance(1);
    Ok(Some(m))
}

fn magic_version(m: &mut BytesMut) -> Result<u16, WireError> {
    if &m[..4] != MAGIC {
        return Err(WireError::BadMagic);
    }
    m.advance(4);
    let v = m.get_u16();
    if v != VERSION {
        return Err(WireError::BadVersion(v));
    }
    Ok(v)
}

fn array<const N: usize>(m: &mut BytesMut) -> [u8; N] {
    let mut a = [0u8; N];
    m.copy_to_slice(&mut a);
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy keyed checksum for tests only: the real driver uses HMAC-SHA-256.
    struct Toy(u8);
    impl Authenticator for Toy {
        fn tag(&self, parts: &[&[u8]]) -> Tag {
            let mut t = [self.0; 32];
            for (i, b) in parts.iter().flat_map(|p| p.iter()).enumerate() {
                t[i % 32] = t[i % 32].wrapping_mul(31).wrapping_add(*b);
            }
            t
        }
        fn verify(&self, parts: &[&[u8]], tag: &Tag) -> bool {
            &self.tag(parts) == tag
        }
    }

    fn run(
        client_key: u8,
        server_key: u8,
    ) -> (Result<(), WireError>, Result<ClientAuth, WireError>) {
        let (ck, sk) = (Toy(client_key), Toy(server_key));
        let hello = ClientHello::new([1; 32]);
        let mut wire = BytesMut::new();
        hello.encode(&mut wire);
        let got_hello = ClientHello::decode(&mut wire).unwrap().unwrap();
        let sh = ServerHello::answer(&sk, &got_hello, [2; 32]);
        sh.encode(&mut wire);
        let got_sh = ServerHello::decode(&mut wire).unwrap().unwrap();
        let client_side = got_sh.verify(&ck, &hello.nonce);
        let auth = ClientAuth::new(&ck, &hello, &got_sh, [9; 16], ConnId(3), Some(FlowId(4)));
        auth.encode(&mut wire);
        let got_auth = ClientAuth::decode(&mut wire).unwrap().unwrap();
        let server_side = got_auth.verify(&sk, &got_hello, &sh).map(|()| got_auth);
        (client_side, server_side)
    }

    #[test]
    fn same_key_authenticates_both_ways() {
        let (c, s) = run(5, 5);
        assert_eq!(c, Ok(()));
        let auth = s.unwrap();
        assert_eq!(
            (auth.conn, auth.owner, auth.session),
            (ConnId(3), Some(FlowId(4)), [9; 16])
        );
    }

    #[test]
    fn wrong_key_fails_both_ways() {
        let (c, s) = run(5, 6);
        assert_eq!(c, Err(WireError::AuthFailed));
        assert_eq!(s.unwrap_err(), WireError::AuthFailed);
    }

    #[test]
    fn tampered_owner_is_refused() {
        let k = Toy(1);
        let hello = ClientHello::new([1; 32]);
        let sh = ServerHello::answer(&k, &hello, [2; 32]);
        let mut auth = ClientAuth::new(&k, &hello, &sh, [0; 16], ConnId(1), Some(FlowId(1)));
        auth.owner = Some(FlowId(2));
        assert_eq!(auth.verify(&k, &hello, &sh), Err(WireError::AuthFailed));
    }

    #[test]
    fn bad_magic_version_and_order_are_errors() {
        let mut b = BytesMut::new();
        ClientHello {
            version: 9,
            nonce: [0; 32],
        }
        .encode(&mut b);
        assert_eq!(ClientHello::decode(&mut b), Err(WireError::BadVersion(9)));
        let mut b = BytesMut::new();
        ClientHello::new([0; 32]).encode(&mut b);
        b[1] = b'X';
        assert_eq!(ClientHello::decode(&mut b), Err(WireError::BadMagic));
        let mut b = BytesMut::from(&[0x02u8, 0, 0][..]);
        assert!(matches!(
            ClientHello::decode(&mut b),
            Err(WireError::UnexpectedMessage { .. })
        ));
        let mut b = BytesMut::from(&[T_CLIENT_HELLO, b'G'][..]);
        assert_eq!(ClientHello::decode(&mut b), Ok(None));
    }

    #[test]
    fn verdicts_round_trip_and_unknown_reasons_survive() {
        for v in [
            Verdict::Accepted,
            Verdict::Refused(Refusal::TooManySessions),
            Verdict::Refused(Refusal::ShuttingDown),
            Verdict::Refused(Refusal::Unacceptable),
            Verdict::Refused(Refusal::Internal),
            Verdict::Refused(Refusal::Other(200)),
        ] {
            let mut b = BytesMut::new();
            v.encode(&mut b);
            b.extend_from_slice(&[0x06]);
            assert_eq!(Verdict::decode(&mut b), Ok(Some(v)));
            assert_eq!(&b[..], &[0x06], "frames after the verdict stay");
        }
        let mut b = BytesMut::from(&[T_VERDICT][..]);
        assert_eq!(Verdict::decode(&mut b), Ok(None));
    }
}
