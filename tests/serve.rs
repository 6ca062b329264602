//! `morris serve`, run as a real process on small tables and asked over loopback.

use serde_json::Value as Json;
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn morris(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_morris")).args(args).output().unwrap()
}

/// A database made by `morris solve`, once per test process.
fn solved(cell: &'static OnceLock<tempfile::TempDir>, args: &[&str]) -> &'static str {
    cell.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let mut all = vec!["solve", "--db", dir.path().to_str().unwrap(), "--quiet"];
        all.extend_from_slice(args);
        let out = morris(&all);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        dir
    })
    .path()
    .to_str()
    .unwrap()
}

/// Every table of the 3-3 start: the whole game is in the tables.
fn whole_game() -> &'static str {
    static DB: OnceLock<tempfile::TempDir> = OnceLock::new();
    solved(&DB, &["--start", "3-3"])
}

/// Movement tables only: placement positions are searched.
fn movement_only() -> &'static str {
    static DB: OnceLock<tempfile::TempDir> = OnceLock::new();
    solved(&DB, &["--max-stones", "6"])
}

#[path = "common/server.rs"]
mod server;
use server::{encode, Server};

fn probe_path(pos: &str) -> String {
    format!("/api/probe?position={}", encode(pos))
}

/// The fields that the API and `morris probe --json` share.
fn essentials(j: &Json) -> Json {
    let moves: Vec<Json> = j["moves"].as_array().unwrap().iter().map(|m| serde_json::json!([m["move"], m["position"], m["result"], m["plies"]])).collect();
    serde_json::json!({ "position": j["position"], "result": j["result"], "plies": j["plies"], "moves": moves })
}

#[test]
fn probe_answers_as_the_command_line_does() {
    let db = whole_game();
    let server = Server::start(db.as_ref(), &[]);
    let mut pos = "........................ w 3 3".to_string();
    // Down a line of play, always the second-best move (or the only one).
    for _ in 0..8 {
        let (status, api) = server.json(&probe_path(&pos));
        assert_eq!(status, 200, "{api}");
        assert_eq!(api["method"], "table");
        let cli = morris(&["probe", "--db", db, "--json", &pos]);
        let cli: Json = serde_json::from_slice(&cli.stdout).unwrap();
        assert_eq!(essentials(&api), essentials(&cli), "{pos}");
        let moves = api["moves"].as_array().unwrap();
        if moves.is_empty() {
            break;
        }
        pos = moves[1.min(moves.len() - 1)]["position"].as_str().unwrap().to_string();
    }
}

#[test]
fn mainline_has_one_step_per_ply_and_ends_the_game() {
    let server = Server::start(whole_game().as_ref(), &[]);
    let start = ".WW....B.B....B........W b";
    let (status, j) = server.json(&format!("/api/mainline?position={}", encode(start)));
    assert_eq!(status, 200, "{j}");
    let plies = j["plies"].as_u64().unwrap();
    let line = j["mainline"].as_array().unwrap();
    assert_eq!(line.len() as u64, plies);
    // Each step is a legal move of the position before it, with that move's position,
    // and the values count down to the end.
    let mut at = start.to_string();
    for (k, step) in line.iter().enumerate() {
        let (_, here) = server.json(&probe_path(&at));
        let mv = here["moves"].as_array().unwrap().iter().find(|m| m["move"] == step["move"]).unwrap_or_else(|| panic!("{step} is not legal in {at}"));
        assert_eq!(mv["position"], step["position"]);
        assert_eq!(step["plies"].as_u64().unwrap(), plies - k as u64 - 1, "{step}");
        at = step["position"].as_str().unwrap().to_string();
    }
    let (_, end) = server.json(&probe_path(&at));
    assert_eq!(end["moves"].as_array().unwrap().len(), 0, "the line ends the game: {end}");
    assert_eq!(end["result"], "loss");
}

