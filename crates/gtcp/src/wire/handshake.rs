//! The versioned, authenticated handshake that opens every pool connection (wire version
//! [`VERSION`]).
//!
//! ```text
//! client → server  ClientHello { "GTCP", version, flags, 31 reserved zero bytes }
//! server → client  ServerHello { "GTCP", version, server nonce, server share }  (nothing keyed)
//! client → server  ClientAuth  { client nonce, session, connection, owner flow, client proof }
//! server → client  Verdict     { accepted or refused with a reason, server proof }
//! ```
//!
//! The client proves the key first: the server answers a hello with a fresh nonce and a fresh
//! key share only, and sends its own proof (inside the [`VerdictMessage`]) only once the client's
//! proof verified. So a peer without the key obtains nothing keyed from a server to test guesses
//! against offline; a server that does not verify the client proof closes the connection
//! without a word. The client counts a connection as established only once the server's verdict
//! proves the key and accepts it; a refusal (too many sessions, shutting down, ...) is an
//! answer, not a lost connection.
//!
//! **Sessions are bound to a secret.** A session is named by its client's public key: the
//! [`SessionId`] is an X25519 public key whose private half only that client holds (drawn when
//! it starts, never sent). The server's share is an X25519 public key drawn fresh for every
//! connection. Both proofs are keyed by the connection's key, which the driver derives from the
//! pre-shared key *and* the Diffie–Hellman secret of the session key with the server's share:
//!
//! ```text
//! connection key = HKDF-SHA-256(salt = server nonce ‖ client nonce,
//!                               ikm  = pre-shared key ‖ X25519(session key, server share),
//!                               info = label ‖ server share ‖ session)
//! ```
//!
//! Computing it takes the pre-shared key and one of the two private keys, so joining a session
//! takes the key of the client that opened it: a holder of the pre-shared key who observed
//! another client's handshakes (its session id, nonces and proofs) can neither replay them (the
//! server's nonce and share are new on every connection) nor prove the session's key on a
//! connection of its own, and the server closes such a connection before it touches the
//! session. The connection key also keys the connection's record layer, so such an observer
//! cannot read or alter the traffic either. The first connection binds nothing more than its
//! name: the session id *is* the public key, so nobody can claim another client's session id
//! even after the server forgot the session.
//!
//! Both proofs are keyed MACs over both nonces and both public keys (so neither can be replayed
//! on another connection: each side draws its nonce fresh) with distinct labels (so one side's
//! proof is never valid as the other's):
//!
//! * client proof = MAC(`"schedtcp client v5"` ‖ server nonce ‖ server share ‖ client nonce ‖
//!   session ‖ connection ‖ owner)
//! * server proof = MAC(`"schedtcp server v5"` ‖ server nonce ‖ server share ‖ client nonce ‖
//!   session ‖ connection ‖ owner ‖ verdict code)
//!
//! The hello keeps version 2's length (39 bytes) so that a server of an older version reads it
//! whole and refuses the version at once instead of waiting for more; an older hello reaching
//! this build is refused with [`WireError::BadVersion`].
//!
//! The MAC and the key exchange come from the driver: the core carries the public values as
//! bytes and takes the connection's MAC through [`Authenticator`] (the tunnel uses X25519 from
//! `x25519-dalek`, HKDF and HMAC-SHA-256 from the `hkdf`, `hmac` and `sha2` crates): the core
//! holds no key and does no cryptography. Nonces and shares are arguments too, so a handshake is
//! deterministic under test.

use bytes::{Buf, BufMut, BytesMut};

use super::{WireError, VERSION};
use crate::ids::{ConnId, FlowId};

const MAGIC: &[u8; 4] = b"GTCP";
const T_CLIENT_HELLO: u8 = 0xF1;
const T_SERVER_HELLO: u8 = 0xF2;
const T_CLIENT_AUTH: u8 = 0xF3;
const T_VERDICT: u8 = 0xF4;
const SERVER_LABEL: &[u8] = b"schedtcp server v5";
const CLIENT_LABEL: &[u8] = b"schedtcp client v5";

/// A 32-byte nonce, drawn fresh by the driver for every connection.
pub type Nonce = [u8; 32];
/// A 32-byte MAC tag.
pub type Tag = [u8; 32];
/// An X25519 public key (32 bytes, RFC 7748), carried as bytes: the core does no cryptography.
pub type KeyShare = [u8; 32];
/// Identifies one client instance (one origin of the origin–destination pair) across its pool
/// connections: the public key of the secret that client proves on each of them.
pub type SessionId = KeyShare;

