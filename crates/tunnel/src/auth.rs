//! The handshake's keys (the [core's handshake](gtcp::wire::handshake) carries their public
//! halves and takes the MACs from here):
//!
//! * the pre-shared key ([`PreSharedKey`]), checked by [`crate::psk`];
//! * the client's [`SessionKey`], an X25519 key pair drawn when the client starts: its public
//!   half names the session (the [`SessionId`]), its private half never leaves the process;
//! * the server's [`ServerShare`], an X25519 key pair drawn for one connection;
//! * the [`ConnKey`] of one connection, HKDF-SHA-256 (RFC 5869) of the pre-shared key and the
//!   X25519 secret of the session key with the server's share, salted with both nonces:
//!   it keys both proofs (HMAC-SHA-256, RFC 2104) and the connection's [record layer](crate::record).
//!
//! Deriving a connection key takes the pre-shared key *and* the session's private key (or the
//! server's private share of that connection), so a holder of the pre-shared key who observed a
//! client's handshakes can neither join its session nor read its connections
//! (docs/RELIABILITY.md, attack 8). X25519 comes from `x25519-dalek`, HKDF and HMAC from the
//! `hkdf`, `hmac` and `sha2` crates: no hand-written cryptography.

use gtcp::wire::handshake::{Authenticator, KeyShare, Nonce, ServerHello, SessionId, Tag};
use hkdf::Hkdf;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;
use x25519_dalek::{PublicKey, SharedSecret, StaticSecret};

/// HKDF info label of a connection key (followed by the server's share and the session id).
pub const CONN_INFO: &[u8] = b"schedtcp connection v5";

/// The pre-shared key. It also says whether pool connections run the
/// [record layer](crate::record) after the handshake (both ends must agree; on by default).
#[derive(Clone)]
pub struct PreSharedKey(Vec<u8>, bool);

/// A key exchange that gives no secret: the peer's public key is of small order, so the
/// X25519 output is a value anyone can compute (RFC 7748 §6.1's all-zero check).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the peer's public key is of small order: its key exchange gives no secret")]
pub struct NonContributory;

impl PreSharedKey {
    /// The key, with integrity on.
    pub fn new(key: &[u8]) -> Self {
        Self(key.to_vec(), true)
    }

    /// The key, with integrity on or off (`integrity = false` in both configurations: only to
    /// measure its cost on a trusted path).
    pub fn with_integrity(key: &[u8], integrity: bool) -> Self {
        Self(key.to_vec(), integrity)
    }

    /// Whether pool connections authenticate every byte after the handshake.
    pub fn integrity(&self) -> bool {
        self.1
    }

    /// The client's key for the connection that `hello` opened, with its fresh `client_nonce`.
    pub fn client_connection(
        &self,
        session: &SessionKey,
        hello: &ServerHello,
        client_nonce: &Nonce,
    ) -> Result<ConnKey, NonContributory> {
        let dh = session.secret.diffie_hellman(&PublicKey::from(hello.share));
        self.connection(&dh, hello, client_nonce, &session.id)
    }

    /// The server's key for the connection whose hello carried `share` (used up here), claiming
    /// `session` with `client_nonce`.
    pub fn server_connection(
        &self,
        share: ServerShare,
        hello: &ServerHello,
        client_nonce: &Nonce,
        session: &SessionId,
    ) -> Result<ConnKey, NonContributory> {
        let dh = share.secret.diffie_hellman(&PublicKey::from(*session));
        self.connection(&dh, hello, client_nonce, session)
    }

    fn connection(
        &self,
        dh: &SharedSecret,
        hello: &ServerHello,
        client_nonce: &Nonce,
        session: &SessionId,
    ) -> Result<ConnKey, NonContributory> {
        if !dh.was_contributory() {
            return Err(NonContributory);
        }
        let mut salt = [0u8; 64];
        salt[..32].copy_from_slice(&hello.nonce);
        salt[32..].copy_from_slice(client_nonce);
        let mut ikm = Vec::with_capacity(self.0.len() + 32);
        ikm.extend_from_slice(&self.0);
        ikm.extend_from_slice(dh.as_bytes());
        let hk = Hkdf::<Sha256>::new(Some(&salt), &ikm);
        ikm.fill(0);
        let mut key = [0u8; 32];
        hk.expand_multi_info(&[CONN_INFO, &hello.share, session], &mut key)
            .unwrap_or_else(|_| unreachable!("32 bytes is a valid HKDF length"));
        Ok(ConnKey(key))
    }
}

impl std::fmt::Debug for PreSharedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PreSharedKey(..)")
    }
}

/// 32 bytes from the thread's generator (ChaCha seeded by the operating system).
fn random_secret() -> StaticSecret {
    let mut b = [0u8; 32];
    rand::rng().fill_bytes(&mut b);
    let s = StaticSecret::from(b);
    b.fill(0);
    s
}

