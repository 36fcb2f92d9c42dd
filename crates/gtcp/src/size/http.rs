//! Where each HTTP/1.1 response in a byte stream ends, from its `Content-Length`.

/// Longest response header this reader looks through (bytes). A longer header, or one it
/// cannot parse, makes it give up for the rest of the stream: sizes become unknown, nothing
/// breaks.
pub const MAX_HEADER: usize = 16 * 1024;

/// Watches the bytes of a responding direction (e.g. a web server's replies going back to the
/// client) and tells where the current response ends, so SRPT and FAIR know the remaining size.
/// Handles keep-alive: after one body ends the next header is read. Responses whose length is
/// not given by `Content-Length` (chunked, close-delimited) leave the size unknown, and so does
/// everything after them.
#[derive(Debug, Clone)]
pub struct HttpResponseSizer {
    state: State,
    /// Stream offset of the next byte to be fed.
    offset: u64,
    header: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading a header that started at this offset.
    Header,
    /// Inside a body that ends at this offset.
    Body { end: u64 },
    /// Lost track; sizes are unknown from here on.
    GaveUp,
}

impl Default for HttpResponseSizer {
    fn default() -> Self {
        Self {
            state: State::Header,
            offset: 0,
            header: Vec::new(),
        }
    }
}

impl HttpResponseSizer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next bytes of the stream; returns the end offset of the response being sent,
    /// when known (`None` once it gave up).
    pub fn feed(&mut self, mut data: &[u8]) -> Option<u64> {
        while !data.is_empty() {
            match self.state {
                State::GaveUp => {
                    self.offset += data.len() as u64;
                    return None;
                }
                State::Body { end } => {
                    let n = (end - self.offset).min(data.len() as u64) as usize;
                    self.offset += n as u64;
                    data = &data[n..];
                    if self.offset == end {
                        self.state = State::Header;
                        self.header.clear();
                    }
                }
                State::Header => {
                    let start = self.offset - self.header.len() as u64;
                    // Look for the blank line, including across the previous feed.
                    let old = self.header.len();
                    let take = data.len().min(MAX_HEADER + 4 - old);
                    self.header.extend_from_slice(&data[..take]);
                    match find_end(&self.header, old.saturating_sub(3)) {
                        Some(head_len) => {
                            let consumed = head_len - old;
                            self.offset += consumed as u64;
                            data = &data[consumed..];
                            // A length the stream cannot reach (near u64::MAX) is no size.
                            let end = content_length(&self.header[..head_len]).and_then(|len| {
                                start.checked_add(head_len as u64)?.checked_add(len)
                            });
                            self.state = match end {
                                Some(end) => State::Body { end },
                                None => State::GaveUp,
                            };
                            if let State::Body { end } = self.state {
                                if end == self.offset {
                                    self.state = State::Header;
                                    self.header.clear();
                                }
                            }
                        }
                        None if self.header.len() > MAX_HEADER => self.state = State::GaveUp,
                        None => {
                            self.offset += take as u64;
                            data = &data[take..];
                        }
                    }
                }
            }
        }
        self.known_end()
    }

    /// End of the response in progress, if known.
    pub fn known_end(&self) -> Option<u64> {
        match self.state {
            State::Body { end } => Some(end),
            // Between responses: what was sent so far is the known end.
            State::Header if self.header.is_empty() => Some(self.offset),
            _ => None,
        }
    }
}

/// Length of the header including the blank line, searching from `from`.
fn find_end(buf: &[u8], from: usize) -> Option<usize> {
    buf.get(from..)?
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|p| from + p + 4)
}

/// The body length of a response header, if `Content-Length` gives it unambiguously and no
/// `Transfer-Encoding` overrides it (RFC 9112, Section 6.3). Status 1xx, 204 and 304 have no
/// body.
fn content_length(head: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(head).ok()?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next()?;
    let mut parts = status_line.split(' ');
    if !parts.next()?.starts_with("HTTP/1.") {
        return None;
    }
    let status: u16 = parts.next()?.parse().ok()?;
    if (100..200).contains(&status) || status == 204 || status == 304 {
        return Some(0);
    }
    let mut length = None;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let name = name.trim();
        if name.eq_ignore_ascii_case("transfer-encoding") {
            return None;
        }
        if name.eq_ignore_ascii_case("content-length") {
            let v: u64 = value.trim().parse().ok()?;
            if length.is_some_and(|l| l != v) {
                return None;
            }
            length = Some(v);
        }
    }
    length
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_alive_responses_are_sized_one_after_another() {
        let r1 = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
        let r2 = b"HTTP/1.1 200 OK\r\ncontent-length:3\r\n\r\nabc";
        let mut s = HttpResponseSizer::new();
        // Split inside the header to check the search across feeds.
        assert_eq!(s.feed(&r1[..20]), None);
        assert_eq!(s.feed(&r1[20..]), Some(r1.len() as u64));
        let total = (r1.len() + r2.len()) as u64;
        assert_eq!(s.feed(&r2[..r2.len() - 1]), Some(total));
        assert_eq!(s.feed(&r2[r2.len() - 1..]), Some(total));
    }

    #[test]
    fn chunked_or_conflicting_lengths_give_up() {
        let mut s = HttpResponseSizer::new();
        assert_eq!(
            s.feed(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 9\r\n\r\n"),
            None
        );
        assert_eq!(s.feed(b"5\r\nhello\r\n"), None);
        let mut s = HttpResponseSizer::new();
        assert_eq!(
            s.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
            None
        );
    }

    /// `start + head_len + len` would overflow for a Content-Length near u64::MAX (a panic in
    /// debug builds, a wrong size in release ones): the size stays unknown instead.
    #[test]
    fn a_content_length_beyond_u64_gives_up_without_overflow() {
        for len in [u64::MAX, u64::MAX - 10, u64::MAX - 60] {
            let mut s = HttpResponseSizer::new();
            let r1 = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
            assert_eq!(s.feed(r1), Some(r1.len() as u64));
            let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {len}\r\n\r\n");
            let fits = (r1.len() as u64)
                .checked_add(head.len() as u64)
                .and_then(|x| x.checked_add(len));
            assert_eq!(s.feed(head.as_bytes()), fits);
            assert_eq!(s.feed(b"more body bytes"), fits);
        }
    }

    #[test]
    fn bodyless_statuses_and_oversized_headers() {
        let mut s = HttpResponseSizer::new();
        let r = b"HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n";
        assert_eq!(s.feed(r), Some(r.len() as u64));
        let mut s = HttpResponseSizer::new();
        let junk = vec![b'x'; MAX_HEADER + 10];
        assert_eq!(s.feed(&junk), None);
        assert_eq!(s.feed(b"\r\n\r\n"), None);
    }
}
