use ftcoll::topology::*;
fn show(kind: TreeKind, order: Order, p: u64, l: u64, o: u64) {
    let t = Tree::new(kind, order, p, LogP::new(l, o).unwrap()).unwrap();
    println!("{kind} {order} P={p} L={l} o={o} deadline={}", t.deadline());
    for r in 0..p as u32 {
        let ch: Vec<u32> = t.children(r).collect();
        println!("  {r}: parent={:?} children={:?} level={:?} recv={:?} size={:?} s'={:?}", t.parent(r), ch, t.level(r), t.receive_time(r), t.subtree_size(r), t.first_send_iteration(r));
    }
    println!("  def1: {:?}", check_interleaved(&t));
}
fn main() {
    show(TreeKind::Lame(3), Order::Interleaved, 9, 1, 1);
    show(TreeKind::KAry(2), Order::Interleaved, 7, 1, 1);
    show(TreeKind::KAry(2), Order::InOrder, 7, 1, 1);
    show(TreeKind::Binomial, Order::InOrder, 8, 1, 1);
    show(TreeKind::Optimal, Order::Interleaved, 14, 1, 2);
}