#[test]
fn bad_input_is_a_400_with_a_json_error_and_the_server_goes_on() {
    let server = Server::start(whole_game().as_ref(), &[]);
    let bad = [
        "/api/probe".to_string(),
        "/api/probe?pos=x".to_string(),
        probe_path("xx"),
        probe_path("WWWWWWWWWWWWWWWWWWWWWWWW w"),
        probe_path("........................ w 3"),
        probe_path("........................ q 3 3"),
        probe_path("........................ w 99 3"),
        "/api/probe?position=%FF%FE".to_string(),
        format!("/api/mainline?position={}", encode("WWWWWWWWWW.............. w")),
    ];
    for path in &bad {
        let (status, j) = server.json(path);
        assert_eq!(status, 400, "{path}: {j}");
        assert!(j["error"].as_str().is_some_and(|e| !e.is_empty()), "{path}: {j}");
    }
    // A hand too large names the bound of the rules served, as the command line does.
    for pos in ["........................ w 13 9", "........................ w 10 9"] {
        let (status, j) = server.json(&probe_path(pos));
        assert_eq!(status, 400, "{j}");
        assert!(j["error"].as_str().unwrap().ends_with("at most 9") && !j["error"].as_str().unwrap().contains("12"), "{j}");
    }
    let (status, j) = server.json("/no/such/page");
    assert_eq!(status, 404, "{j}");
    assert_eq!(server.json("/health"), (200, serde_json::json!({ "status": "ok" })));
}

#[test]
fn missing_tables_are_a_404_naming_them() {
    let server = Server::start(movement_only().as_ref(), &["--max-search-hand", "2"]);
    let (status, j) = server.json(&probe_path("........................ w 3 3"));
    assert_eq!(status, 404, "{j}");
    assert!(j["error"].as_str().unwrap().contains("0-0-3-3.mtb"), "{j}");
    let (status, j) = server.json(&probe_path("WWWW.BBBBB.............. w"));
    assert_eq!(status, 404, "{j}");
    assert!(j["error"].as_str().unwrap().contains("4-5"), "{j}");
}

#[test]
fn a_search_answers_when_tables_are_missing_and_agrees_with_them() {
    // A generous time limit: this test is about agreement, and a loaded machine is slow.
    let server = Server::start(movement_only().as_ref(), &["--timeout", "300"]);
    let tables = Server::start(whole_game().as_ref(), &[]);
    for pos in ["........................ w 3 3", "W.......B............... w 2 2", "WW.......B.............. b 1 2"] {
        let (status, searched) = server.json(&probe_path(pos));
        assert_eq!(status, 200, "{searched}");
        assert_eq!(searched["method"], "search");
        let (_, read) = tables.json(&probe_path(pos));
        assert_eq!(essentials(&searched), essentials(&read), "{pos}");
    }
}

#[test]
fn a_slow_search_gets_a_503_and_does_not_block_other_requests() {
    let server = Server::start(movement_only().as_ref(), &["--timeout", "0.001"]);
    let (status, j) = server.json(&probe_path("........................ w 3 3"));
    assert_eq!(status, 503, "{j}");
    assert!(j["error"].as_str().unwrap().contains("no answer within"), "{j}");
    let t = Instant::now();
    assert_eq!(server.json("/health").0, 200);
    assert!(t.elapsed() < Duration::from_secs(5));
}

#[test]
fn pages_cors_and_info() {
    let server = Server::start(whole_game().as_ref(), &[]);
    let (status, head, body) = server.get("/");
    assert_eq!(status, 200);
    assert!(head.contains("content-type: text/html"), "{head}");
    assert!(body.contains("app.js"), "the page loads its script");
    for (path, kind) in [("/app.js", "text/javascript"), ("/style.css", "text/css")] {
        let (status, head, _) = server.get(path);
        assert_eq!(status, 200, "{path}");
        assert!(head.contains(kind), "{head}");
    }
    let (_, head, _) = server.get(&probe_path("........................ w 3 3"));
    assert!(head.contains("access-control-allow-origin: *"), "{head}");
    let (status, info) = server.json("/api/info");
    assert_eq!(status, 200);
    assert_eq!(info["starts"], serde_json::json!(["3-3"]));
    assert_eq!(info["start_position"], "........................ w 3 3");
    // The statistics page, and its plot: one group a table, with the header's counts,
    // and no path of the server's.
    let (status, head, body) = server.get("/stats");
    assert_eq!(status, 200);
    assert!(head.contains("text/html") && body.contains("stats.svg"), "{head}");
    let (status, head, svg) = server.get("/stats.svg");
    assert_eq!(status, 200, "{svg}");
    assert!(head.contains("image/svg+xml"), "{head}");
    let tables = info["tables"].as_u64().unwrap() as usize;
    assert_eq!(svg.matches("<g class=\"table\"").count(), tables, "one group a table");
    assert!(!svg.contains(whole_game()), "no server path in the plot");
}

