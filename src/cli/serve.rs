//! `morris serve`: the tables as a JSON API over HTTP, and the web board at `/`.
//!
//! Table reads are quick but touch the disk, and a placement position whose sector
//! table is missing is solved by a search that can take minutes, so every answer is
//! computed on tokio's blocking pool, never on the async workers. Searches are the one
//! unbounded cost: at most one runs at a time, only from positions with few stones in
//! hand, and a request that waits past the time limit gets a 503 (the search finishes
//! in the background and warms the transposition table for the next request).

use axum::extract::{Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use morris::probe::ultra::{class_words, DrawClass, UltraValue};
use morris::table::{table_path, TableError};
use morris::Rules;
use morris::{Move, Position, ProbeError, SearchOptions, Searcher, Sector, Tablebase, Value};
use serde_json::{json, Value as JsonValue};
use std::collections::HashMap;
use std::future::Future;
use std::io::Write;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{Notify, Semaphore};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Directory holding the tables.
    #[arg(long, default_value = "databases", value_name = "DIR")]
    pub(super) db: PathBuf,
    /// Address to listen on (loopback by default; port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "HOST:PORT")]
    addr: String,
    /// Longest a request waits for an answer, in seconds, before a 503 (at most a day).
    #[arg(long, default_value_t = 20.0, value_name = "SECONDS", value_parser = parse_seconds)]
    timeout: f64,
    /// Most stones in hand (both sides together) from which a request may start a
    /// placement search when the position's sector table is missing (0: never search).
    #[arg(long, default_value_t = 10, value_name = "N")]
    max_search_hand: u8,
    /// Most connections open at once. When all are taken, a new one takes the place of
    /// the connection quiet the longest (no answer being computed or read); while every
    /// one is being answered, it waits. Default: 1024, or less when the limit on open
    /// files is lower, so that the tables can always be opened.
    #[arg(long, value_name = "N")]
    max_connections: Option<usize>,
    /// Seconds a client has to send a request's headers (and an idle connection stays
    /// open), before the connection is closed.
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS", value_parser = parse_seconds)]
    header_timeout: f64,
    /// Seconds the server waits for a client to take any of its answers before it closes
    /// the connection (a client that pipelines requests and reads nothing).
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS", value_parser = parse_seconds)]
    write_timeout: f64,
}

/// The soft limit on open files, from /proc (no libc needed); `None` if unknown.
fn open_file_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// The longest any of the server's times may be: beyond it a deadline would overflow
/// the clock (`1e300` seconds panicked), and no request is worth a day.
const MOST_SECONDS: f64 = 86_400.0;

/// A time limit in seconds: positive, finite, at most a day.
fn parse_seconds(s: &str) -> Result<f64, String> {
    let secs: f64 = s.parse().map_err(|_| format!("invalid number of seconds '{s}'"))?;
    if !(secs > 0.0 && secs <= MOST_SECONDS) {
        return Err(format!("{s} is not a time limit: give a number of seconds above 0 and at most {MOST_SECONDS} (a day)"));
    }
    Ok(secs)
}

/// How long a connection may hold its slot.
struct Limits {
    /// Connections open at once.
    max: usize,
    /// To send a request's headers, or to stay idle between requests.
    header: Duration,
    /// For the client to take any of an answer: a client that reads nothing loses the
    /// connection, whatever its requests.
    write: Duration,
    /// The whole connection.
    lifetime: Duration,
}

/// Bytes of requests a connection may send ahead of its answers (pipelined): beyond
/// them the server reads no more from it until it has answered, so a client that
/// pipelines without reading holds this much memory at most.
const READ_AHEAD: usize = 64 << 10;

/// How long a connection keeps its slot, once quiet, when every slot is taken and a new
/// connection waits: long enough to send its first request after connecting.
const GRACE: Duration = Duration::from_millis(100);

/// What the accept loop knows of an open connection, to choose one to close when every
/// slot is taken.
struct Watch {
    /// Milliseconds from the server's start to the connection's last byte read or
    /// written (or its accept).
    last: AtomicU64,
    /// Requests being answered on it: a client waiting for an answer keeps its slot.
    busy: AtomicUsize,
    /// Told to close (once).
    closing: AtomicBool,
    close: Notify,
}

