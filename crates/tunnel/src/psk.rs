//! The pre-shared key: its format, the checks that refuse weak keys and exposed key files,
//! and the generation of new keys (`schedtcp keygen`).
//!
//! A key is at least [`MIN_KEY_BYTES`] (32) bytes of randomness written as hexadecimal (64
//! hex characters for 32 bytes; white space around it is ignored). Its bytes are the HMAC key
//! of the handshake and the input of the record keys' derivation (`record.rs`). Keys that are
//! visibly not random are refused: the example configurations' placeholder, repeated bytes or
//! patterns, arithmetic sequences, too few distinct bytes, text written as hex (every byte
//! printable ASCII). A key file that its group or others may read is refused, as ssh refuses
//! such a private key file; so is a configuration file holding the key inline (`key = "..."`)
//! that they may read (`config.rs`).

use std::io::{Read, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};
use rand::TryRngCore;

/// Fewest bytes of key (256 bits).
pub const MIN_KEY_BYTES: usize = 32;
/// Most bytes of key accepted (a key file is read up to this many hex characters, plus white
/// space: a bound on what a misnamed file can make the reader hold).
pub const MAX_KEY_BYTES: usize = 512;
/// The key of the example configurations: refused, so nobody runs with it.
pub const PLACEHOLDER: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Decodes and checks a key written as hex; the error says what is wrong and how to fix it.
pub fn parse(text: &str) -> Result<Vec<u8>> {
    let text = text.trim();
    let fix = "generate one with `schedtcp keygen --out psk.hex`";
    if text == PLACEHOLDER {
        bail!("the pre-shared key is the example configuration's placeholder: {fix}");
    }
    if text.len() < 2 * MIN_KEY_BYTES {
        bail!(
            "the pre-shared key must be at least {MIN_KEY_BYTES} random bytes written as {} hex characters (got {} characters): {fix}",
            2 * MIN_KEY_BYTES,
            text.chars().count()
        );
    }
    if text.len() > 2 * MAX_KEY_BYTES {
        bail!(
            "the pre-shared key has {} characters, more than the {} hex characters of a {MAX_KEY_BYTES}-byte key",
            text.len(),
            2 * MAX_KEY_BYTES
        );
    }
    if text.len() & 1 == 1 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!("the pre-shared key must be written as hex digits (0-9, a-f), two per byte: {fix}");
    }
    let key: Vec<u8> = text
        .as_bytes()
        .chunks(2)
        .map(|p| (hex_digit(p[0]) << 4) | hex_digit(p[1]))
        .collect();
    if let Some(why) = weakness(&key) {
        bail!("the pre-shared key is not random ({why}): {fix}");
    }
    Ok(key)
}

fn hex_digit(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        b'A'..=b'F' => b - b'A' + 10,
        _ => 0,
    }
}

/// Why `key` is visibly not random, if it is. Each test but the first refuses a random 32-byte
/// key with a probability far below 2^-100; the first, (95/256)^32 < 2^-45 (and `keygen` draws
/// again then).
fn weakness(key: &[u8]) -> Option<String> {
    let n = key.len();
    // Text written as hex (a passphrase): each byte printable ASCII. Such a key has a small
    // fraction of a random key's entropy, and a client proves the key first, so a fake server
    // could guess it offline from one handshake.
    if key.iter().all(|b| (0x20..=0x7e).contains(b)) {
        return Some(
            "every byte is printable ASCII: text written as hex, not random bytes".to_string(),
        );
    }
    // A repeated pattern: byte i equals byte i + p for every i (p = 1: one repeated byte).
    if let Some(p) = (1..=n / 2).find(|&p| (0..n - p).all(|i| key[i] == key[i + p])) {
        return Some(if p == 1 {
            "one byte repeated".to_string()
        } else {
            format!("a pattern of {p} bytes repeated")
        });
    }
    // A sequence: consecutive bytes differ by a constant (00 01 02 ..., ff fe fd ...).
    let d = key[1].wrapping_sub(key[0]);
    if key.windows(2).all(|w| w[1].wrapping_sub(w[0]) == d) {
        return Some("a sequence".to_string());
    }
    // Too few distinct values: 32 random bytes have about 30 distinct ones, and fewer than 16
    // with a probability below 2^-100.
    let mut seen = [false; 256];
    for &b in key {
        seen[b as usize] = true;
    }
    let distinct = seen.iter().filter(|s| **s).count();
    if distinct < n.min(256) / 2 {
        return Some(format!("only {distinct} distinct byte values in {n}"));
    }
    None
}