#[test]
fn many_concurrent_clients_all_get_answers() {
    let server = Server::start(whole_game().as_ref(), &[]);
    // Positions of one game, then 16 clients asking for them at once, in turn.
    let mut positions = vec!["........................ w 3 3".to_string()];
    loop {
        let (_, j) = server.json(&probe_path(positions.last().unwrap()));
        let moves = j["moves"].as_array().unwrap();
        if moves.is_empty() || positions.len() > 30 {
            break;
        }
        positions.push(moves[moves.len() / 2]["position"].as_str().unwrap().to_string());
    }
    let server = &server;
    let positions = &positions;
    std::thread::scope(|s| {
        for client in 0..16 {
            s.spawn(move || {
                for k in 0..40 {
                    let pos = &positions[(client * 7 + k) % positions.len()];
                    let path = if k % 5 == 0 { format!("/api/mainline?position={}", encode(pos)) } else { probe_path(pos) };
                    let (status, j) = server.json(&path);
                    assert_eq!(status, 200, "{path}: {j}");
                    assert_eq!(j["position"].as_str(), Some(pos.as_str()));
                }
            });
        }
    });
}

/// Clients that open a connection and never finish their headers.
fn slow_clients(server: &Server, n: usize) -> Vec<std::net::TcpStream> {
    use std::io::Write;
    (0..n)
        .map(|_| {
            let mut s = std::net::TcpStream::connect(&server.addr).unwrap();
            s.write_all(b"GET /health HTTP/1.1\r\nHost: slow\r\n").unwrap();
            s
        })
        .collect()
}

#[test]
fn slow_clients_neither_block_the_server_nor_stay_forever() {
    let server = Server::start(whole_game().as_ref(), &["--header-timeout", "2"]);
    let mut slow = slow_clients(&server, 500);
    let t = Instant::now();
    assert_eq!(server.json("/health").0, 200);
    assert!(t.elapsed() < Duration::from_secs(1), "/health took {:?} beside 500 slow clients", t.elapsed());
    assert_eq!(server.probe("........................ w 3 3")["result"], "win");
    // After the header timeout every slow connection is closed by the server.
    use std::io::Read;
    for s in slow.iter_mut().step_by(50) {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut buf = [0u8; 512];
        let n = s.read(&mut buf);
        assert!(n.is_ok() || n.as_ref().is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset), "a slow client is still held: {n:?}");
    }
}

#[test]
fn a_low_file_limit_is_never_exhausted_by_connections() {
    let server = Server::start_with_file_limit(whole_game().as_ref(), &["--header-timeout", "1"], 200);
    let _slow = slow_clients(&server, 300);
    // More slow clients than the server may hold: they wait in the queue, are closed
    // in turn, and the tables can still be opened.
    let t = Instant::now();
    assert_eq!(server.json("/health").0, 200);
    assert!(t.elapsed() < Duration::from_secs(8), "/health took {:?}", t.elapsed());
    assert_eq!(server.probe("W.......B............... w 2 2")["method"], "table");
}

#[test]
fn no_search_without_the_permit_even_when_a_child_table_is_missing() {
    // A copy of the whole game without one table that a position's moves lead into.
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(whole_game()).unwrap() {
        let e = e.unwrap();
        if e.file_name().to_string_lossy().ends_with(".mtb") {
            std::fs::copy(e.path(), dir.path().join(e.file_name())).unwrap();
        }
    }
    let pos = "W.......B............... w 2 2";
    // The child's table, and one of its own children, so that no one-ply read (as in a
    // compact set) can stand in for it.
    for gone in ["1-2-2-1.mtb", "2-2-1-1.mtb"] {
        std::fs::remove_file(dir.path().join(gone)).unwrap();
    }
    let server = Server::start(dir.path(), &["--max-search-hand", "0"]);
    let server = &server;
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(move || {
                let t = Instant::now();
                let (status, j) = server.api("probe", pos);
                assert_eq!(status, 404, "{j}");
                assert!(j["error"].as_str().unwrap().contains("1-2"), "{j}");
                assert!(t.elapsed() < Duration::from_secs(1), "a table read, not a search");
            });
        }
    });
}

