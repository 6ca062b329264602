//! `morris serve` for the HTTP tests (`tests/serve.rs`, `tests/browser.rs`): a server on
//! a free loopback port, and a plain HTTP client, so that the tests need no HTTP crate.
#![allow(dead_code)] // each test crate uses part of it

use serde_json::Value as Json;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `morris serve`, killed when dropped (also when a test panics).
pub struct Server {
    child: Child,
    /// `host:port`.
    pub addr: String,
}

impl Server {
    /// Starts `morris serve --db DB` on a free port with the `extra` options, and waits
    /// for the address line it prints first.
    pub fn start(db: &std::path::Path, extra: &[&str]) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_morris"));
        cmd.args(["serve", "--db"]).arg(db).args(["--addr", "127.0.0.1:0"]).args(extra);
        Server::spawn(cmd)
    }

    /// Like `start`, run in the directory `cwd`, so that `db` may be relative (`.`).
    pub fn start_in(cwd: &std::path::Path, db: &str, extra: &[&str]) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_morris"));
        cmd.current_dir(cwd).args(["serve", "--db", db, "--addr", "127.0.0.1:0"]).args(extra);
        Server::spawn(cmd)
    }

    /// Like `start`, with the limit on open files lowered to `files`.
    pub fn start_with_file_limit(db: &std::path::Path, extra: &[&str], files: u32) -> Server {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(format!("ulimit -n {files} && exec \"$0\" \"$@\""));
        cmd.arg(env!("CARGO_BIN_EXE_morris")).args(["serve", "--db"]).arg(db).args(["--addr", "127.0.0.1:0"]).args(extra);
        Server::spawn(cmd)
    }

    fn spawn(mut cmd: Command) -> Server {
        let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().expect("start morris serve");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).expect("read the server's first line");
        // Keep draining stdout so that the server never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = out.read_to_end(&mut sink);
        });
        let addr = line.split("http://").nth(1).and_then(|r| r.split('/').next()).unwrap_or_else(|| panic!("no address in the server's first line: {line:?}")).to_string();
        assert!(addr.starts_with("127.0.0.1:"), "unexpected address line: {line:?}");
        Server { child, addr }
    }

    /// `http://host:port`, for a browser.
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// GET `path` with `Connection: close`: the status, the headers (lowercase) and
    /// the body.
    pub fn get(&self, path: &str) -> (u16, String, String) {
        let mut s = TcpStream::connect(&self.addr).expect("connect to the server");
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        write!(s, "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", self.addr).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).expect("read the response");
        let text = String::from_utf8(raw).expect("UTF-8 response");
        let (head, body) = text.split_once("\r\n\r\n").expect("HTTP response");
        let status = head.split_whitespace().nth(1).and_then(|c| c.parse().ok()).expect("status code");
        (status, head.to_lowercase(), body.to_string())
    }

    /// GET `path` and parse the body as JSON.
    pub fn json(&self, path: &str) -> (u16, Json) {
        let (status, _, body) = self.get(path);
        (status, serde_json::from_str(&body).unwrap_or_else(|e| panic!("bad JSON from {path} ({e}): {body}")))
    }

    /// `GET /api/ENDPOINT?position=POSITION`.
    pub fn api(&self, endpoint: &str, position: &str) -> (u16, Json) {
        self.json(&format!("/api/{endpoint}?position={}", encode(position)))
    }

    /// `/api/probe` of a position that must succeed.
    pub fn probe(&self, position: &str) -> Json {
        let (status, v) = self.api("probe", position);
        assert_eq!(status, 200, "probe {position:?}: {v}");
        v
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Percent-encoding of everything but the unreserved characters.
pub fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
