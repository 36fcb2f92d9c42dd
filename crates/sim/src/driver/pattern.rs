//! Deterministic application payload: byte `off` of flow `flow` is a function of both, so the
//! destination can check that every byte it reads is the right byte of the right flow.

/// Period of the pattern (a prime, so neighbouring flows and offsets do not line up).
const PERIOD: usize = 251;
/// Longest slice [`fill`] / [`check`] handle in one step.
const SPAN: usize = 64 * 1024;

fn table() -> &'static [u8] {
    static T: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        (0..PERIOD + SPAN)
            .map(|i| ((i % PERIOD) as u8).wrapping_mul(37).wrapping_add(11))
            .collect()
    })
}

fn phase(flow: u64, off: u64) -> usize {
    ((off % PERIOD as u64 + (flow.wrapping_mul(97)) % PERIOD as u64) % PERIOD as u64) as usize
}

/// Appends `len` bytes of flow `flow` starting at offset `off` to `out`.
pub(crate) fn fill(flow: u64, mut off: u64, mut len: usize, out: &mut Vec<u8>) {
    let t = table();
    while len > 0 {
        let n = len.min(SPAN);
        let p = phase(flow, off);
        out.extend_from_slice(&t[p..p + n]);
        off += n as u64;
        len -= n;
    }
}

/// Number of bytes of `data` that differ from flow `flow`'s bytes at offset `off`.
pub(crate) fn check(flow: u64, mut off: u64, mut data: &[u8]) -> u64 {
    let t = table();
    let mut bad = 0;
    while !data.is_empty() {
        let n = data.len().min(SPAN);
        let p = phase(flow, off);
        if data[..n] != t[p..p + n] {
            bad += data[..n]
                .iter()
                .zip(&t[p..p + n])
                .filter(|(a, b)| a != b)
                .count() as u64;
        }
        off += n as u64;
        data = &data[n..];
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_then_check() {
        let mut v = Vec::new();
        fill(3, 1000, 200_000, &mut v);
        assert_eq!(v.len(), 200_000);
        assert_eq!(check(3, 1000, &v), 0);
        assert!(check(4, 1000, &v) > 0, "another flow's bytes differ");
        assert!(check(3, 1001, &v) > 0, "shifted bytes differ");
        let mut w = Vec::new();
        fill(3, 1000 + 70_000, 10, &mut w);
        assert_eq!(&v[70_000..70_010], &w[..]);
    }
}
