//! `morris plan`: the graph of solve units, for a workflow engine to run one unit a job
//! (`morris solve --unit ID`, docs/distributed.md).

use morris::solve::generate::Options;
use morris::solve::graph::{graph, Node};
use morris::Rules;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("scope").required(true).multiple(true).args(["all", "start", "max_stones"])))]
pub struct Args {
    /// Directory of the tables: the paths of the files each unit reads and writes are
    /// in it, and tables already there must be of the same rules.
    #[arg(long, default_value = "databases", value_name = "DIR")]
    pub(super) db: PathBuf,
    /// The whole game of the rule set (its own start, with every movement subspace).
    #[arg(long, conflicts_with_all = ["max_stones", "start"])]
    all: bool,
    /// The game where White places WK and Black BK stones (comma-separated for
    /// several), with the movement subspaces it needs.
    #[arg(long, value_name = "WK-BK", value_parser = super::draw::parse_stones, value_delimiter = ',')]
    start: Vec<(u8, u8)>,
    /// Every movement subspace with s + o <= N.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(6..=24))]
    max_stones: Option<u8>,
    /// One JSON object: `rules`, `db`, `units` (in an order that solves each after its
    /// dependencies) and `total`.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, rules: &Rules) -> anyhow::Result<ExitCode> {
    let (max_stones, starts) = match args.all {
        true => (2 * rules.stones(), vec![(rules.stones(), rules.stones())]),
        false => (args.max_stones.unwrap_or(0), args.start),
    };
    let opts = Options { dir: args.db.clone(), max_stones, only: None, starts, rules: *rules };
    if args.db.is_dir() {
        morris::table::one_rule_set(&args.db, rules)?;
    }
    let nodes = graph(&opts)?;
    let critical = critical_path_seconds(&nodes);
    if args.json {
        let units: Vec<serde_json::Value> = nodes.iter().map(|n| unit_json(n, &args.db)).collect();
        let total = serde_json::json!({
            "units": nodes.len(),
            "tables": nodes.iter().map(|n| n.id.sectors().len()).sum::<usize>(),
            "slots": nodes.iter().map(|n| n.slots).sum::<u64>(),
            "seconds": nodes.iter().map(|n| n.estimate.seconds).sum::<f64>(),
            "critical_path_seconds": critical,
            "max_memory_bytes": nodes.iter().map(|n| n.estimate.memory_bytes).max().unwrap_or(0),
        });
        let plan = serde_json::json!({ "rules": rules.to_string(), "db": args.db.display().to_string(), "units": units, "total": total });
        out!("{plan}");
        return Ok(ExitCode::SUCCESS);
    }
    out!("{:>24} {:>10} {:>14} {:>10} {:>10}  depends on", "unit", "method", "slots", "memory MB", "est. s");
    for n in &nodes {
        let deps: Vec<String> = n.depends_on.iter().map(|d| d.to_string()).collect();
        out!("{:>24} {:>10} {:>14} {:>10} {:>10.1}  {}", n.id.to_string(), method(n), n.slots, mem_mb(n), n.estimate.seconds, deps.join(" "));
    }
    out!(
        "{} units, {} slots, estimated {:.1} s on one machine, critical path {:.1} s, largest unit {} MB; solve one with `morris solve --unit ID`",
        nodes.len(),
        nodes.iter().map(|n| n.slots).sum::<u64>(),
        nodes.iter().map(|n| n.estimate.seconds).sum::<f64>(),
        critical,
        nodes.iter().map(mem_mb).max().unwrap_or(0)
    );
    Ok(ExitCode::SUCCESS)
}

fn method(n: &Node) -> &'static str {
    if n.retrograde {
        "retrograde"
    } else {
        "induction"
    }
}

/// The memory estimate in MiB, rounded up: Slurm's `--mem` unit.
fn mem_mb(n: &Node) -> u64 {
    n.estimate.memory_bytes.div_ceil(1 << 20)
}

fn unit_json(n: &Node, db: &Path) -> serde_json::Value {
    let path = |s: &morris::Sector| morris::table::table_path(db, *s).display().to_string();
    serde_json::json!({
        "id": n.id.to_string(),
        "sectors": n.id.sectors().iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        "method": method(n),
        "depends_on": n.depends_on.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
        "reads": n.reads.iter().map(path).collect::<Vec<_>>(),
        "writes": n.id.sectors().iter().map(path).collect::<Vec<_>>(),
        "slots": n.slots,
        "read_slots": n.read_slots,
        "memory_bytes": n.estimate.memory_bytes,
        "mem_mb": mem_mb(n),
        "seconds": n.estimate.seconds,
    })
}

/// The longest chain of estimated times through the graph: no number of machines
/// finishes sooner.
fn critical_path_seconds(nodes: &[Node]) -> f64 {
    let mut finish: std::collections::HashMap<String, f64> = std::collections::HashMap::new();
    let mut most = 0.0f64;
    for n in nodes {
        let ready = n.depends_on.iter().filter_map(|d| finish.get(&d.to_string())).fold(0.0f64, |a, &b| a.max(b));
        let end = ready + n.estimate.seconds;
        most = most.max(end);
        finish.insert(n.id.to_string(), end);
    }
    most
}
