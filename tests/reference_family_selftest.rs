mod reference_family;
use reference_family::*;

#[test]
#[ignore]
fn timing() {
    let name = std::env::var("RF_RULES").unwrap_or("standard".into());
    let starts = std::env::var("RF_STARTS").unwrap_or("3-3".into());
    let r = RefRules::parse(&name).unwrap();
    let mut sv = Solver::new(&r);
    for st in starts.split(' ') {
        let t = std::time::Instant::now();
        let sol = if let Some(m) = st.strip_prefix('m') {
            let (a, b) = m.split_once('-').unwrap();
            sv.solve_movement(a.parse().unwrap(), b.parse().unwrap())
        } else {
            let (a, b) = st.split_once('-').unwrap();
            sv.solve_start(a.parse().unwrap(), b.parse().unwrap())
        };
        eprintln!("{name} {st}: {:?} len {} counts {:?} in {:.1} s", sol.start_value(), sol.len(), sol.counts(), t.elapsed().as_secs_f64());
    }
    for (sec, t) in &sv.timings { if t.as_secs_f64() > 0.5 { eprintln!("  {sec:?} {:.1} s", t.as_secs_f64()); } }
}