/// The open connections, each with its watch.
struct Connections {
    epoch: Instant,
    open: Mutex<HashMap<u64, Arc<Watch>>>,
    next: AtomicU64,
}

impl Connections {
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// Registers a new connection; it leaves the set when the guard drops.
    fn add(self: &Arc<Self>) -> (Arc<Watch>, Registered) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let watch = Arc::new(Watch { last: AtomicU64::new(self.now()), busy: AtomicUsize::new(0), closing: AtomicBool::new(false), close: Notify::new() });
        self.open.lock().unwrap().insert(id, watch.clone());
        (watch, Registered(self.clone(), id))
    }

    /// Closes the connection quiet the longest (no request being answered, no byte
    /// read or written for `GRACE` or more): one whose client reads none of its answers,
    /// or sends nothing. Whether there was one.
    fn close_quietest(&self) -> bool {
        let now = self.now();
        let grace = GRACE.as_millis() as u64;
        let open = self.open.lock().unwrap();
        let quietest = open
            .values()
            .filter(|w| w.busy.load(Ordering::SeqCst) == 0 && !w.closing.load(Ordering::SeqCst))
            .map(|w| (w.last.load(Ordering::SeqCst), w))
            .filter(|(last, _)| now.saturating_sub(*last) >= grace)
            .min_by_key(|(last, _)| *last);
        match quietest {
            Some((_, w)) => {
                w.closing.store(true, Ordering::SeqCst);
                w.close.notify_one();
                true
            }
            None => false,
        }
    }
}

/// Takes a connection out of the set when its task ends.
struct Registered(Arc<Connections>, u64);

impl Drop for Registered {
    fn drop(&mut self) {
        self.0.open.lock().unwrap().remove(&self.1);
    }
}

/// A request being answered on a watched connection, until its answer is ready.
struct Busy(Arc<Watch>);

impl Busy {
    fn new(watch: &Arc<Watch>) -> Busy {
        watch.busy.fetch_add(1, Ordering::SeqCst);
        Busy(watch.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A connection's socket that reports its progress to its watch, and fails a write
/// that has made no progress for the write timeout: hyper's header timeout does not
/// cover writing, and a client that reads nothing would otherwise hold its connection
/// (and the answers queued for it) for the connection's whole lifetime.
struct Watched {
    stream: tokio::net::TcpStream,
    watch: Arc<Watch>,
    conns: Arc<Connections>,
    write_timeout: Duration,
    /// Running while a write waits for the client to read.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Watched {
    fn progressed(&mut self) {
        self.watch.last.store(self.conns.now(), Ordering::SeqCst);
    }

    /// The result of a write: progress clears the stall, and waiting past the write
    /// timeout is an error, which closes the connection.
    fn write_result<T>(&mut self, cx: &mut Context<'_>, result: Poll<std::io::Result<T>>) -> Poll<std::io::Result<T>> {
        match result {
            Poll::Ready(r) => {
                self.stalled = None;
                if r.is_ok() {
                    self.progressed();
                }
                Poll::Ready(r)
            }
            Poll::Pending => {
                let timeout = self.write_timeout;
                let stalled = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
                match stalled.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "the client read nothing within the write timeout"))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl AsyncRead for Watched {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let result = Pin::new(&mut this.stream).poll_read(cx, buf);
        if matches!(result, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.progressed();
        }
        result
    }
}

impl AsyncWrite for Watched {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.write_result(cx, result)
    }

    fn poll_write_vectored(self: Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[std::io::IoSlice<'_>]) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.write_result(cx, result)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.stream).poll_flush(cx);
        this.write_result(cx, result)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.stream).poll_shutdown(cx);
        this.write_result(cx, result)
    }
}

/// Serves `router` on `listener` until Ctrl-C, within `limits`: a connection is closed
/// if its headers take longer than the header timeout, if its client reads nothing of
/// its answers for the write timeout, or when it has lived its lifetime. When every
/// slot is taken, a new connection takes the slot of the one quiet the longest (no
/// request being answered: its client sends nothing, or reads nothing), so that
/// clients which stall cannot keep others out; only while every connection is being
/// answered does the next one wait. A slow client then holds a connection for seconds,
/// not forever, and never exhausts the server's files.
async fn serve_loop(listener: tokio::net::TcpListener, router: Router, limits: Limits) -> anyhow::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let slots = Arc::new(Semaphore::new(limits.max));
    let conns = Arc::new(Connections { epoch: Instant::now(), open: Mutex::new(HashMap::new()), next: AtomicU64::new(0) });
    let shutdown = tokio::signal::ctrl_c();
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            _ = &mut shutdown => return Ok(()),
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of files or a connection reset before accept: wait, go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        let slot = loop {
            if let Ok(slot) = slots.clone().try_acquire_owned() {
                break slot;
            }
            conns.close_quietest();
            tokio::select! {
                _ = &mut shutdown => return Ok(()),
                slot = tokio::time::timeout(GRACE, slots.clone().acquire_owned()) => if let Ok(slot) = slot {
                    break slot?;
                },
            }
        };
        let (watch, registered) = conns.add();
        let io = Watched { stream, watch: watch.clone(), conns: conns.clone(), write_timeout: limits.write, stalled: None };
        let router = router.clone();
        let on_request = watch.clone();
        // Router is always ready: calling it without `poll_ready` is allowed.
        let service = hyper::service::service_fn(move |req: axum::http::Request<hyper::body::Incoming>| {
            let busy = Busy::new(&on_request);
            let answer = tower_service::Service::call(&mut router.clone(), req);
            async move {
                let _busy = busy;
                answer.await
            }
        });
        let (header, lifetime) = (limits.header, limits.lifetime);
        tokio::spawn(async move {
            let (_slot, _registered) = (slot, registered);
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header)
                .max_buf_size(READ_AHEAD)
                .serve_connection(TokioIo::new(io), service);
            tokio::select! {
                _ = tokio::time::timeout(lifetime, conn) => {}
                _ = watch.close.notified() => {}
            }
        });
    }
}

