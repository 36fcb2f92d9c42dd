//! Service integration: the systemd units in dist/systemd/ pass `systemd-analyze verify`, and
//! the daemons tell the service manager (`NOTIFY_SOCKET`, as systemd does for `Type=notify`)
//! that they are ready once they listen, reloading on SIGHUP, ready again, and stopping.

use std::net::SocketAddr;
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_schedtcp");

/// The temporary directory goes with the test.
struct Dir(PathBuf);
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(tag: &str) -> Dir {
    let d = std::env::temp_dir().join(format!("schedtcp-service-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Dir(d)
}

fn units() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../dist/systemd");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("dist/systemd")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "service"))
        .collect();
    v.sort();
    v
}

/// The units as shipped, with the binary at the path they name replaced by the one built here
/// (`verify` checks that every command exists). The man page they name is not installed here:
/// `--man=no`.
#[test]
fn the_systemd_units_pass_systemd_analyze_verify() {
    if Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("systemd-analyze is not installed: the units are not verified here");
        return;
    }
    let units = units();
    let names: Vec<_> = units
        .iter()
        .map(|p| p.file_name().unwrap().to_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        names,
        ["schedtcp-client.service", "schedtcp-server.service"]
    );
    let dir = temp_dir("verify");
    let mut copies = Vec::new();
    for u in &units {
        let text = std::fs::read_to_string(u).unwrap();
        assert!(text.contains("/usr/local/bin/schedtcp "), "{}", u.display());
        let copy = dir.0.join(u.file_name().unwrap());
        std::fs::write(
            &copy,
            text.replace("/usr/local/bin/schedtcp ", &format!("{BIN} ")),
        )
        .unwrap();
        copies.push(copy);
    }
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg("--man=no")
        .args(&copies)
        .output()
        .expect("systemd-analyze");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.trim().is_empty(),
        "systemd-analyze verify:\n{stderr}"
    );
}

fn free_port() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

struct Proc(Child);
impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The next notification, within a bound.
fn next(sock: &UnixDatagram) -> String {
    let mut buf = [0u8; 4096];
    let n = sock.recv(&mut buf).expect("a notification within 30 s");
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

#[test]
fn the_daemons_notify_ready_reloading_and_stopping() {
    let dir = temp_dir("notify");
    tunnel::psk::write_new(&dir.0.join("psk.hex")).unwrap();
    let (server, route) = (free_port(), free_port());
    let server_toml = format!(
        "listen = \"{server}\"\nkey_file = \"psk.hex\"\n[[route]]\nname = \"web\"\ntarget = \"127.0.0.1:9\"\n"
    );
    let client_toml = format!(
        "server = \"{server}\"\nkey_file = \"psk.hex\"\n[[route]]\nname = \"web\"\nlisten = \"{route}\"\n"
    );
    for (role, toml, listens) in [
        ("server", server_toml, server),
        ("client", client_toml, route),
    ] {
        let config = dir.0.join(format!("{role}.toml"));
        std::fs::write(&config, toml).unwrap();
        let socket_path = dir.0.join(format!("{role}.notify"));
        let sock = UnixDatagram::bind(&socket_path).unwrap();
        sock.set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let p = Proc(
            Command::new(BIN)
                .args([role, "--config", config.to_str().unwrap()])
                .env("NOTIFY_SOCKET", &socket_path)
                .env("RUST_LOG", "error")
                .stdout(Stdio::null())
                .spawn()
                .unwrap(),
        );
        assert_eq!(next(&sock).trim(), "READY=1", "{role}");
        // Ready means listening.
        std::net::TcpStream::connect(listens)
            .unwrap_or_else(|e| panic!("{role} not listening when ready: {e}"));
        let kill = |sig: &str| {
            assert!(Command::new("kill")
                .args([sig, &p.0.id().to_string()])
                .status()
                .unwrap()
                .success())
        };
        kill("-HUP");
        let reloading = next(&sock);
        let lines: Vec<&str> = reloading.lines().collect();
        assert_eq!(lines.first(), Some(&"RELOADING=1"), "{role}: {reloading:?}");
        let usec: u64 = lines
            .iter()
            .find_map(|l| l.strip_prefix("MONOTONIC_USEC="))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{role}: no MONOTONIC_USEC in {reloading:?}"));
        assert!(usec > 0);
        let ready = next(&sock);
        assert!(ready.lines().any(|l| l == "READY=1"), "{role}: {ready:?}");
        assert!(
            ready
                .lines()
                .any(|l| l.starts_with("STATUS=configuration ")),
            "{role}: {ready:?}"
        );
        kill("-TERM");
        assert_eq!(next(&sock).trim(), "STOPPING=1", "{role}");
    }
}
