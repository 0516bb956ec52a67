//! The commands. The server answers one command per connection; an EventPipe session's events
//! then follow its reply on that connection, and it is stopped from a second one.

use std::io::{Read, Write};

use crate::endpoint::{Conn, Endpoint};
use crate::protocol::{self, Header, ProcessInfo, SessionConfig};
use crate::Error;

/// Sends one command on a new connection and reads the reply's header and payload: `Ok` with the
/// payload for OK, [`Error::Runtime`] for an error reply. Returns the connection too, for a
/// session's stream.
fn request(
    ep: &Endpoint,
    name: &'static str,
    set: u8,
    id: u8,
    payload: &[u8],
) -> Result<(Vec<u8>, Conn), Error> {
    let conn = ep.connect()?;
    exchange(conn, name, set, id, payload)
}

/// Sends one command on `conn` (a new connection, or one a runtime opened to us and advertised
/// itself on) and reads the reply, as [`request`].
pub(crate) fn exchange(
    mut conn: Conn,
    name: &'static str,
    set: u8,
    id: u8,
    payload: &[u8],
) -> Result<(Vec<u8>, Conn), Error> {
    let msg = protocol::message(set, id, payload)
        .ok_or_else(|| Error::Protocol(format!("the {name} command is too large")))?;
    conn.write_all(&msg)?;
    let mut h = [0u8; protocol::HEADER_LEN];
    read_exact(&mut conn, &mut h, name)?;
    let Header {
        set, payload_len, ..
    } = protocol::parse_header(&h).map_err(Error::Protocol)?;
    let id = h[17];
    let mut body = vec![0u8; payload_len];
    read_exact(&mut conn, &mut body, name)?;
    if set != protocol::SET_SERVER {
        return Err(Error::Protocol(format!(
            "the reply to {name} has command set 0x{set:02X}, not the server's 0xFF"
        )));
    }
    match id {
        protocol::REPLY_OK => Ok((body, conn)),
        protocol::REPLY_ERROR => {
            let code = protocol::Cursor::new(&body)
                .u32("error code")
                .map_err(Error::Protocol)?;
            Err(Error::Runtime {
                command: name,
                code,
            })
        }
        other => Err(Error::Protocol(format!(
            "the reply to {name} has id 0x{other:02X}, neither OK nor ERROR"
        ))),
    }
}

fn read_exact(conn: &mut Conn, buf: &mut [u8], name: &str) -> Result<(), Error> {
    conn.read_exact(buf).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => Error::Protocol(format!(
            "the runtime closed the connection before answering {name}"
        )),
        _ => Error::Io(e),
    })
}

/// ProcessInfo2, or ProcessInfo where the runtime does not know it (.NET Core 3.1 answers
/// UNKNOWN_COMMAND to both: the error is then the caller's to turn into facts from elsewhere).
pub fn process_info(ep: &Endpoint) -> Result<ProcessInfo, Error> {
    match request(
        ep,
        "ProcessInfo2",
        protocol::SET_PROCESS,
        protocol::PROCESS_INFO2,
        &[],
    ) {
        Ok((body, _)) => protocol::parse_process_info(&body, true).map_err(Error::Protocol),
        Err(e) if e.is_unknown_command() => {
            let (body, _) = request(
                ep,
                "ProcessInfo",
                protocol::SET_PROCESS,
                protocol::PROCESS_INFO,
                &[],
            )?;
            protocol::parse_process_info(&body, false).map_err(Error::Protocol)
        }
        Err(e) => Err(e),
    }
}

/// A running session: its id (the runtime's pointer to it) and the connection its NetTrace stream
/// comes on, right after the reply.
pub struct Session {
    pub id: u64,
    pub stream: Conn,
}

/// A session and how it was asked for.
pub struct Started {
    pub session: Session,
    /// The CollectTracing version the runtime took (3, or 2 on runtimes before .NET 9).
    pub version: u8,
    /// Said when the runtime lacked CollectTracing3: the stacks setting could not be passed.
    pub fell_back: Option<String>,
}

/// Starts an EventPipe session: CollectTracing3, or CollectTracing2 where the runtime does not
/// know it (before .NET 9; CollectTracing2 has no stackwalk switch, so stacks are then on).
pub fn start(ep: &Endpoint, config: &SessionConfig) -> Result<Started, Error> {
    start_with(&mut || ep.connect(), config)
}

/// [`start`] over connections from `connect`: each command takes a fresh one.
pub(crate) fn start_with(
    connect: &mut dyn FnMut() -> Result<Conn, Error>,
    config: &SessionConfig,
) -> Result<Started, Error> {
    let mut try_version = |v: u8| {
        let (id, name) = match v {
            3 => (protocol::EVENTPIPE_COLLECT3, "CollectTracing3"),
            _ => (protocol::EVENTPIPE_COLLECT2, "CollectTracing2"),
        };
        let payload = protocol::collect_payload(config, v);
        exchange(connect()?, name, protocol::SET_EVENTPIPE, id, &payload)
    };
    let (version, (body, conn), fell_back) = match try_version(3) {
        Ok(r) => (3, r, None),
        Err(e) if e.is_unknown_command() => {
            let note = (!config.stacks).then(|| {
                "the runtime lacks CollectTracing3 (before .NET 9): used CollectTracing2, which \
                 records stacks with every event"
                    .to_string()
            });
            (2, try_version(2)?, note)
        }
        Err(e) => return Err(e),
    };
    let id = protocol::Cursor::new(&body)
        .u64("session id")
        .map_err(Error::Protocol)?;
    Ok(Started {
        session: Session { id, stream: conn },
        version,
        fell_back,
    })
}

/// StopTracing for session `id`, on a new connection. The runtime writes the session's rundown
/// (when asked for) into the session's stream before it answers, so the stream must be read
/// while this waits; it answers OK even for a session that does not exist.
pub fn stop(ep: &Endpoint, id: u64) -> Result<(), Error> {
    request(
        ep,
        "StopTracing",
        protocol::SET_EVENTPIPE,
        protocol::EVENTPIPE_STOP,
        &id.to_le_bytes(),
    )
    .map(|_| ())
}
