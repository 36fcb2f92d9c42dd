//! Pool sockets: options and the handshake over a real stream.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use bytes::BytesMut;
use gtcp::wire::handshake::{
    ClientAuth, ClientHello, Refusal, ServerHello, Verdict, VerdictMessage,
};
use gtcp::wire::WireError;
use gtcp::{ConnId, FlowId};
use rand::RngCore;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::auth::{ConnKey, PreSharedKey, ServerShare, SessionKey};
use crate::record::{RecordLayer, Side};

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

/// The connection's maximum segment size (`TCP_MAXSEG`), bytes; 0 when the kernel does not
/// say. The writer of a pool connection writes whole segments while more is coming.
pub fn mss(stream: &TcpStream) -> usize {
    nix::sys::socket::getsockopt(stream, nix::sys::socket::sockopt::TcpMaxSeg)
        .map_or(0, |m| m as usize)
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

/// Client side of the handshake (the client proves the pre-shared key and its session key
/// first, then checks the server's proof in its verdict); returns the connection's record layer
/// (`integrity`) and the bytes that arrived after the handshake (normally none).
pub async fn client_handshake(
    stream: &mut TcpStream,
    key: &PreSharedKey,
    session: &SessionKey,
    conn: ConnId,
    owner: Option<FlowId>,
    timeout: Duration,
) -> Result<(Option<RecordLayer>, BytesMut)> {
    tokio::time::timeout(timeout, async {
        let mut out = BytesMut::new();
        ClientHello::new(key.integrity()).encode(&mut out);
        stream.write_all(&out).await?;
        let mut buf = BytesMut::new();
        let sh = read_msg(stream, &mut buf, ServerHello::decode)
            .await
            .context("the server did not answer the hello (a server of another version closes the connection)")?;
        let client_nonce = nonce();
        let conn_key = key
            .client_connection(session, &sh, &client_nonce)
            .context("the server's key share")?;
        let auth = ClientAuth::new(&conn_key, &sh, client_nonce, session.id(), conn, owner);
        out.clear();
        auth.encode(&mut out);
        stream.write_all(&out).await?;
        let verdict = read_msg(stream, &mut buf, VerdictMessage::decode)
            .await
            .context("the server refused the key (it closes the connection without a verdict)")?
            .verify(&conn_key, &sh, &auth)
            .context("the server does not know the pre-shared key")?;
        match verdict {
            Verdict::Accepted => Ok((
                key.integrity().then(|| {
                    RecordLayer::new(conn_key.bytes(), &sh.nonce, &auth.nonce, Side::Client)
                }),
                buf,
            )),
            Verdict::Refused(r) => Err(Refused(r).into()),
        }
    })
    .await
    .context("handshake timed out")?
}

/// What the server learnt in a handshake whose client proved the pre-shared key and the key of
/// the session it names: the client's identity, and what the verdict and the record keys need.
pub struct Proven {
    pub auth: ClientAuth,
    hello: ServerHello,
    key: ConnKey,
    integrity: bool,
}

/// Server side of the handshake: nothing keyed is sent before the client's proof verified,
/// and a proof verifies only under the key of the session the client names (its public key):
/// a client that holds the pre-shared key but not that session's private key is refused here,
/// before its connection touches the session. Returns the proven client and bytes that arrived
/// after its proof (frames the client sent at once; records, under integrity).
pub async fn server_handshake(
    stream: &mut TcpStream,
    key: &PreSharedKey,
    timeout: Duration,
) -> Result<(Proven, BytesMut)> {
    tokio::time::timeout(timeout, async {
        let mut buf = BytesMut::new();
        let client = read_msg(stream, &mut buf, ClientHello::decode).await?;
        if client.integrity != key.integrity() {
            bail!(
                "the client runs with integrity = {}, this server with integrity = {}: set the same on both ends",
                client.integrity,
                key.integrity()
            );
        }
        let share = ServerShare::generate();
        let hello = ServerHello::new(nonce(), share.public());
        let mut out = BytesMut::new();
        hello.encode(&mut out);
        stream.write_all(&out).await?;
        let auth = read_msg(stream, &mut buf, ClientAuth::decode).await?;
        let conn_key = key
            .server_connection(share, &hello, &auth.nonce, &auth.session)
            .context("the client's session key")?;
        auth.verify(&conn_key, &hello)
            .context("the client's proof (a wrong pre-shared key, or a session that is not its own)")?;
        Ok((
            Proven {
                auth,
                hello,
                key: conn_key,
                integrity: key.integrity(),
            },
            buf,
        ))
    })
    .await
    .context("handshake timed out")?
}

/// Ends the server's side of the handshake with its verdict, proving the key; on acceptance
/// returns the connection's record layer (`integrity`).
pub async fn send_verdict(
    stream: &mut TcpStream,
    proven: &Proven,
    verdict: Verdict,
) -> Result<Option<RecordLayer>> {
    let mut out = BytesMut::new();
    VerdictMessage::new(&proven.key, &proven.hello, &proven.auth, verdict).encode(&mut out);
    stream
        .write_all(&out)
        .await
        .context("sending the verdict")?;
    Ok(proven.integrity.then(|| {
        RecordLayer::new(
            proven.key.bytes(),
            &proven.hello.nonce,
            &proven.auth.nonce,
            Side::Server,
        )
    }))
}