/// Keyed MAC over the concatenation of `parts`, provided by the driver.
pub trait Authenticator {
    /// The tag of `parts` under the connection's key.
    fn tag(&self, parts: &[&[u8]]) -> Tag;
    /// Whether `tag` is the tag of `parts`; implementations must compare in constant time.
    fn verify(&self, parts: &[&[u8]], tag: &Tag) -> bool;
}

/// First message, client to server: the protocol, its version, and whether the client
/// authenticates the bytes after the handshake (so that a server configured otherwise says so
/// instead of failing on the first frame; each side follows its own configuration only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientHello {
    pub version: u16,
    pub integrity: bool,
}

/// Flag bit of [`ClientHello`]: the client runs without integrity after the handshake.
const F_NO_INTEGRITY: u8 = 0x01;

/// Second message, server to client: the server's fresh nonce and key share, and nothing keyed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerHello {
    pub version: u16,
    pub nonce: Nonce,
    /// The server's public key for this connection only (its private half is used once).
    pub share: KeyShare,
}

/// Third message, client to server: the client's nonce, which session (its public key) and
/// connection this is, which flow owns the connection (none for a warm spare), and the client's
/// proof, under the connection key, over both nonces, both public keys and all of these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientAuth {
    pub nonce: Nonce,
    pub session: SessionId,
    pub conn: ConnId,
    pub owner: Option<FlowId>,
    pub proof: Tag,
}

impl ClientHello {
    /// Type, magic, version, flags and 31 reserved bytes (zero).
    pub const LEN: usize = 1 + 4 + 2 + 1 + 31;

    pub fn new(integrity: bool) -> Self {
        Self {
            version: VERSION,
            integrity,
        }
    }

    pub fn encode(&self, out: &mut BytesMut) {
        out.put_u8(T_CLIENT_HELLO);
        out.put_slice(MAGIC);
        out.put_u16(self.version);
        out.put_u8(if self.integrity { 0 } else { F_NO_INTEGRITY });
        out.put_bytes(0, 31);
    }

    /// Takes the message off `buf` once it is complete; refuses other versions (a version-2
    /// hello has the same length, so it is refused as soon as it is whole).
    pub fn decode(buf: &mut BytesMut) -> Result<Option<Self>, WireError> {
        let Some(mut m) = take(buf, T_CLIENT_HELLO, Self::LEN)? else {
            return Ok(None);
        };
        let version = magic_version(&mut m)?;
        let flags = m.get_u8();
        if flags & !F_NO_INTEGRITY != 0 || m.iter().any(|&b| b != 0) {
            return Err(WireError::BadFlags(flags));
        }
        Ok(Some(Self {
            version,
            integrity: flags & F_NO_INTEGRITY == 0,
        }))
    }
}

impl ServerHello {
    pub const LEN: usize = 1 + 4 + 2 + 32 + 32;

    /// The server's answer to a hello: its fresh nonce and key share only.
    pub fn new(nonce: Nonce, share: KeyShare) -> Self {
        Self {
            version: VERSION,
            nonce,
            share,
        }
    }

    pub fn encode(&self, out: &mut BytesMut) {
        out.put_u8(T_SERVER_HELLO);
        out.put_slice(MAGIC);
        out.put_u16(self.version);
        out.put_slice(&self.nonce);
        out.put_slice(&self.share);
    }

    pub fn decode(buf: &mut BytesMut) -> Result<Option<Self>, WireError> {
        let Some(mut m) = take(buf, T_SERVER_HELLO, Self::LEN)? else {
            return Ok(None);
        };
        let version = magic_version(&mut m)?;
        Ok(Some(Self {
            version,
            nonce: array(&mut m),
            share: array(&mut m),
        }))
    }
}

impl ClientAuth {
    pub const LEN: usize = 1 + 32 + 32 + 8 + 8 + 32;

    /// The client's proof for this connection, answering the server's `server` hello with the
    /// client's fresh `nonce`.
    pub fn new(
        auth: &dyn Authenticator,
        server: &ServerHello,
        nonce: Nonce,
        session: SessionId,
        conn: ConnId,
        owner: Option<FlowId>,
    ) -> Self {
        let mut a = Self {
            nonce,
            session,
            conn,
            owner,
            proof: [0; 32],
        };
        a.proof = auth.tag(&[CLIENT_LABEL, &a.transcript(server)]);
        a
    }