struct App {
    tb: Tablebase,
    /// The one way a request searches: only with the permit (`compute`).
    searcher: Searcher,
    timeout: Duration,
    max_search_hand: u8,
    /// One placement search at a time: the search uses every core.
    search: Arc<Semaphore>,
    /// The statistics plot, drawn once on the first request (it decodes every table).
    stats: std::sync::OnceLock<Result<String, String>>,
    stats_started: std::sync::atomic::AtomicBool,
}

/// An error answer: its status and the JSON `error` text.
struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

/// A probe error as an answer: its status, and its message without the server's
/// directory (a client sees table names, never paths).
fn api_error(app: &App, e: ProbeError) -> ApiError {
    let status = match &e {
        ProbeError::Invalid(_) | ProbeError::GameOver(_) | ProbeError::Table(TableError::NoSuchSector(_)) => StatusCode::BAD_REQUEST,
        ProbeError::Table(TableError::Missing { .. })
        | ProbeError::MissingTables { .. }
        | ProbeError::NoDirectory(_)
        | ProbeError::SearchRules(_)
        | ProbeError::NoClasses { .. }
        | ProbeError::Unclassed(_) => StatusCode::NOT_FOUND,
        ProbeError::Discarded(_) => StatusCode::SERVICE_UNAVAILABLE,
        ProbeError::Table(_) | ProbeError::BadSectorValues { .. } => StatusCode::INTERNAL_SERVER_ERROR,
    };
    ApiError(status, without_paths(app, &e.to_string()))
}

/// `text` without the server's table directory: a file in it by its name alone, the
/// directory itself as "the table directory". Only whole paths are replaced, where a
/// path can start, so that a directory written `.` or `db/` leaves the rest of the
/// message alone (replacing the text `.` anywhere garbled every sentence).
fn without_paths(app: &App, text: &str) -> String {
    scrub(text, app.tb.dir())
}

fn scrub(text: &str, dir: &std::path::Path) -> String {
    // A file's path as the library writes it: joined to the directory as given.
    let joined = dir.join("x").display().to_string();
    let inside = &joined[..joined.len() - 1];
    let whole = dir.display().to_string();
    let starts_path = |before: &str| before.is_empty() || before.ends_with(|c: char| c.is_whitespace() || "`'\"([=".contains(c));
    let ends_path = |after: &str| after.is_empty() || after.starts_with(|c: char| c.is_whitespace() || "`'\")],;:".contains(c)) || after == "." || after.starts_with(". ");
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        if starts_path(&text[..at]) {
            if !whole.is_empty() && rest.starts_with(&whole) && ends_path(&rest[whole.len()..]) {
                out.push_str("the table directory");
                at += whole.len();
                continue;
            }
            if rest.starts_with(inside) {
                at += inside.len();
                continue;
            }
        }
        let c = rest.chars().next().expect("within the text");
        out.push(c);
        at += c.len_utf8();
    }
    out
}

