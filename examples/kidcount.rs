use morris::position::index::SubspaceIndex;
use morris::rules::game::Game;
use morris::rules::movegen::for_each_move;
use morris::rules::Board;
fn main() {
    let g = Game::standard();
    for (s, o) in [(3u8, 5u8), (5, 3), (4, 4), (3, 3)] {
        let idx = SubspaceIndex::new(Board::Nine, s, o);
        let (mut pos, mut kids, mut caps) = (0u64, 0u64, 0u64);
        for (_, m, op) in idx.walk(0, idx.len()) {
            pos += 1;
            for_each_move(g, m, op, |mv, _, _| {
                kids += 1;
                if mv.capture != 255 {
                    caps += 1
                }
            });
        }
        println!("{s}-{o}: {pos} slots, {:.1} children a slot, {:.1} captures", kids as f64 / pos as f64, caps as f64 / pos as f64);
    }
}