    /// Checks the client's proof (in constant time, inside `auth`); on success the server may
    /// answer with a [`VerdictMessage`].
    pub fn verify(&self, auth: &dyn Authenticator, server: &ServerHello) -> Result<(), WireError> {
        if auth.verify(&[CLIENT_LABEL, &self.transcript(server)], &self.proof) {
            Ok(())
        } else {
            Err(WireError::AuthFailed)
        }
    }

    /// What both proofs cover after their label: server nonce ‖ server share ‖ client nonce ‖
    /// session ‖ connection ‖ owner.
    fn transcript(&self, server: &ServerHello) -> Vec<u8> {
        let mut m = Vec::with_capacity(32 + 32 + 32 + 32 + 16);
        m.extend_from_slice(&server.nonce);
        m.extend_from_slice(&server.share);
        m.extend_from_slice(&self.nonce);
        m.extend_from_slice(&self.session);
        m.extend_from_slice(&self.conn.0.to_be_bytes());
        m.extend_from_slice(&self.owner.map_or(0, |f| f.0).to_be_bytes());
        m
    }

    pub fn encode(&self, out: &mut BytesMut) {
        out.put_u8(T_CLIENT_AUTH);
        out.put_slice(&self.nonce);
        out.put_slice(&self.session);
        out.put_u64(self.conn.0);
        out.put_u64(self.owner.map_or(0, |f| f.0));
        out.put_slice(&self.proof);
    }