#[test]
fn answers_show_no_paths() {
    let server = Server::start(movement_only().as_ref(), &["--max-search-hand", "0"]);
    let dir = movement_only();
    for path in ["/api/info".to_string(), probe_path("........................ w 3 3"), probe_path("WWWW.BBBBB.............. w")] {
        let (_, _, body) = server.get(&path);
        assert!(!body.contains(dir), "{path}: {body}");
        assert!(!body.contains("/tmp"), "{path}: {body}");
    }
}

#[test]
fn a_table_truncated_while_served_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(whole_game()).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.path().join(e.file_name())).unwrap();
    }
    let server = Server::start(dir.path(), &[]);
    // Opened and read once, then cut to its header while the server holds it open.
    let pos = ".WW....B.B....B........W b";
    assert_eq!(server.probe(pos)["plies"], 26);
    let path = dir.path().join("3-3.mtb");
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(300).unwrap();
    drop(f);
    // Positions of 3-3 in other blocks than the one cached.
    let mut errors = 0;
    for other in ["WWW......B.B....B....... b", "W.W.W....B.B....B....... b", "...WWW...B.B....B....... b"] {
        let (status, j) = server.api("probe", other);
        assert!(status == 500 || status == 200, "{status}: {j}");
        if status == 500 {
            assert!(j["error"].as_str().unwrap().contains("3-3.mtb"), "{j}");
            errors += 1;
        }
    }
    assert!(errors > 0, "reads past the new end of the file fail");
    assert_eq!(server.json("/health").0, 200, "the server is still up");
}

/// A server started under other rules than its directory's tables refuses to start,
/// naming both rule sets and the flag that serves them, rather than open a board whose
/// every request fails.
#[test]
fn a_directory_of_other_rules_is_refused_at_start() {
    let out = morris(&["serve", "--db", whole_game(), "--rules", "morabaraba", "--addr", "127.0.0.1:0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`standard`") && err.contains("`morabaraba`") && err.contains("--rules standard"), "{err}");
}

/// Under other rules without cycles the server searches too: Morabaraba placement
/// positions without their sector tables are answered by search (before, with a 404
/// naming the missing table), and equal the answers read from the tables.
#[test]
fn a_search_answers_under_morabaraba_and_agrees_with_the_tables() {
    let dir = tempfile::tempdir().unwrap();
    let (movement, whole) = (dir.path().join("movement"), dir.path().join("whole"));
    for (d, scope) in [(&movement, ["--max-stones", "6"]), (&whole, ["--start", "3-3"])] {
        let out = morris(&["solve", "--rules", "morabaraba", "--db", d.to_str().unwrap(), "--quiet", scope[0], scope[1]]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let server = Server::start(&movement, &["--rules", "morabaraba", "--timeout", "300"]);
    let tables = Server::start(&whole, &["--rules", "morabaraba"]);
    for pos in ["........................ w 3 3", "W.......B............... w 2 2", "WW.......B.............. b 1 2"] {
        let (status, searched) = server.json(&probe_path(pos));
        assert_eq!(status, 200, "{searched}");
        assert_eq!(searched["method"], "search");
        let (status, read) = tables.json(&probe_path(pos));
        assert_eq!((status, &read["method"]), (200, &serde_json::json!("table")), "{read}");
        assert_eq!(essentials(&searched), essentials(&read), "{pos}");
    }
}

/// Clients that send `requests` pipelined requests for `path` each and never read an
/// answer: the answers fill the socket buffers, and the server cannot write.
fn no_read_clients(server: &Server, clients: usize, requests: usize, path: &str) -> Vec<std::net::TcpStream> {
    use std::io::Write;
    let batch = format!("GET {path} HTTP/1.1\r\nHost: attack\r\n\r\n").repeat(requests);
    (0..clients)
        .map(|_| {
            let mut s = std::net::TcpStream::connect(&server.addr).unwrap();
            s.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
            let _ = s.write_all(batch.as_bytes());
            s
        })
        .collect()
}

/// `GET /health` on a fresh connection: its status, or the error after `patience`.
fn health_within(server: &Server, patience: Duration) -> Result<u16, String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(&server.addr).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(patience)).unwrap();
    write!(s, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).map_err(|e| format!("no answer: {e}"))?;
    let text = String::from_utf8_lossy(&raw);
    text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).ok_or_else(|| format!("not HTTP: {text:?}"))
}

