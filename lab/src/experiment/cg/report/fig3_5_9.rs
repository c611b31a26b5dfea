//! CG Fig. 3, 5 and App. B's Fig. 9 (`N = 1024`, `L = O = 1`): the largest time over the runs
//! against `T` for OCG, CCG and FCG(1), each in the paper's measure, beside Eq. 3, 4 and 5.

use alloc::string::String;
use alloc::vec::Vec;
use alloc::{format, vec};
use core::fmt::Write as _;

use ftcoll::protocols::gossip::plan::PlanProtocol;
use ftcoll::Time;
use ftcoll_sim::scenario::FaultSpec;

use super::{list_times, FigRing};
use crate::experiment::cg::{published, CgPoint, CgProtocol, Job, Scale};
use crate::experiment::{Chart, ChartSeries, Executor, Output, PointError};

/// Fig. 3, 5 and 9 (`N = 1024`, `L = O = 1`): the largest time over the runs against `T` for OCG,
/// CCG and FCG(1), each in the paper's measure, beside Eq. 3, 4 and 5.
pub(super) fn fig3_5_9(
    scale: &Scale,
    seed: u64,
    exec: &mut dyn Executor<CgPoint>,
    out: &mut Output,
    ring: &FigRing,
) -> Result<(), PointError> {
    let md = &mut out.markdown;
    let (fig_procs, fig_logp, model) = (ring.procs, ring.logp, &ring.model);
    let fig_delta = 6.93e-7;
    // (protocol, its model, file, figure, equation, the paper's chosen T where it gives one)
    for (protocol, plan_protocol, file, fig, equation, paper_t) in [
        (
            CgProtocol::Ocg,
            PlanProtocol::Ocg,
            "fig3_ocg",
            "Fig. 3",
            3,
            Some(published::FIG3_T),
        ),
        (
            CgProtocol::Ccg,
            PlanProtocol::Ccg,
            "fig5_ccg",
            "Fig. 5",
            4,
            Some(published::FIG5_T),
        ),
        // Appendix B: FCG(1) against Eq. 5's upper bound; the paper names no optimal T there.
        (
            CgProtocol::Fcg(1),
            PlanProtocol::Fcg,
            "fig9_fcg",
            "Fig. 9",
            5,
            None,
        ),
    ] {
        let (t0, t1) = scale.fig35_t;
        let mut points = Vec::new();
        let mut analytic = Vec::new();
        for t in t0..=t1 {
            let plan = model.plan_at(plan_protocol, t, fig_delta);
            let spec = CgPoint::paper_scenario(fig_procs, fig_logp, FaultSpec::None);
            points.push(CgPoint::new(protocol, spec, t, plan.correction));
            analytic.push(plan.latency);
        }
        let labels: Vec<String> = (t0..=t1).map(|t| format!("{file} T={t}")).collect();
        let jobs: Vec<Job<'_>> = points
            .iter()
            .zip(&labels)
            .map(|(point, label)| Job {
                label,
                point,
                runs: scale.fig35_runs,
            })
            .collect();
        let stats = exec.run(seed, &jobs)?;
        out.runs += scale.fig35_runs * points.len() as u64;
        let best = model
            .plan(plan_protocol, fig_delta)
            .map_err(|e| PointError(format!("{e}")))?;
        let mut csv = String::from(
            "T,C,runs,simulated_max_total,simulated_mean_total,simulated_max_coloring,\
             inconsistent_runs,analytical_latency\n",
        );
        let mut sim_series = Vec::new();
        let mut color_series = Vec::new();
        let mut model_series = Vec::new();
        let mut argmin = (Time::MAX, 0);
        let mut sim_maxima = Vec::new();
        // The `T`s whose simulated maximum exceeds the model's time (Eq. 5 claims a bound).
        let mut above_model = Vec::new();
        // Of those, the `T`s where even the last process was reached after the model's time.
        let mut colored_after_model = 0usize;
        // The paper's measure: Fig. 3 "the total time to reach all the nodes" (coloring),
        // Fig. 5 "to reach all the nodes and complete the algorithm" and Fig. 9 "to complete
        // the correction phase" (quiescence).
        let reach_only = protocol == CgProtocol::Ocg;
        for ((point, s), a) in points.iter().zip(&stats).zip(&analytic) {
            let m = if reach_only {
                s.coloring.max()
            } else {
                s.quiescence.max()
            };
            if m > *a && s.coloring.max() > *a {
                colored_after_model += 1;
            }
            if m > *a {
                above_model.push(point.gossip_time);
            }
            let _ = writeln!(
                csv,
                "{},{},{},{},{:.3},{},{},{a}",
                point.gossip_time,
                point.correction_time,
                s.runs(),
                s.quiescence.max(),
                s.quiescence.mean(),
                s.coloring.max(),
                s.inconsistent_runs
            );
            if m < argmin.0 {
                argmin = (m, point.gossip_time);
            }
            sim_maxima.push(m);
            sim_series.push((point.gossip_time as f64, m as f64));
            color_series.push((
                point.gossip_time as f64,
                if reach_only {
                    s.quiescence.max()
                } else {
                    s.coloring.max()
                } as f64,
            ));
            model_series.push((point.gossip_time as f64, *a as f64));
        }
        out.csv.push((format!("{file}.csv"), csv));
        let (what, other_line) = if reach_only {
            (
                "total time to reach every process (the paper's measure for Fig. 3: the last \
                 live process's delivery)",
                "The third line is the largest time the last correction message was handled \
                 (quiescence), the measure Fig. 5 and 9 use.",
            )
        } else {
            (
                "total time (until every process is reached and the algorithm ended: \
                 quiescence, the paper's measure)",
                "The third line is the largest time the last process was reached.",
            )
        };
        out.charts.push(Chart {
            file: format!("{file}.svg"),
            title: format!(
                "CG {fig}: {} at N = 1024, L = O = 1 (max over runs vs Eq. {equation})",
                protocol.paper_name(),
            ),
            x_label: "T (steps)".into(),
            y_label: "total time (steps)".into(),
            series: vec![
                ChartSeries::line(
                    format!("simulated max of {} runs", scale.fig35_runs),
                    sim_series,
                ),
                ChartSeries::line("analytical (plan.rs)", model_series),
                ChartSeries::line(
                    if reach_only {
                        "simulated max quiescence"
                    } else {
                        "simulated max coloring latency"
                    },
                    color_series,
                ),
            ],
            log_x: false,
            log_y: false,
        });
        let inconsistent: u64 = stats.iter().map(|s| s.inconsistent_runs).sum();
        let paper_choice = match paper_t {
            Some(t) => format!("the paper: T = {t}"),
            None => "the paper names no best `T` for this figure".to_string(),
        };
        let reach_line = if reach_only {
            "the first line"
        } else {
            "the third line"
        };
        let bound_note = if equation == 5 {
            ", although Appendix B derives Eq. 5 as an upper bound"
        } else {
            ""
        };
        let reached = if colored_after_model == 0 {
            format!(
                "at each of them every process was reached within the model's time \
                 ({reach_line}), so what exceeds it is the end of the correction phase after \
                 the last process was reached"
            )
        } else {
            format!(
                "at {colored_after_model} of them even the last process was reached after the \
                 model's time ({reach_line})"
            )
        };
        let against_model = if above_model.is_empty() {
            format!(
                " At every `T` the simulated maximum is at most the model's time (Eq. {equation})."
            )
        } else {
            format!(
                " The simulated maximum exceeds the model's time (Eq. {equation}) at {} of the \
                 {} values of `T` ({}){bound_note}; {reached}.",
                above_model.len(),
                points.len(),
                list_times(&above_model),
            )
        };
        let _ = writeln!(
            md,
            "\n## {fig}: {} at N = n = 1024, L = O = 1\n\n\
             `{file}.csv`, `{file}.svg`: for each `T` in {t0}..={t1}, the largest {what} over \
             {} runs (the paper: the largest over 10 × 10⁶), and Eq. {equation} at the same `T` \
             (`plan_at`, δ = 6.93·10⁻⁷){}. The simulated maximum is smallest at T = {} \
             ({} steps; the first such `T`); the model's `T_opt` is {}, `T_opt + O` = {} \
             ({paper_choice}). {other_line}{against_model}{}{}\n",
            protocol.paper_name(),
            scale.fig35_runs,
            if protocol == CgProtocol::Ocg {
                "; OCG runs with the model's `C = K̄O + L + O` at that `T`, so a run can leave \
                 processes unreached: those are counted in `inconsistent_runs`"
            } else {
                ""
            },
            argmin.1,
            argmin.0,
            best.t,
            best.recommended_t(),
            {
                let at_model = points
                    .iter()
                    .zip(&sim_maxima)
                    .find(|(p, _)| p.gossip_time == best.recommended_t())
                    .map(|(_, &m)| m);
                match at_model {
                    Some(m) if m == argmin.0 && argmin.1 != best.recommended_t() => format!(
                        " At `T_opt + O` the simulated maximum is {m} too, the same minimum."
                    ),
                    Some(m) if argmin.1 != best.recommended_t() => format!(
                        " At `T_opt + O` the simulated maximum is {m}, {} step{} above the \
                         simulated minimum.",
                        m - argmin.0,
                        if m - argmin.0 == 1 { "" } else { "s" }
                    ),
                    _ => String::new(),
                }
            },
            if inconsistent > 0 {
                let at: Vec<Time> = points
                    .iter()
                    .zip(&stats)
                    .filter(|(_, s)| s.inconsistent_runs > 0)
                    .map(|(p, _)| p.gossip_time)
                    .collect();
                format!(
                    " {inconsistent} of the {} runs left a process unreached (at T = {}{}).",
                    scale.fig35_runs * points.len() as u64,
                    list_times(&at),
                    if protocol == CgProtocol::Ocg {
                        ", where `C` from the model is short"
                    } else {
                        ""
                    }
                )
            } else {
                String::new()
            }
        );
    }
    Ok(())
}