    pub fn decode(buf: &mut BytesMut) -> Result<Option<Self>, WireError> {
        let Some(mut m) = take(buf, T_CLIENT_AUTH, Self::LEN)? else {
            return Ok(None);
        };
        let nonce = array(&mut m);
        let session = array(&mut m);
        let conn = ConnId(m.get_u64());
        let owner = match m.get_u64() {
            0 => None,
            f => Some(FlowId(f)),
        };
        Ok(Some(Self {
            nonce,
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

/// The server's decision on an authenticated pool connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Accepted,
    Refused(Refusal),
}

impl Verdict {
    fn code(self) -> u8 {
        match self {
            Verdict::Accepted => 0,
            Verdict::Refused(r) => r.code(),
        }
    }
}

/// Last message, server to client, sent only after the client's proof verified: the verdict
/// (frames follow an acceptance) and the server's proof over both nonces, the client's
/// identity and the verdict itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerdictMessage {
    pub verdict: Verdict,
    pub proof: Tag,
}

impl VerdictMessage {
    pub const LEN: usize = 1 + 1 + 32;

    /// The server's signed `verdict` on the verified `client` answering `server`.
    pub fn new(
        auth: &dyn Authenticator,
        server: &ServerHello,
        client: &ClientAuth,
        verdict: Verdict,
    ) -> Self {
        let proof = auth.tag(&[SERVER_LABEL, &client.transcript(server), &[verdict.code()]]);
        Self { verdict, proof }
    }

    /// The verdict, once the server's proof verifies (the client's side).
    pub fn verify(
        &self,
        auth: &dyn Authenticator,
        server: &ServerHello,
        client: &ClientAuth,
    ) -> Result<Verdict, WireError> {
        let parts: [&[u8]; 3] = [
            SERVER_LABEL,
            &client.transcript(server),
            &[self.verdict.code()],
        ];
        if auth.verify(&parts, &self.proof) {
            Ok(self.verdict)
        } else {
            Err(WireError::AuthFailed)
        }
    }

    pub fn encode(&self, out: &mut BytesMut) {
        out.put_u8(T_VERDICT);
        out.put_u8(self.verdict.code());
        out.put_slice(&self.proof);
    }

    pub fn decode(buf: &mut BytesMut) -> Result<Option<Self>, WireError> {
        let Some(mut m) = take(buf, T_VERDICT, Self::LEN)? else {
            return Ok(None);
        };
        let verdict = match m.get_u8() {
            0 => Verdict::Accepted,
            c => Verdict::Refused(Refusal::from_code(c)),
        };
        Ok(Some(Self {
            verdict,
            proof: array(&mut m),
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

    /// One handshake between a client keyed `client_key` and a server keyed `server_key`:
    /// the server's check of the client proof, then (if it passed) the client's check of the
    /// server's verdict.
    fn run(
        client_key: u8,
        server_key: u8,
    ) -> (
        Result<ClientAuth, WireError>,
        Option<Result<Verdict, WireError>>,
    ) {
        let (ck, sk) = (Toy(client_key), Toy(server_key));
        let mut wire = BytesMut::new();
        ClientHello::new(true).encode(&mut wire);
        assert!(ClientHello::decode(&mut wire).unwrap().unwrap().integrity);
        let sh = ServerHello::new([2; 32], [8; 32]);
        sh.encode(&mut wire);
        let got_sh = ServerHello::decode(&mut wire).unwrap().unwrap();
        let auth = ClientAuth::new(&ck, &got_sh, [1; 32], [9; 32], ConnId(3), Some(FlowId(4)));
        auth.encode(&mut wire);
        let got_auth = ClientAuth::decode(&mut wire).unwrap().unwrap();
        let server_side = got_auth.verify(&sk, &sh).map(|()| got_auth.clone());
        if server_side.is_err() {
            // The server closes without a word: nothing keyed reaches the client.
            return (server_side, None);
        }
        VerdictMessage::new(&sk, &sh, &got_auth, Verdict::Accepted).encode(&mut wire);
        let v = VerdictMessage::decode(&mut wire).unwrap().unwrap();
        (server_side, Some(v.verify(&ck, &got_sh, &auth)))
    }

    #[test]
    fn same_key_authenticates_both_ways() {
        let (s, c) = run(5, 5);
        let auth = s.unwrap();
        assert_eq!(
            (auth.conn, auth.owner, auth.session, auth.nonce),
            (ConnId(3), Some(FlowId(4)), [9; 32], [1; 32])
        );
        assert_eq!(c, Some(Ok(Verdict::Accepted)));
    }

    #[test]
    fn wrong_key_fails_before_the_server_proves_anything() {
        let (s, c) = run(5, 6);
        assert_eq!(s.unwrap_err(), WireError::AuthFailed);
        assert_eq!(c, None);
    }

    #[test]
    fn the_server_hello_carries_nothing_keyed() {
        // The same nonce gives the same bytes under any key: nothing to test a guess against.
        let (mut a, mut b) = (BytesMut::new(), BytesMut::new());
        ServerHello::new([7; 32], [8; 32]).encode(&mut a);
        ServerHello::new([7; 32], [8; 32]).encode(&mut b);
        assert_eq!(a, b);
        assert_eq!(a.len(), ServerHello::LEN);
    }

    #[test]
    fn a_forged_or_replayed_verdict_is_refused() {
        let k = Toy(1);
        let sh = ServerHello::new([2; 32], [8; 32]);
        let auth = ClientAuth::new(&k, &sh, [1; 32], [0; 32], ConnId(1), None);
        let v = VerdictMessage::new(&k, &sh, &auth, Verdict::Refused(Refusal::ShuttingDown));
        // The refusal cannot be turned into an acceptance,
        let mut flipped = v;
        flipped.verdict = Verdict::Accepted;
        assert_eq!(flipped.verify(&k, &sh, &auth), Err(WireError::AuthFailed));
        // nor replayed on a connection with another client nonce or server nonce.
        let other = ClientAuth::new(&k, &sh, [3; 32], [0; 32], ConnId(1), None);
        assert_eq!(v.verify(&k, &sh, &other), Err(WireError::AuthFailed));
        let sh2 = ServerHello::new([4; 32], [8; 32]);
        assert_eq!(v.verify(&k, &sh2, &auth), Err(WireError::AuthFailed));
        assert_eq!(
            v.verify(&k, &sh, &auth),
            Ok(Verdict::Refused(Refusal::ShuttingDown))
        );
    }

    #[test]
    fn tampered_owner_or_nonce_is_refused() {
        let k = Toy(1);
        let sh = ServerHello::new([2; 32], [8; 32]);
        let mut auth = ClientAuth::new(&k, &sh, [1; 32], [0; 32], ConnId(1), Some(FlowId(1)));
        auth.owner = Some(FlowId(2));
        assert_eq!(auth.verify(&k, &sh), Err(WireError::AuthFailed));
        let auth = ClientAuth::new(&k, &sh, [1; 32], [0; 32], ConnId(1), Some(FlowId(1)));
        // A proof replayed against another server nonce, or another server share.
        assert_eq!(
            auth.verify(&k, &ServerHello::new([5; 32], [8; 32])),
            Err(WireError::AuthFailed)
        );
        assert_eq!(
            auth.verify(&k, &ServerHello::new([2; 32], [6; 32])),
            Err(WireError::AuthFailed)
        );
        // A proof moved to another session.
        let mut moved = auth.clone();
        moved.session = [1; 32];
        assert_eq!(moved.verify(&k, &sh), Err(WireError::AuthFailed));
    }

    #[test]
    fn hello_and_auth_round_trip_with_their_public_keys() {
        let sh = ServerHello::new([2; 32], [0xA5; 32]);
        let mut b = BytesMut::new();
        sh.encode(&mut b);
        assert_eq!(b.len(), ServerHello::LEN);
        b.extend_from_slice(&[T_CLIENT_AUTH]);
        assert_eq!(ServerHello::decode(&mut b), Ok(Some(sh.clone())));
        assert_eq!(&b[..], &[T_CLIENT_AUTH], "the next message stays");
        let auth = ClientAuth::new(&Toy(3), &sh, [1; 32], [0x5A; 32], ConnId(7), None);
        let mut b = BytesMut::new();
        auth.encode(&mut b);
        assert_eq!(b.len(), ClientAuth::LEN);
        // Incomplete: nothing taken until the last byte arrives.
        let mut part = BytesMut::from(&b[..ClientAuth::LEN - 1]);
        assert_eq!(ClientAuth::decode(&mut part), Ok(None));
        assert_eq!(part.len(), ClientAuth::LEN - 1);
        assert_eq!(ClientAuth::decode(&mut b), Ok(Some(auth)));
        let mut part = BytesMut::from(&[T_SERVER_HELLO, b'G', b'T'][..]);
        assert_eq!(ServerHello::decode(&mut part), Ok(None));
    }

    #[test]
    fn a_version_2_hello_is_refused_by_its_version() {
        // Version 2's hello: type, magic, version 2, the client nonce (same length).
        let mut b = BytesMut::new();
        b.put_u8(T_CLIENT_HELLO);
        b.put_slice(MAGIC);
        b.put_u16(2);
        b.put_bytes(0xAB, 32);
        let e = ClientHello::decode(&mut b).unwrap_err();
        assert_eq!(e, WireError::BadVersion(2));
        let msg = e.to_string();
        assert!(
            msg.contains("version 2") && msg.contains(&format!("speaks {VERSION}")),
            "{msg}"
        );
    }

    #[test]
    fn a_version_4_hello_is_refused_by_its_version() {
        // Version 4's hello has this version's length and layout: refused as soon as it is
        // whole (a server of version 4 likewise refuses this version's hello).
        let mut b = BytesMut::new();
        ClientHello {
            version: 4,
            integrity: true,
        }
        .encode(&mut b);
        assert_eq!(ClientHello::decode(&mut b), Err(WireError::BadVersion(4)));
    }

    #[test]
    fn bad_magic_version_and_order_are_errors() {
        let mut b = BytesMut::new();
        ClientHello {
            version: 9,
            integrity: true,
        }
        .encode(&mut b);
        assert_eq!(ClientHello::decode(&mut b), Err(WireError::BadVersion(9)));
        let mut b = BytesMut::new();
        ClientHello::new(true).encode(&mut b);
        b[1] = b'X';
        assert_eq!(ClientHello::decode(&mut b), Err(WireError::BadMagic));
        let mut b = BytesMut::new();
        ClientHello::new(false).encode(&mut b);
        b[20] = 1;
        assert_eq!(ClientHello::decode(&mut b), Err(WireError::BadFlags(1)));
        let mut b = BytesMut::new();
        ClientHello::new(false).encode(&mut b);
        assert!(!ClientHello::decode(&mut b).unwrap().unwrap().integrity);
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
            let m = VerdictMessage {
                verdict: v,
                proof: [3; 32],
            };
            let mut b = BytesMut::new();
            m.encode(&mut b);
            b.extend_from_slice(&[0x06]);
            assert_eq!(VerdictMessage::decode(&mut b), Ok(Some(m)));
            assert_eq!(&b[..], &[0x06], "frames after the verdict stay");
        }
        let mut b = BytesMut::from(&[T_VERDICT, 0][..]);
        assert_eq!(VerdictMessage::decode(&mut b), Ok(None));
    }
}