/// Reads and checks a key file: refused if its group or others may access it (the error
/// gives the `chmod`), too large, or not a good key.
pub fn read_file(path: &Path) -> Result<Vec<u8>> {
    let file = std::fs::File::open(path)
        .with_context(|| format!("reading key file {}", path.display()))?;
    check_private(&file, path, "key file")?;
    let mut text = String::new();
    file.take(4 * MAX_KEY_BYTES as u64)
        .read_to_string(&mut text)
        .with_context(|| format!("reading key file {}", path.display()))?;
    parse(&text).with_context(|| format!("in key file {}", path.display()))
}

/// Refuses a file holding a key (a key file, or a configuration file with the key inline)
/// that its group or others may access; the error names the file (`what`) and gives the
/// `chmod`. The mode checked is the opened file's (not the path's again): no race with a swap.
#[cfg(unix)]
pub(crate) fn check_private(file: &std::fs::File, path: &Path, what: &str) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = file
        .metadata()
        .with_context(|| format!("reading {what} {}", path.display()))?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        bail!(
            "{what} {} is accessible by its group or others (mode {:04o}): the key is not secret; run `chmod 600 {}`",
            path.display(),
            mode & 0o7777,
            path.display()
        );
    }
    Ok(())
}

#[cfg(not(unix))]
pub(crate) fn check_private(_: &std::fs::File, _: &Path, _: &str) -> Result<()> {
    Ok(())
}

/// A new key: [`MIN_KEY_BYTES`] bytes from the operating system's random number generator,
/// as hex.
pub fn generate() -> Result<String> {
    let mut k = [0u8; MIN_KEY_BYTES];
    loop {
        rand::rngs::OsRng
            .try_fill_bytes(&mut k)
            .context("the operating system's random number generator failed")?;
        if weakness(&k).is_none() {
            return Ok(k.iter().map(|b| format!("{b:02x}")).collect());
        }
    }
}

/// Writes a new key to `path` (which must not exist), readable by its owner only (0600).
pub fn write_new(path: &Path) -> Result<()> {
    let key = generate()?;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let mut f = opts
        .open(path)
        .with_context(|| format!("creating key file {} (it must not exist)", path.display()))?;
    writeln!(f, "{key}").with_context(|| format!("writing key file {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_are_accepted_and_differ() {
        let (a, b) = (generate().unwrap(), generate().unwrap());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        assert_eq!(parse(&a).unwrap().len(), 32);
        assert_eq!(
            parse(&format!("  {}\n", a.to_uppercase())).unwrap(),
            parse(&a).unwrap()
        );
    }

    #[test]
    fn weak_or_malformed_keys_are_refused_with_the_reason() {
        let seq: String = (0..32u8).map(|b| format!("{b:02x}")).collect();
        let down: String = (0..32u8).map(|b| format!("{:02x}", 200 - 3 * b)).collect();
        // Ten distinct values in no short pattern (an LCG modulo 101, taken modulo 10).
        let few: String = (0..32)
            .scan(5u32, |x, _| {
                *x = (*x * 37 + 11) % 101;
                Some(format!("{:02x}", *x % 10))
            })
            .collect();
        let cases = [
            (PLACEHOLDER.to_string(), "placeholder"),
            ("ab".repeat(32), "one byte repeated"),
            ("0123456789abcdef".repeat(4), "pattern of 8 bytes"),
            ("deadbeef".repeat(8), "pattern of 4 bytes"),
            (seq, "a sequence"),
            (down, "a sequence"),
            (few, "distinct byte values"),
            ("change-me-to-a-long-random-secret".into(), "at least 32"),
            ("g".repeat(64), "hex digits"),
            (format!("{}a", generate().unwrap()), "hex digits"),
            ("0".repeat(2000), "more than"),
            (
                b"correct horse battery staple 42!"
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect(),
                "printable ASCII",
            ),
        ];
        for (key, want) in cases {
            let msg = format!("{:#}", parse(&key).expect_err(want));
            assert!(msg.contains(want), "{key}: {msg:?} should mention {want:?}");
            assert!(
                msg.contains("keygen") || want == "more than",
                "{msg:?} should say how to fix it"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn key_files_others_may_read_are_refused_with_the_chmod() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("psk-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("psk.hex");
        let _ = std::fs::remove_file(&path);
        write_new(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "keygen writes an owner-only file");
        assert_eq!(read_file(&path).unwrap().len(), 32);
        assert!(
            write_new(&path).is_err(),
            "an existing key is never overwritten"
        );
        for bad in [0o644, 0o640, 0o604, 0o660] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(bad)).unwrap();
            let msg = format!("{:#}", read_file(&path).unwrap_err());
            assert!(
                msg.contains("chmod 600") && msg.contains(&format!("{bad:04o}")),
                "{msg}"
            );
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o400)).unwrap();
        assert!(read_file(&path).is_ok(), "read-only for the owner is fine");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