/// The client's session key pair: drawn when the client starts, used on every connection of
/// its session; its public half is the session id.
pub struct SessionKey {
    secret: StaticSecret,
    id: SessionId,
}

impl SessionKey {
    pub fn generate() -> Self {
        Self::from_secret(random_secret())
    }

    /// The key pair of given private bytes (reproducible sessions in tests).
    pub fn from_bytes(secret: [u8; 32]) -> Self {
        Self::from_secret(StaticSecret::from(secret))
    }

    fn from_secret(secret: StaticSecret) -> Self {
        let id = PublicKey::from(&secret).to_bytes();
        Self { secret, id }
    }

    /// The session id: the public key.
    pub fn id(&self) -> SessionId {
        self.id
    }
}

impl std::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SessionKey({:02x?}..)", &self.id[..4])
    }
}

/// The server's key pair for one connection (its private half is used once, then dropped and
/// wiped).
pub struct ServerShare {
    secret: StaticSecret,
    public: KeyShare,
}

impl ServerShare {
    pub fn generate() -> Self {
        let secret = random_secret();
        let public = PublicKey::from(&secret).to_bytes();
        Self { secret, public }
    }

    /// The public half, sent in the server's hello.
    pub fn public(&self) -> KeyShare {
        self.public
    }
}

/// The key of one pool connection: keys both handshake proofs and the connection's record
/// layer.
#[derive(Clone)]
pub struct ConnKey([u8; 32]);

impl ConnKey {
    /// The key's bytes (input of the record keys' derivation).
    pub(crate) fn bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl std::fmt::Debug for ConnKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ConnKey(..)")
    }
}

impl Drop for ConnKey {
    fn drop(&mut self) {
        self.0.fill(0);
    }
}

fn mac(key: &[u8], parts: &[&[u8]]) -> Hmac<Sha256> {
    // HMAC accepts keys of any length.
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!());
    for p in parts {
        m.update(p);
    }
    m
}

impl Authenticator for ConnKey {
    fn tag(&self, parts: &[&[u8]]) -> Tag {
        mac(&self.0, parts).finalize().into_bytes().into()
    }

    fn verify(&self, parts: &[&[u8]], tag: &Tag) -> bool {
        // Constant-time comparison inside `hmac`.
        mac(&self.0, parts).verify_slice(tag).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4231_case_2() {
        // RFC 4231, test case 2: key "Jefe", data "what do ya want for nothing?".
        let tag: Tag = mac(b"Jefe", &[b"what do ya want ", b"for nothing?"])
            .finalize()
            .into_bytes()
            .into();
        let hex: String = tag.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    /// The client's and the server's derivations, for one hello.
    fn both(psk: &[u8], client: &SessionKey, claimed: &SessionId) -> (ConnKey, ConnKey) {
        let share = ServerShare::generate();
        let hello = ServerHello::new([1; 32], share.public());
        let k = PreSharedKey::new(psk);
        let c = k.client_connection(client, &hello, &[2; 32]).unwrap();
        let s = k
            .server_connection(share, &hello, &[2; 32], claimed)
            .unwrap();
        (c, s)
    }

    #[test]
    fn both_ends_derive_the_same_connection_key() {
        let client = SessionKey::generate();
        let (c, s) = both(&[7; 32], &client, &client.id());
        assert_eq!(c.bytes(), s.bytes());
        let tag = c.tag(&[b"proof"]);
        assert!(s.verify(&[b"proof"], &tag));
    }

    #[test]
    fn the_pre_shared_key_alone_does_not_give_the_connection_key() {
        // A key holder claiming another client's session with a key pair of its own: the
        // server derives the victim's key, which the intruder cannot.
        let victim = SessionKey::generate();
        let intruder = SessionKey::generate();
        let (c, s) = both(&[7; 32], &intruder, &victim.id());
        assert_ne!(c.bytes(), s.bytes());
        assert!(!s.verify(&[b"proof"], &c.tag(&[b"proof"])));
        // Nor does the right session key without the pre-shared key.
        let share = ServerShare::generate();
        let hello = ServerHello::new([1; 32], share.public());
        let c = PreSharedKey::new(&[8; 32])
            .client_connection(&victim, &hello, &[2; 32])
            .unwrap();
        let s = PreSharedKey::new(&[7; 32])
            .server_connection(share, &hello, &[2; 32], &victim.id())
            .unwrap();
        assert_ne!(c.bytes(), s.bytes());
    }

    #[test]
    fn a_small_order_session_key_is_refused() {
        // The identity point (u = 0) and u = 1: X25519 with either gives all zeros.
        for u in [[0u8; 32], {
            let mut one = [0u8; 32];
            one[0] = 1;
            one
        }] {
            let share = ServerShare::generate();
            let hello = ServerHello::new([1; 32], share.public());
            let r = PreSharedKey::new(&[7; 32]).server_connection(share, &hello, &[2; 32], &u);
            assert_eq!(r.err(), Some(NonContributory));
        }
    }
}