/// More clients than the server holds, each with 300 pipelined requests it never reads
/// the answers to (the 1,030 connections against 1,024, scaled down): the
/// stalled connections give way, and `/health` answers within a second.
#[test]
fn clients_that_never_read_do_not_take_the_server_down() {
    let server = Server::start(whole_game().as_ref(), &["--max-connections", "32"]);
    // Large answers, which stall the server's writes, and small ones, which leave the
    // connection idle with its answers unread.
    let _stalled = no_read_clients(&server, 40, 300, "/app.js");
    let _idle = no_read_clients(&server, 10, 300, "/health");
    std::thread::sleep(Duration::from_millis(500));
    for _ in 0..3 {
        let t = Instant::now();
        let status = health_within(&server, Duration::from_secs(10));
        assert_eq!(status, Ok(200));
        assert!(t.elapsed() < Duration::from_secs(1), "/health took {:?} beside clients that never read", t.elapsed());
    }
}

/// A client that reads none of its answers loses its connection after --write-timeout:
/// it gets fewer answers than it asked for, and the server holds nothing for it.
#[test]
fn a_connection_that_does_not_read_is_closed_after_the_write_timeout() {
    use std::io::Read;
    let server = Server::start(whole_game().as_ref(), &["--write-timeout", "0.5"]);
    let mut client = no_read_clients(&server, 1, 300, "/app.js").pop().unwrap();
    std::thread::sleep(Duration::from_secs(2));
    client.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut raw = Vec::new();
    let end = client.read_to_end(&mut raw);
    assert!(end.is_ok() || end.as_ref().is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset), "{end:?}");
    let answers = String::from_utf8_lossy(&raw).matches("HTTP/1.1 200").count();
    assert!(answers < 300, "all {answers} answers were written to a client that read none for 2 s");
}

/// `morris serve` with `args`, which must end by itself within 20 s (a server that
/// started is killed, and the test fails).
fn serve_refused(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_morris")).arg("serve").args(args).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > until {
            child.kill().unwrap();
            panic!("`morris serve {}` started instead of refusing", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A time limit too long for the clock (`1e300` panicked converting it to a Duration)
/// or not a time at all is refused with a clear error and exit code 2.
#[test]
fn absurd_time_limits_are_refused_not_a_panic() {
    for flag in ["--timeout", "--header-timeout", "--write-timeout"] {
        for value in ["1e300", "1e7", "inf", "NaN", "0", "-1"] {
            let arg = format!("{flag}={value}");
            let out = serve_refused(&["--db", whole_game(), "--addr", "127.0.0.1:0", &arg]);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{arg}: {err}");
            assert!(err.contains(flag) && err.contains("at most 86400"), "{arg}: {err}");
            assert!(!err.contains("panicked"), "{arg}: {err}");
        }
    }
}

/// The same directory named as `DIR`, `DIR/`, `DIR//`, `.` and `./` (from inside it):
/// every answer is the same, and names tables by name alone. The scrubbing of the
/// server's path replaced every `.` of a message when `--db` was `.` (`table
/// 4-5the table directorymtb is missing`), and left `the table directory` glued to
/// the table's name when it ended in `/`.
#[test]
fn answers_name_tables_alike_however_the_directory_is_written() {
    let dir = movement_only();
    let asked =
        [probe_path("WWWW.BBBBB.............. w"), format!("/api/mainline?position={}", encode("WWWW.BBBBB.............. w")), probe_path("........................ w 3 3")];
    let answers = |server: &Server| asked.iter().map(|path| server.json(path)).collect::<Vec<_>>();
    let plain = answers(&Server::start(dir.as_ref(), &["--max-search-hand", "0"]));
    assert_eq!(plain[0], (404, serde_json::json!({ "error": "table 4-5.mtb is missing" })));
    assert!(plain[2].1["error"].as_str().unwrap().starts_with("table 0-0-3-3.mtb is missing;"), "{:?}", plain[2]);
    for (cwd, db) in [("/", format!("{dir}/")), ("/", format!("{dir}//")), (dir, ".".to_string()), (dir, "./".to_string())] {
        let server = Server::start_in(cwd.as_ref(), &db, &["--max-search-hand", "0"]);
        assert_eq!(answers(&server), plain, "--db {db}");
    }
}
