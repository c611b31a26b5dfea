//! The correction variants' own rules (`docs/reference/corrected-tree.md`, "Ring correction"): the sweeps of opportunistic,
//! optimized, checked and delayed correction (CT §3.1, §3.3; CG Alg. 1–2), and failure-proof
//! correction with SOS (CG Alg. 3).

use ftcoll::protocols::corrected_tree::CorrectionSpec;
use ftcoll::protocols::{CorrectionMsg, Side};
use ftcoll::Rank;

use super::{idx, Coverage, Observer};

impl<'a> Observer<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check_correction(
        &mut self,
        to: Rank,
        c: &CorrectionMsg,
        corrector: bool,
        tree_done: bool,
        sync: bool,
        kind: CorrectionSpec,
        cov: &mut Coverage,
    ) -> Result<(), (&'static str, String)> {
        let begun = corrector && tree_done && (!sync || self.start_allowed);
        let fail = |detail: String| Err(("correction by a corrector that has begun", detail));
        match (c, kind) {
            (CorrectionMsg::Sos, CorrectionSpec::FailProof { .. }) => {
                self.sos_sent += 1;
                let expected = self.ring.neighbor(Side::Right, self.sos_sent);
                if self.sos_sent >= self.procs || to != expected {
                    return Err((
                        "SOS: every other rank once, to the right",
                        format!("#{} to {to}, expected {expected}", self.sos_sent),
                    ));
                }
                if self.sos_sent == self.procs - 1 {
                    cov.sos_rounds_done += 1;
                }
            }
            (CorrectionMsg::Stop, CorrectionSpec::Delayed { .. }) => {
                cov.stop_sends += 1;
                let stops = self.stops_to.entry(to).or_default();
                *stops += 1;
                if !begun || *stops > self.sweeps_from.get(&to).copied().unwrap_or(0) {
                    return Err((
                        "delayed: Stop only in reply to a sweep message",
                        format!("to {to}, begun {begun}"),
                    ));
                }
            }
            (CorrectionMsg::Ring { toward }, _) => {
                if !begun {
                    return fail(format!("{:?}", self.coloring));
                }
                cov.ring_sends += 1;
                self.check_sweep(*toward, to, kind, cov)?;
            }
            (
                CorrectionMsg::FailProof { toward, known },
                CorrectionSpec::FailProof { faults, .. },
            ) => {
                if !begun {
                    return fail(format!("{:?}", self.coloring));
                }
                cov.failproof_sends += 1;
                self.check_failproof(*toward, to, known, faults, cov)?;
            }
            _ => return Err(("correction message of another variant", format!("{c:?}"))),
        }
        Ok(())
    }

    /// Sweeps: strictly farther on each side, never more than `P − 1` ranks over both sides, and
    /// each variant's own rule.
    fn check_sweep(
        &mut self,
        toward: Side,
        to: Rank,
        kind: CorrectionSpec,
        cov: &mut Coverage,
    ) -> Result<(), (&'static str, String)> {
        let s = idx(toward);
        let distance = self.ring.distance(toward, to);
        let previous = self.last[s];
        self.last[s] = distance;
        let fail = |rule: &'static str| {
            Err((
                rule,
                format!("{toward:?} distance {distance} after {previous}"),
            ))
        };
        if distance <= previous {
            return fail("sweep: strictly farther on each side");
        }
        if u64::from(self.last[0]) + u64::from(self.last[1]) > u64::from(self.procs - 1) {
            return fail("sweep: at most P − 1 ranks over both sides");
        }
        let consecutive = distance == previous + 1;
        match kind {
            CorrectionSpec::Opportunistic { distance: d } if !consecutive || distance > d => {
                fail("opportunistic(d): distances 1..=d in turn")
            }
            CorrectionSpec::Optimized { distance: d } if distance > d => {
                fail("optimized(d): distances at most d")
            }
            CorrectionSpec::Checked => {
                if !consecutive || self.nearest[s].is_some_and(|m| previous >= m) {
                    fail("checked: stop a side once the nearest corrector there is reached")
                } else {
                    if self.nearest[s] == Some(distance) {
                        cov.checked_reached_nearest += 1;
                    }
                    Ok(())
                }
            }
            CorrectionSpec::Delayed { .. } => {
                let first = self.config.first_side;
                if !self.delayed_first_sent {
                    self.delayed_first_sent = true;
                    if toward != first || distance != 1 {
                        return fail("delayed: one message to the first side first");
                    }
                } else {
                    cov.delayed_sweeps += 1;
                    if toward == first || !consecutive {
                        return fail("delayed: then sweep only the other side");
                    }
                    if !self.delay_timer_fired || self.heard_other_side {
                        return fail("delayed: sweep only after the delay, until heard");
                    }
                }
                Ok(())
            }
            CorrectionSpec::Opportunistic { .. } | CorrectionSpec::Optimized { .. } => Ok(()),
            _ => fail("ring message of another variant"),
        }
    }

    fn check_failproof(
        &mut self,
        toward: Side,
        to: Rank,
        known: &[Rank],
        faults: u32,
        cov: &mut Coverage,
    ) -> Result<(), (&'static str, String)> {
        let s = idx(toward);
        let distance = self.ring.distance(toward, to);
        let previous = self.last[s];
        self.last[s] = distance;
        let detail = || format!("{toward:?} distance {distance} after {previous}, {known:?}");
        if self.sos_sent > 0 {
            return Err(("failure-proof: SOS ends the protocol", detail()));
        }
        let restart = distance == 1 && previous > 0;
        if restart {
            self.restarts[s] += 1;
            cov.final_rounds += 1;
        }
        if !(distance == previous + 1 || restart && self.restarts[s] == 1) {
            return Err((
                "failure-proof: distances 1, 2, … on each side, one final round",
                detail(),
            ));
        }
        let behind = toward.other();
        let sorted = known
            .windows(2)
            .all(|w| self.ring.distance(behind, w[0]) < self.ring.distance(behind, w[1]));
        let valid = known.iter().all(|&r| r < self.procs && r != self.rank);
        if known.len() as u64 > u64::from(faults) + 1 || !sorted || !valid {
            return Err((
                "failure-proof: at most f + 1 distinct known correctors, nearest first",
                detail(),
            ));
        }
        Ok(())
    }
}
