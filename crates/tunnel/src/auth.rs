//! HMAC-SHA-256 over the pre-shared key, for the core's handshake.

use gtcp::wire::handshake::{Authenticator, Tag};
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The pre-shared key; proofs are HMAC-SHA-256 (RFC 2104) from the `hmac` and `sha2` crates.
/// It also says whether pool connections run the [record layer](crate::record) after the
/// handshake (both ends must agree; on by default).
#[derive(Clone)]
pub struct HmacKey(Vec<u8>, bool);

impl HmacKey {
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

    /// The key's bytes (input of the record keys' derivation).
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }

    fn mac(&self, parts: &[&[u8]]) -> Hmac<Sha256> {
        // HMAC accepts keys of any length.
        let mut m =
            <Hmac<Sha256> as Mac>::new_from_slice(&self.0).unwrap_or_else(|_| unreachable!());
        for p in parts {
            m.update(p);
        }
        m
    }
}

impl std::fmt::Debug for HmacKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HmacKey(..)")
    }
}

impl Authenticator for HmacKey {
    fn tag(&self, parts: &[&[u8]]) -> Tag {
        self.mac(parts).finalize().into_bytes().into()
    }

    fn verify(&self, parts: &[&[u8]], tag: &Tag) -> bool {
        // Constant-time comparison inside `hmac`.
        self.mac(parts).verify_slice(tag).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4231_case_2() {
        // RFC 4231, test case 2: key "Jefe", data "what do ya want for nothing?".
        let k = HmacKey::new(b"Jefe");
        let tag = k.tag(&[b"what do ya want ", b"for nothing?"]);
        let hex: String = tag.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert!(k.verify(&[b"what do ya want for nothing?"], &tag));
        assert!(!HmacKey::new(b"jefe").verify(&[b"what do ya want for nothing?"], &tag));
    }
}
