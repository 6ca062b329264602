mod reference_family;
use reference_family::*;

#[test]
fn smoke_standard_3_3() {
    let r = RefRules::parse("standard").unwrap();
    let t = std::time::Instant::now();
    let sol = solve_start(&r, 3, 3);
    eprintln!("3-3 start {:?} len {} in {:?}", sol.start_value(), sol.len(), t.elapsed());
}
