//! Pool sockets: options and the handshake over a real stream.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use bytes::BytesMut;
use gtcp::wire::handshake::{ClientAuth, ClientHello, Refusal, ServerHello, SessionId, Verdict};
use gtcp::wire::WireError;
use gtcp::{ConnId, FlowId};
use rand::RngCore;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::auth::HmacKey;

/// Options of every pool socket: no Nagle delay, `TCP_NOTSENT_LOWAT` so that little is left
/// unsent in the kernel (0 keeps the system default), and `TCP_USER_TIMEOUT` = `dead_peer`, so
/// data the peer leaves unacknowledged that long kills the connection.
pub fn tune(stream: &TcpStream, notsent_lowat: u32, dead_peer: Duration) -> Result<()> {
    stream.set_nodelay(true).context("TCP_NODELAY")?;
    let sock = socket2::SockRef::from(stream);
    if notsent_lowat > 0 {
        sock.set_tcp_notsent_lowat(notsent_lowat)
            .context("TCP_NOTSENT_LOWAT")?;
    }
    sock.set_tcp_user_timeout(Some(dead_peer))
        .context("TCP_USER_TIMEOUT")?;
    Ok(())
}

/// The server refused the connection in its handshake answer: not a lost connection.
#[derive(Debug, thiserror::Error)]
#[error("the server refused the connection: {0}")]
pub struct Refused(pub Refusal);

pub fn nonce() -> [u8; 32] {
    let mut n = [0u8; 32];
    rand::rng().fill_bytes(&mut n);
    n
}

/// Reads until `decode` yields a message; bytes after it stay in `buf`.
async fn read_msg<T>(
    stream: &mut TcpStream,
    buf: &mut BytesMut,
    decode: impl Fn(&mut BytesMut) -> Result<Option<T>, WireError>,
) -> Result<T> {
    loop {
        if let Some(m) = decode(buf)? {
            return Ok(m);
        }
        if buf.len() > 4096 {
            bail!("handshake message too long");
        }
        if stream.read_buf(buf).await? == 0 {
            bail!("connection closed during the handshake");
        }
    }
}

/// Client side of the handshake; returns bytes that arrived after it (normally none).
pub async fn client_handshake(
    stream: &mut TcpStream,
    key: &HmacKey,
    session: SessionId,
    conn: ConnId,
    owner: Option<FlowId>,
    timeout: Duration,
) -> Result<BytesMut> {
    tokio::time::timeout(timeout, async {
        let hello = ClientHello::new(nonce());
        let mut out = BytesMut::new();
        hello.encode(&mut out);
        stream.write_all(&out).await?;
        let mut buf = BytesMut::new();
        let sh = read_msg(stream, &mut buf, ServerHello::decode).await?;
        sh.verify(key, &hello.nonce)
            .context("the server does not know the pre-shared key")?;
        let auth = ClientAuth::new(key, &hello, &sh, session, conn, owner);
        out.clear();
        auth.encode(&mut out);
        stream.write_all(&out).await?;
        match read_msg(stream, &mut buf, Verdict::decode).await? {
            Verdict::Accepted => Ok(buf),
            Verdict::Refused(r) => Err(Refused(r).into()),
        }
    })
    .await
    .context("handshake timed out")?
}

/// Server side of the handshake: the authenticated identity of the connection, and bytes that
/// arrived after the handshake (frames the client sent at once).
pub async fn server_handshake(
    stream: &mut TcpStream,
    key: &HmacKey,
    timeout: Duration,
) -> Result<(ClientAuth, BytesMut)> {
    tokio::time::timeout(timeout, async {
        let mut buf = BytesMut::new();
        let hello = read_msg(stream, &mut buf, ClientHello::decode).await?;
        let sh = ServerHello::answer(key, &hello, nonce());
        let mut out = BytesMut::new();
        sh.encode(&mut out);
        stream.write_all(&out).await?;
        let auth = read_msg(stream, &mut buf, ClientAuth::decode).await?;
        auth.verify(key, &hello, &sh)?;
        Ok((auth, buf))
    })
    .await
    .context("handshake timed out")?
}

/// Ends the server's side of the handshake with its verdict.
pub async fn send_verdict(stream: &mut TcpStream, verdict: Verdict) -> Result<()> {
    let mut out = BytesMut::new();
    verdict.encode(&mut out);
    stream.write_all(&out).await.context("sending the verdict")
}
