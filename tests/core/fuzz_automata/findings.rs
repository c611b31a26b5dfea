//! Findings: minimal cases of what the fuzzer found (`docs/reference/fuzzing.md`).

use ftcoll::automaton::{Action, Automaton, Outbox};
use ftcoll::protocols::corrected_tree::{
    CorrectedTreeConfig, CorrectedTreeNode, CorrectionSpec, StartMode,
};
use ftcoll::protocols::{Body, CorrectionMsg, Correctors, Msg, Side};
use ftcoll::topology::{LogP, Order, Tree, TreeKind};
use ftcoll::Rank;

fn tree_config(kind: TreeKind, procs: u32, spec: CorrectionSpec) -> CorrectedTreeConfig {
    let logp = LogP::new(2, 1).expect("valid LogP");
    let tree = Tree::new(kind, Order::Interleaved, procs, logp).expect("valid tree");
    CorrectedTreeConfig::new(tree, spec, StartMode::Overlapped)
}

/// No process sends to itself, so a message "from itself" is not a peer's: it must not color,
/// deliver or (delayed correction) queue a `Stop` reply to itself.
#[test]
fn a_message_from_the_process_itself_is_ignored() {
    let delayed = CorrectionSpec::Delayed { delay: 4 };
    let config = tree_config(TreeKind::Binomial, 8, delayed);
    let mut node = CorrectedTreeNode::new(&config, 3);
    let mut out = Outbox::new();
    node.on_start(&config, 0, &mut out);
    let fresh = node.clone();
    let msg = Msg {
        value: config.payload,
        body: Body::Correction(CorrectionMsg::Ring {
            toward: Side::Right,
        }),
    };
    node.on_message(&config, 1, 3, msg, &mut out);
    assert!(
        matches!(out.actions(), [Action::Ignored(_)]),
        "{:?}",
        out.actions()
    );
    assert_eq!(node, fresh);
}

/// Before the root starts nobody holds the payload, so a message to the root then is no peer's;
/// taking it colored the root by correction, and its start then sent the tree messages again.
#[test]
fn the_root_ignores_messages_before_it_starts() {
    let config = tree_config(TreeKind::KAry(2), 7, CorrectionSpec::Ack);
    let mut root = CorrectedTreeNode::new(&config, 0);
    let mut out = Outbox::new();
    let early = Msg {
        value: config.payload ^ 1,
        body: Body::Correction(CorrectionMsg::Sos),
    };
    let fresh = root.clone();
    root.on_message(&config, 0, 3, early, &mut out);
    assert!(
        matches!(out.actions(), [Action::Ignored(_)]),
        "{:?}",
        out.actions()
    );
    assert_eq!(root, fresh);
    out.drain();
    root.on_start(&config, 1, &mut out);
    assert_eq!(out.actions(), [Action::Deliver(config.payload)]);
}

/// A failure-proof c-node holds the payload of its first correction message and forwards that
/// one in SOS, so that is the one it delivers, whichever message completes its `f + 1`.
#[test]
fn a_failure_proof_c_node_delivers_the_payload_it_holds() {
    let failproof = CorrectionSpec::FailProof {
        faults: 1,
        sos_timeout: Some(100),
        sos_on_full_loop: true,
    };
    let config = tree_config(TreeKind::Binomial, 8, failproof);
    let mut node = CorrectedTreeNode::new(&config, 5);
    let mut out = Outbox::new();
    node.on_start(&config, 0, &mut out);
    let first = Msg {
        value: config.payload,
        body: Body::Correction(CorrectionMsg::FailProof {
            toward: Side::Right,
            known: Correctors::default(),
        }),
    };
    node.on_message(&config, 1, 4, first, &mut out);
    let second = Msg {
        value: config.payload ^ 1,
        body: Body::Correction(CorrectionMsg::FailProof {
            toward: Side::Left,
            known: Correctors::default(),
        }),
    };
    node.on_message(&config, 2, 6, second, &mut out);
    let delivered: Vec<_> = out
        .actions()
        .iter()
        .filter(|a| matches!(a, Action::Deliver(_)))
        .collect();
    assert_eq!(delivered, [&Action::Deliver(config.payload)]);
}

/// A rank outside `0..P` in a peer's list is no corrector: a corrector must not keep and forward
/// it, and a c-node must not count it toward the `f + 1` correctors it waits for.
#[test]
fn failure_proof_correction_drops_ranks_outside_the_operation() {
    let failproof = CorrectionSpec::FailProof {
        faults: 1,
        sos_timeout: Some(100),
        sos_on_full_loop: true,
    };
    let config = tree_config(TreeKind::Binomial, 8, failproof);
    let listing = |known: Vec<Rank>| Msg {
        value: config.payload,
        body: Body::Correction(CorrectionMsg::FailProof {
            toward: Side::Left,
            known: known.into(),
        }),
    };
    // Rank 7, a leaf under 3, corrects at once (overlapped) and hears of "rank 9" from rank 0.
    let mut corrector = CorrectedTreeNode::new(&config, 7);
    let mut out = Outbox::new();
    corrector.on_start(&config, 0, &mut out);
    let tree = Msg {
        value: config.payload,
        body: Body::Tree,
    };
    corrector.on_message(&config, 1, 3, tree, &mut out);
    corrector.on_message(&config, 2, 0, listing(vec![9]), &mut out);
    for now in 3..10 {
        corrector.on_send_slot(&config, now, &mut out);
    }
    for action in out.actions() {
        if let Action::Send { msg, .. } = action {
            if let Body::Correction(CorrectionMsg::FailProof { known, .. }) = &msg.body {
                assert!(known.iter().all(|&r| r < 8), "forwarded {known:?}");
            }
        }
    }
    // A c-node told of rank 0 and "rank 8" knows one corrector, not f + 1 = 2.
    let mut c_node = CorrectedTreeNode::new(&config, 5);
    let mut out = Outbox::new();
    c_node.on_start(&config, 0, &mut out);
    c_node.on_message(&config, 1, 6, listing(vec![8]), &mut out);
    assert!(!c_node.delivered(), "{:?}", out.actions());
}

/// The contract ignores duplicate messages, but a parent counts acknowledgments, so one child
/// acking twice stands in for a sibling that never acked. Not fixed: ignoring it needs the set of
/// children that acked in the hashed state (docs/reference/fuzzing.md, "Findings").
#[test]
#[ignore = "open finding: duplicate acknowledgments are counted (docs/reference/fuzzing.md)"]
fn a_duplicate_acknowledgment_is_ignored() {
    let config = tree_config(TreeKind::KAry(2), 3, CorrectionSpec::Ack);
    let mut root = CorrectedTreeNode::new(&config, 0);
    let mut out = Outbox::new();
    root.on_start(&config, 0, &mut out);
    root.on_send_slot(&config, 0, &mut out);
    root.on_send_slot(&config, 1, &mut out);
    let ack = Msg {
        value: config.payload,
        body: Body::Ack,
    };
    root.on_message(&config, 5, 1, ack.clone(), &mut out);
    root.on_message(&config, 6, 1, ack, &mut out);
    out.drain();
    root.on_send_slot(&config, 7, &mut out);
    assert!(
        !out.actions()
            .iter()
            .any(|a| matches!(a, Action::Complete(_))),
        "completed without rank 2's ack: {:?}",
        out.actions()
    );
}
