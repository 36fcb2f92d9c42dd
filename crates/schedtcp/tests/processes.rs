//! The real binary: `schedtcp server` and `schedtcp client` as processes, a flow through them,
//! metrics scraped, then SIGTERM: both exit 0.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tunnel::loadgen::{self, FlowSpec};

fn free_port() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

fn temp_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("schedtcp-test-{}-{}", std::process::id(), line!()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Kills the child if the test fails half-way.
struct Guard(Child);
impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(args: &[&str]) -> Guard {
    Guard(
        Command::new(env!("CARGO_BIN_EXE_schedtcp"))
            .args(args)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn schedtcp"),
    )
}

/// Waits (bounded) until something listens on `addr`.
fn wait_listening(addr: SocketAddr) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < deadline, "{addr} never listened");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn sigterm_and_wait(g: &mut Guard) -> std::process::ExitStatus {
    let pid = g.0.id().to_string();
    Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(s) = g.0.try_wait().unwrap() {
            return s;
        }
        assert!(Instant::now() < deadline, "no exit after SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn real_processes_carry_flows_serve_metrics_and_stop_on_sigterm() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (target, _t) = rt
        .block_on(loadgen::start_target("127.0.0.1:0".parse().unwrap()))
        .unwrap();
    let dir = temp_dir();
    let (srv, cli, route, metrics) = (free_port(), free_port(), free_port(), free_port());
    keygen(&dir.join("psk.txt"));
    std::fs::write(
        dir.join("server.toml"),
        format!("listen = \"{srv}\"\nkey_file = \"psk.txt\"\npolicy = \"srpt\"\n[[route]]\nname = \"web\"\ntarget = \"{target}\"\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("client.toml"),
        format!("server = \"{srv}\"\nkey_file = \"psk.txt\"\npolicy = \"fair\"\nmetrics = \"{metrics}\"\n[[route]]\nname = \"web\"\nlisten = \"{route}\"\n"),
    )
    .unwrap();
    let _ = cli;
    let mut server = spawn(&[
        "server",
        "--config",
        dir.join("server.toml").to_str().unwrap(),
    ]);
    wait_listening(srv);
    let mut client = spawn(&[
        "client",
        "--config",
        dir.join("client.toml").to_str().unwrap(),
    ]);
    // The client binds its routes before its metrics endpoint: probing a route would open a flow.
    wait_listening(metrics);

    let specs = [
        FlowSpec {
            download: 2_000_000,
            upload: 10,
        },
        FlowSpec {
            download: 0,
            upload: 500_000,
        },
        FlowSpec {
            download: 1,
            upload: 1,
        },
    ];
    rt.block_on(async {
        let tasks: Vec<_> = specs
            .iter()
            .map(|&s| tokio::spawn(loadgen::run_flow(route, s)))
            .collect();
        for t in tasks {
            t.await
                .unwrap()
                .expect("flow intact through real processes");
        }
    });

    let mut m = TcpStream::connect(metrics).unwrap();
    m.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut text = String::new();
    m.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 200 OK"), "{text}");
    let value = |name: &str| -> f64 {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{name} missing in\n{text}"))
    };
    assert_eq!(value("schedtcp_flows_opened_total"), 3.0);
    // Uploads plus the 16-byte headers of the load generator.
    assert_eq!(
        value("schedtcp_bytes_handed_total"),
        (10 + 500_000 + 1 + 3 * 16) as f64
    );
    assert_eq!(
        value("schedtcp_bytes_delivered_total"),
        (2_000_001 + 3 * 32) as f64
    );

    assert!(
        sigterm_and_wait(&mut client).success(),
        "client exits 0 on SIGTERM"
    );
    assert!(
        sigterm_and_wait(&mut server).success(),
        "server exits 0 on SIGTERM"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_configuration_is_a_clear_error_not_a_panic() {
    let dir = temp_dir().join("bad");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("c.toml"), "server = \"127.0.0.1:1\"\nkey = \"short\"\n[[route]]\nname = \"x\"\nlisten = \"127.0.0.1:0\"\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_schedtcp"))
        .args(["client", "--config", dir.join("c.toml").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("at least 32 random bytes"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_schedtcp"))
        .args(["client", "--config", "/nonexistent.toml"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent.toml"));
    let _ = std::fs::remove_dir_all(dir);
}

/// `schedtcp keygen --out FILE`: a new owner-only key file.
fn keygen(path: &std::path::Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_schedtcp"))
        .args(["keygen", "--out", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `schedtcp keygen` writes a fresh owner-only key (never over an existing file) or prints
/// one; the tunnel starts with it, and refuses it once its group or others may read it,
/// saying how to fix that.
#[test]
fn keygen_makes_keys_the_tunnel_accepts_and_exposed_key_files_are_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("schedtcp-keygen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let key = dir.join("psk.hex");
    keygen(&key);
    let meta = std::fs::metadata(&key).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let text = std::fs::read_to_string(&key).unwrap();
    assert_eq!(text.trim().len(), 64);
    assert!(text.trim().bytes().all(|b| b.is_ascii_hexdigit()));
    let again = Command::new(env!("CARGO_BIN_EXE_schedtcp"))
        .args(["keygen", "--out", key.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!again.status.success(), "an existing key file is kept");
    assert_eq!(std::fs::read_to_string(&key).unwrap(), text);
    let printed = Command::new(env!("CARGO_BIN_EXE_schedtcp"))
        .arg("keygen")
        .output()
        .unwrap();
    let printed = String::from_utf8(printed.stdout).unwrap();
    assert_eq!(printed.trim().len(), 64);
    assert_ne!(printed.trim(), text.trim(), "every key is new");

    // The key loads: the client gets as far as binding its listener (on an address that is
    // not this host's, so it stops there).
    let cfg = dir.join("c.toml");
    std::fs::write(
        &cfg,
        "server = \"127.0.0.1:1\"\nkey_file = \"psk.hex\"\n[[route]]\nname = \"x\"\nlisten = \"192.0.2.1:9\"\n",
    )
    .unwrap();
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_schedtcp"))
            .args(["client", "--config", cfg.to_str().unwrap()])
            .output()
            .unwrap()
    };
    let err = String::from_utf8_lossy(&run().stderr).to_string();
    assert!(
        err.contains("binding 192.0.2.1:9"),
        "the key is accepted: {err}"
    );
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = run();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("chmod 600"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}