const INDEX_HTML: &str = include_str!("../../web/index.html");
const APP_JS: &str = include_str!("../../web/app.js");
const STYLE_CSS: &str = include_str!("../../web/style.css");

pub fn run(args: Args, rules: &Rules) -> anyhow::Result<ExitCode> {
    // A file each per connection, and some left for the tables and the process.
    let fd_room = open_file_limit().map_or(1024, |n| n.saturating_sub(128).max(16));
    let max_connections = args.max_connections.unwrap_or(1024.min(fd_room));
    anyhow::ensure!(max_connections >= 1, "--max-connections must be at least 1");
    let tb = Tablebase::with_rules(&args.db, *rules, morris::probe::CACHE_BLOCKS)?;
    // Fail closed at once: a board of one rule set over another's tables would only
    // ever answer with errors.
    if let Err(e @ TableError::WrongRules { found, .. }) = morris::table::one_rule_set(&args.db, rules) {
        anyhow::bail!("{e}; serve these tables with `--rules {found}`, or solve `{rules}` into a directory of its own");
    }
    let tables = std::fs::read_dir(&args.db)?.filter_map(|e| e.ok()).filter(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(".mtb"))).count();
    if tables == 0 {
        eprintln!("warning: no tables in {}: every probe will fail until you run `morris solve --db {}`", args.db.display(), args.db.display());
    }
    let searcher = Searcher::new(&tb, SearchOptions::default());
    let app = Arc::new(App {
        searcher,
        tb,
        timeout: Duration::from_secs_f64(args.timeout),
        max_search_hand: args.max_search_hand,
        search: Arc::new(Semaphore::new(1)),
        stats: std::sync::OnceLock::new(),
        stats_started: std::sync::atomic::AtomicBool::new(false),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&args.addr).await.map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", args.addr))?;
        let local = listener.local_addr()?;
        {
            // The first line names the address, so that scripts and tests can read the port.
            let mut stdout = std::io::stdout().lock();
            writeln!(stdout, "listening on http://{local}/ (tables: {})", args.db.display())?;
            stdout.flush()?;
        }
        let limits = Limits {
            max: max_connections,
            header: Duration::from_secs_f64(args.header_timeout),
            write: Duration::from_secs_f64(args.write_timeout),
            lifetime: Duration::from_secs(600),
        };
        serve_loop(listener, router(app), limits).await?;
        anyhow::Ok(ExitCode::SUCCESS)
    })
}

fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(|| async { ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], INDEX_HTML) }))
        .route("/app.js", get(|| async { ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], APP_JS) }))
        .route("/style.css", get(|| async { ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE_CSS) }))
        .route("/health", get(|| async { Json(json!({ "status": "ok" })) }))
        .route("/api/info", get(info))
        .route("/stats", get(stats_page))
        .route("/stats.svg", get(stats_svg))
        .route("/api/probe", get(probe))
        .route("/api/mainline", get(mainline))
        .fallback(|| async { ApiError(StatusCode::NOT_FOUND, "no such page; the API is /api/probe, /api/mainline, /api/info and /health".into()) })
        .layer(axum::middleware::map_response(cors))
        .with_state(app)
}

/// Any origin may read the API (GET only, no credentials): a page elsewhere can show values.
async fn cors(mut res: Response) -> Response {
    res.headers_mut().insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    res
}

fn value_fields(v: Value) -> (JsonValue, JsonValue) {
    (json!(v.result_word()), v.plies().map_or(JsonValue::Null, |p| json!(p)))
}

type Params = Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>;

