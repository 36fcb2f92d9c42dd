use thiserror::Error;

/// Why bytes from a peer could not be decoded. Each variant names the offending value so that the
/// log line that closes the connection says what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WireError {
    #[error("unknown frame type 0x{0:02x}")]
    UnknownFrame(u8),
    #[error("a handshake message arrived after the handshake (type 0x{0:02x})")]
    UnexpectedHandshake(u8),
    #[error("data frame payload of {len} bytes exceeds the cap of {cap}")]
    PayloadTooLarge { len: u32, cap: u32 },
    #[error("route name of {0} bytes is not valid UTF-8")]
    BadRoute(usize),
    #[error("flag bits 0x{0:02x} are not defined")]
    BadFlags(u8),
    #[error("offset {offset} + length {len} overflows")]
    Overflow { offset: u64, len: u64 },
    #[error("bad handshake magic")]
    BadMagic,
    #[error("the peer speaks wire protocol version {0}, this build speaks {v}: run the same schedtcp release on both ends", v = super::VERSION)]
    BadVersion(u16),
    #[error("handshake message of type 0x{got:02x} where 0x{want:02x} was expected")]
    UnexpectedMessage { got: u8, want: u8 },
    #[error("authentication failed")]
    AuthFailed,
    #[error("invalid flow id 0")]
    ZeroFlow,
    #[error("address family {0} is neither 4 nor 6")]
    BadAddressFamily(u8),
}