fn parse_position(app: &App, q: Params) -> Result<Position, ApiError> {
    let Query(q) = q.map_err(|e| ApiError(StatusCode::BAD_REQUEST, format!("bad query string: {e}")))?;
    let text = q.get("position").ok_or_else(|| ApiError(StatusCode::BAD_REQUEST, "missing query parameter `position`".into()))?;
    let pos = Position::parse(text, *app.tb.rules()).map_err(|e| ApiError(StatusCode::BAD_REQUEST, format!("invalid position {text:?}: {e}")))?;
    // Reject illegal positions (too many stones, a finished game) before any work.
    app.tb.sector_of(&pos).map_err(|e| ApiError(StatusCode::BAD_REQUEST, e.to_string()))?;
    Ok(pos)
}

/// Runs `work` on the blocking pool within the time limit. `search` says the work may
/// start a placement search, which first takes the search permit (or fails at once).
async fn compute<T: Send + 'static>(app: &Arc<App>, search: bool, work: impl FnOnce(&App) -> Result<T, ProbeError> + Send + 'static) -> Result<T, ApiError> {
    let permit = if search {
        let permit = app.search.clone().try_acquire_owned().map_err(|_| {
            ApiError(StatusCode::SERVICE_UNAVAILABLE, "a placement search is already running; try again shortly, or generate the placement tables (`morris solve --all`)".into())
        })?;
        Some(permit)
    } else {
        None
    };
    let worker = app.clone();
    let task = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work(&worker).map_err(|e| api_error(&worker, e))
    });
    match tokio::time::timeout(app.timeout, task).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(join)) => Err(ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("the request failed: {join}"))),
        Err(_) => Err(ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("no answer within {:.0} s (a placement search without its table); generate the placement tables with `morris solve --all`", app.timeout.as_secs_f64()),
        )),
    }
}

/// Whether answering about `pos` needs a placement search: its sector table is missing.
/// Refuses when the search would start from more stones in hand than the server allows.
fn needs_search(app: &App, pos: &Position) -> Result<bool, ApiError> {
    // Lasker's placement phase has cycles, which the search cannot play: there, every
    // answer is read from tables.
    if pos.is_movement() || app.tb.rules().lasker() {
        return Ok(false);
    }
    let Some(sector) = app.tb.sector_of(pos).map_err(|e| ApiError(StatusCode::BAD_REQUEST, e.to_string()))? else { return Ok(false) };
    if app.tb.readable(sector) {
        return Ok(false);
    }
    let hand = pos.white_hand + pos.black_hand;
    if hand > app.max_search_hand {
        let missing = TableError::Missing { path: table_path("".as_ref(), sector), sector };
        return Err(ApiError(
            StatusCode::NOT_FOUND,
            format!("{missing}; without it this server searches only from at most {} stones in hand, and this position has {hand}", app.max_search_hand),
        ));
    }
    Ok(true)
}

fn position_fields(pos: &Position) -> JsonValue {
    json!({
        "position": pos.to_string(),
        "side": if pos.to_move == morris::Color::White { "white" } else { "black" },
        "white_in_hand": pos.white_hand,
        "black_in_hand": pos.black_hand,
    })
}

async fn probe(State(app): State<Arc<App>>, q: Params) -> Result<Json<JsonValue>, ApiError> {
    let pos = parse_position(&app, q)?;
    let search = needs_search(&app, &pos)?;
    compute(&app, search, move |app| {
        let start = Instant::now();
        // Only a request that holds the search permit may search.
        let (v, moves) = if search { app.searcher.evaluate(&pos, &morris::NoProgress)? } else { (app.tb.probe(&pos)?, app.tb.probe_moves(&pos)?) };
        let mut obj = position_fields(&pos);
        let (result, plies) = value_fields(v);
        obj["result"] = result;
        obj["plies"] = plies;
        obj["method"] = json!(if search { "search" } else { "table" });
        // With draw classes: the class of a draw, and the moves in the ultra-strong order.
        let ultra = if search { None } else { ultra_of(app, &pos)? };
        match ultra {
            Some((class, list)) => {
                if let Some(c) = class {
                    obj["class"] = class_json(app, c.class, c.depth);
                }
                obj["moves"] = list
                    .into_iter()
                    .map(|m| {
                        let mut o = step_json(m.mv, &m.child, m.value.strong());
                        if let UltraValue::Draw(c) = m.value {
                            o["class"] = class_json(app, c.class, c.depth);
                        }
                        o
                    })
                    .collect();
            }
            None => obj["moves"] = moves.into_iter().map(|m| step_json(m.mv, &m.child, m.value)).collect(),
        }
        obj["seconds"] = json!(start.elapsed().as_secs_f64());
        Ok(Json(obj))
    })
    .await
}

/// The position's draw class and its moves in the ultra-strong order, where the
/// directory has classes for its sector.
fn ultra_of(app: &App, pos: &Position) -> Result<Option<(Option<DrawClass>, Vec<morris::MoveInfo<UltraValue>>)>, ProbeError> {
    match app.tb.probe_moves_ultra(pos) {
        Ok(list) => Ok(Some((app.tb.probe_class(pos)?, list))),
        Err(ProbeError::NoClasses { .. } | ProbeError::Unclassed(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

fn class_json(app: &App, class: i16, depth: Option<u16>) -> JsonValue {
    let values = app.tb.sector_values().ok();
    json!({
        "class": class,
        "sector": values.and_then(|v| v.sector_of_rank(class as i32)).map(|x| x.to_string()),
        "depth": depth,
        "words": values.map(|v| class_words(v, class)),
    })
}

fn step_json(mv: Move, pos: &Position, v: Value) -> JsonValue {
    let (r, p) = value_fields(v);
    json!({ "move": mv.notation(pos.board()), "position": pos.to_string(), "result": r, "plies": p })
}

async fn mainline(State(app): State<Arc<App>>, q: Params) -> Result<Json<JsonValue>, ApiError> {
    let pos = parse_position(&app, q)?;
    let search = needs_search(&app, &pos)?;
    compute(&app, search, move |app| {
        let quiet = morris::NoProgress;
        let (v, line) = if search { (app.searcher.value(&pos, &quiet)?, app.searcher.mainline(&pos)?) } else { (app.tb.probe(&pos)?, app.tb.mainline(&pos)?) };
        let mut obj = position_fields(&pos);
        let (result, plies) = value_fields(v);
        obj["result"] = result;
        obj["plies"] = plies;
        obj["mainline"] = line.into_iter().map(|st| step_json(st.mv, &st.position, st.value)).collect();
        if v == Value::Draw && !search {
            match app.tb.probe_class(&pos) {
                Ok(Some(c)) => obj["class"] = class_json(app, c.class, c.depth),
                Ok(None) | Err(ProbeError::NoClasses { .. } | ProbeError::Unclassed(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Json(obj))
    })
    .await
}

/// The starts (WK-BK) whose every table is present, for the board to open on: up to the
/// rule set's own stones, each with the sectors its rules reach.
fn complete_starts(app: &App) -> Vec<(u8, u8)> {
    let rules = *app.tb.rules();
    let game = morris::rules::game::Game::of(rules);
    let most = rules.stones();
    (3..=most)
        .flat_map(|w| (3..=most).map(move |b| (w, b)))
        .filter(|&(w, b)| Sector::start(w, b).is_some_and(|st| Sector::reachable(st, game).into_iter().all(|x| app.tb.readable(x))))
        .collect()
}

/// The board as the web page draws it: point names in the notation's reading order, the
/// edges by name and the grid's width, so that the page knows no board of its own.
fn board_json(rules: &morris::rules::Rules) -> JsonValue {
    let g = rules.board().geometry();
    let name = |p: u8| g.name(p as usize);
    json!({
        "name": rules.board().name(),
        "points": g.reading().iter().map(|&p| name(p)).collect::<Vec<_>>(),
        "edges": g.edges().iter().map(|&(p, q)| [name(p), name(q)]).collect::<Vec<_>>(),
        "mills": g.mills().iter().map(|&m| (0..24u8).filter(|&p| m >> p & 1 != 0).map(name).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "columns": 2 * g.rings() + 1,
        "stones": rules.stones(),
    })
}

/// The statistics page: it fetches `stats.svg` (trying again while it is being drawn)
/// and shows it inline, so that the plot's tooltips work. The plot keeps its own size
/// and scrolls sideways in its box on a narrow screen: scaled to a phone's width its
/// text would be 4 px high. `GAME` is the served rule set's game.
const STATS_HTML: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>GAME: table statistics</title>
<style>body{font-family:system-ui,sans-serif;margin:16px;color:#202124;background:#fafafa}#plot{overflow-x:auto}#plot svg{display:block;max-width:none;height:auto}#note{color:#5f6368}</style>
</head><body>
<h1>GAME: table statistics</h1>
<p><a href="./">Back to the board</a> · wins, draws and losses for the side to move, and the depths, of every table the server holds</p>
<p id="note">Drawing the statistics…</p>
<div id="plot"></div>
<script>
async function load(tries) {
  const res = await fetch("stats.svg").catch(() => null);
  if (res && res.ok) { document.getElementById("plot").innerHTML = await res.text(); document.getElementById("note").textContent = ""; document.body.dataset.ready = "1"; return; }
  if (res && res.status !== 503) { document.getElementById("note").textContent = "The statistics cannot be drawn."; return; }
  if (tries > 0) setTimeout(() => load(tries - 1), 1000); else document.getElementById("note").textContent = "The statistics take too long to draw; reload later.";
}
load(600);
</script>
</body></html>
"#;

async fn stats_page(State(app): State<Arc<App>>) -> Response {
    let game = super::plot::game_name(app.tb.rules()).replace('&', "&amp;").replace('<', "&lt;");
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], STATS_HTML.replace("GAME", &game)).into_response()
}

/// The plot of `morris stats --plot` over the served tables, drawn on the first request
/// in the background and kept; a request waits for it up to `--timeout`, then gets 503.
async fn stats_svg(State(app): State<Arc<App>>) -> Response {
    use std::sync::atomic::Ordering;
    if !app.stats_started.swap(true, Ordering::SeqCst) {
        let worker = app.clone();
        tokio::task::spawn_blocking(move || {
            let title = format!("{} tables", super::plot::game_name(worker.tb.rules()));
            let svg = super::plot::svg_for_dir(worker.tb.dir(), worker.tb.rules(), &title).map_err(|e| without_paths(&worker, &e.to_string()));
            let _ = worker.stats.set(svg);
        });
    }
    let until = Instant::now() + app.timeout;
    loop {
        match app.stats.get() {
            Some(Ok(svg)) => return ([(header::CONTENT_TYPE, "image/svg+xml; charset=utf-8")], svg.clone()).into_response(),
            Some(Err(e)) => return ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("the statistics cannot be drawn: {e}")).into_response(),
            None if Instant::now() >= until => {
                return ApiError(StatusCode::SERVICE_UNAVAILABLE, "the statistics are still being drawn; try again in a moment".into()).into_response()
            }
            None => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

async fn info(State(app): State<Arc<App>>) -> Result<Json<JsonValue>, ApiError> {
    let worker = app.clone();
    compute(&app, false, move |_| Ok(info_json(&worker))).await.map(Json)
}

fn info_json(app: &App) -> JsonValue {
    let tables = std::fs::read_dir(app.tb.dir()).map(|rd| rd.filter_map(|e| e.ok()).filter(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(".mtb"))).count()).unwrap_or(0);
    let starts = complete_starts(app);
    // The rule set's own game when it is there, else the largest start that is.
    let own = app.tb.rules().stones();
    let open = starts.iter().copied().max_by_key(|&(w, b)| ((w, b) == (own, own), w + b, w));
    json!({
        "rules": app.tb.rules().to_string(),
        "board": board_json(app.tb.rules()),
        "tables": tables,
        "starts": starts.iter().map(|(w, b)| format!("{w}-{b}")).collect::<Vec<_>>(),
        "start_position": open.map(|(w, b)| format!("{} w {w} {b}", ".".repeat(app.tb.rules().board().points() as usize))),
    })
}

#[cfg(test)]
mod tests {
    use super::scrub;
    use std::path::Path;

    #[test]
    fn scrubbing_replaces_whole_paths_only() {
        for dir in ["db", "db/", ".", "./", "/srv/tables"] {
            let d = Path::new(dir);
            let file = d.join("4-5.mtb").display().to_string();
            assert_eq!(scrub(&format!("table {file} is missing"), d), "table 4-5.mtb is missing", "{dir}");
            assert_eq!(scrub(&format!("I/O error on {}: gone. Try again.", d.display()), d), "I/O error on the table directory: gone. Try again.", "{dir}");
            assert_eq!(scrub("position W.W.W... is over; see ../notes.txt", d), "position W.W.W... is over; see ../notes.txt", "{dir}");
        }
    }
}
