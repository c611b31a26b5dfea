//! FTCO Table 2 (§5.2.4, process imbalance at 64 K nodes): latency, work, output spread and
//! longest queue against the input spread of uniform and normal arrivals, with the imbalance
//! extension (App. B, Alg. 5), and the `--imbalance off` baseline it improves on.

use alloc::string::String;
use alloc::vec::Vec;
use alloc::{format, vec};
use core::fmt::Write as _;

use ftcoll::topology::ftco::{Collective, Roots};
use ftcoll_sim::scenario::ArrivalSpec;

use super::{best, f1, f2, widen, Ctx, Facts};
use crate::experiment::ftco::{published, FtcoPoint, Output, Scale};
use crate::experiment::PointError;

/// An arrival as `--arrival` spells it (the patterns Table 2 uses; anything else: `none`).
fn arrival_name(a: &ArrivalSpec) -> String {
    match a {
        ArrivalSpec::Normal(s) => format!("normal:{s}"),
        ArrivalSpec::Uniform(s) => format!("uniform:{s}"),
        ArrivalSpec::SymmetricNormal(s) => format!("symnormal:{s}"),
        _ => "none".into(),
    }
}

/// The half-normal arrivals of a Table 2 row of input spread `s`: `|N(0, σ)|` with `σ = s / 4`,
/// so that the largest of 64 K draws (about 4.2 σ) is close to `s` (see the report).
pub fn normal_arrival(spread: u64) -> ArrivalSpec {
    ArrivalSpec::Normal(spread / 4)
}

/// The symmetric normal arrivals of a Table 2 row of input spread `s`: `N(0, σ)` shifted to
/// start at 0 with `σ = s / 8`, so that the range of 64 K draws (about 8.2 σ) is close to `s`.
pub fn symmetric_normal_arrival(spread: u64) -> ArrivalSpec {
    ArrivalSpec::SymmetricNormal(spread / 8)
}

fn uniform_arrival(spread: u64) -> ArrivalSpec {
    ArrivalSpec::Uniform(spread)
}

/// One of Table 2's distributions.
struct Distribution {
    /// The CSV's `distribution`.
    csv: &'static str,
    /// The report's label.
    label: &'static str,
    /// The arrivals of an input spread.
    arrival: fn(u64) -> ArrivalSpec,
}

/// Table 2's distributions; both normals are compared with the paper's normal column.
const TABLE2_DISTRIBUTIONS: [Distribution; 3] = [
    Distribution {
        csv: "uniform",
        label: "uniform",
        arrival: uniform_arrival,
    },
    Distribution {
        csv: "normal",
        label: "half-normal",
        arrival: normal_arrival,
    },
    Distribution {
        csv: "symnormal",
        label: "symmetric normal",
        arrival: symmetric_normal_arrival,
    },
];

/// A Table 2 row with a spread, as measured (means), beside the paper's row.
struct SpreadRow {
    /// [`Distribution::csv`].
    dist: &'static str,
    spread: u64,
    latency: f64,
    work: f64,
    output_spread: f64,
    /// The paper's `(latency, work, output spread, longest queue)`.
    paper: (f64, f64, f64, u64),
}

/// How one reading of Table 2's normal distribution compares with the paper's normal column,
/// each a mean over the spread rows: `|ours − paper| / paper` per column, and our work over our
/// uniform work at the same spread.
#[derive(Clone, Debug)]
pub(super) struct NormalFit {
    label: &'static str,
    latency: f64,
    work: f64,
    output_spread: f64,
    work_ratio: f64,
}

pub(super) fn table2(ctx: &mut Ctx<'_>, scale: &Scale, out: &mut Output) -> Result<(), PointError> {
    let md = &mut out.markdown;
    let mut csv = String::from(
        "distribution,input_spread,arrival,procs,k,roots,runs,drawn_input_spread_mean,\
         latency_from_last_start_mean,latency_from_last_start_std,latency_mean,work_mean,\
         work_keepalive_mean,work_ack_mean,output_spread_mean,longest_queue_max,\
         budget_exhausted,inconsistent,paper_latency,paper_work,paper_output_spread,\
         paper_longest_queue\n",
    );
    let _ = writeln!(
        md,
        "## Table 2: process imbalance on 64 K nodes\n\n\
         Allreduce, P = 65,536 for the fault-free row, multi-root 9-nomial with R = 9 \
         (`best_knomial`), with the imbalance extension (App. B, Alg. 5, `--imbalance alg5`): \
         each process answers from step 0 and enters the collective at its drawn start time. \
         Latency is Table 2's `FinishTime_last − StartTime_last`; work is messages sent per \
         node (all kinds); output spread is §5.2.4's `FinishTime_last − FinishTime_first` with \
         rank 0 (the root, active throughout) left out; the longest queue is the maximum over \
         all runs of a row, the others are means. Two readings of the paper's normal \
         distribution, each compared with its normal column: a half-normal and a symmetric \
         normal (see \"Differences\"). Each cell: ours / paper.\n"
    );
    let mut rows: Vec<(&str, &str, u64, ArrivalSpec, u32, usize)> =
        vec![("none", "none", 0, ArrivalSpec::None, 65_536, 0)];
    for d in TABLE2_DISTRIBUTIONS {
        for &s in &scale.table2_spreads {
            let index = published::TABLE2_SPREADS
                .iter()
                .position(|&x| x == s)
                .unwrap_or(0);
            rows.push((d.csv, d.label, s, (d.arrival)(s), scale.table2_procs, index));
        }
    }
    let _ = writeln!(
        md,
        "| distribution | input spread | drawn spread | runs | latency | work | output spread | longest queue |\n|---|---|---|---|---|---|---|---|"
    );
    let mut fault_free_line = String::new();
    let mut jobs = Vec::new();
    for (dist, _, s, arrival, procs, _) in &rows {
        let (s, procs) = (*s, *procs);
        let topology = best(Collective::Allreduce, procs, Roots::PerK)?;
        let mut p = FtcoPoint::new(topology, Collective::Allreduce);
        p.arrival = arrival.clone();
        let runs = if s == 0 { 1 } else { scale.table2_runs };
        jobs.push((format!("Table 2 {dist} {s} P={procs}"), p, runs));
    }
    let results = ctx.batch(&jobs)?;
    let mut measured: Vec<SpreadRow> = Vec::new();
    for ((dist, label, s, arrival, procs, index), (stats, job)) in
        rows.into_iter().zip(results.iter().zip(&jobs))
    {
        let (topology, runs) = (job.1.topology, job.2);
        let published = if dist == "uniform" || dist == "none" {
            published::TABLE2_UNIFORM[index]
        } else {
            published::TABLE2_NORMAL[index]
        };
        let pp = f64::from(procs);
        let work = stats.mean("messages") / pp;
        let lat = stats.mean("latency_from_last_start");
        let out_spread = stats.mean("spread");
        let queue = stats.metric("longest_queue").max();
        if s > 0 {
            widen(&mut ctx.facts.queue, queue);
            widen(&mut ctx.facts.output_spread, out_spread);
            measured.push(SpreadRow {
                dist,
                spread: s,
                latency: lat,
                work,
                output_spread: out_spread,
                paper: published,
            });
        }
        let (paper_lat, paper_work, paper_spread, paper_queue) = published;
        let scaled = procs != 65_536;
        let _ = writeln!(
            csv,
            "{dist},{s},{},{procs},{},{},{runs},{:.1},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{queue},{},{},{},{},{},{}",
            arrival_name(&arrival),
            topology.kind().k(),
            topology.roots(),
            stats.mean("input_spread"),
            lat,
            stats.metric("latency_from_last_start").std(),
            stats.mean("latency"),
            work,
            stats.mean("keepalive") / pp,
            stats.mean("ack") / pp,
            out_spread,
            stats.budget_exhausted,
            stats.inconsistent,
            paper_lat,
            paper_work,
            paper_spread,
            paper_queue,
        );
        let cell = |ours: String, paper: String| {
            if scaled {
                format!("{ours} / ({paper})")
            } else {
                format!("{ours} / {paper}")
            }
        };
        let _ = writeln!(
            md,
            "| {label} | {s} | {} | {runs} | {} | {} | {} | {} |",
            f1(stats.mean("input_spread")),
            cell(f1(lat), f1(paper_lat)),
            cell(f1(work), f1(paper_work)),
            cell(f1(out_spread), f1(paper_spread)),
            cell(queue.to_string(), paper_queue.to_string()),
        );
        if s == 0 {
            fault_free_line = format!(
                "The fault-free row: latency {}, {} messages ({} per node: {} DATA, {} ACK, {} KEEPALIVE), output spread {}, longest queue {}; the paper: 171, 3, 43, 9.",
                stats.metric("latency").max(),
                stats.metric("messages").max(),
                f2(work),
                stats.metric("data").max(),
                stats.metric("ack").max(),
                stats.metric("keepalive").max(),
                stats.metric("spread").max(),
                queue,
            );
        }
    }
    let _ = writeln!(md, "\n{fault_free_line}\n");
    ctx.facts.normal_fit = normal_fit(&measured);
    ctx.facts.paper_work_ratio = paper_work_ratio(&measured);
    if let Some(text) = normal_fit_text(&ctx.facts) {
        let _ = writeln!(md, "{text}\n");
    }
    if scale.table2_procs != 65_536 {
        let _ = writeln!(
            md,
            "(Spread rows at P = {} for speed; the paper's numbers, in parentheses, are for 64 K.)\n",
            scale.table2_procs
        );
    }
    let _ = writeln!(
        md,
        "Commands: `cargo ftcoll sweep --procs 65536 --collective allreduce --topology knomial:best \
         --roots k -L 10 --arrival uniform:S --imbalance alg5 --runs N --seed {}` (half-normal \
         rows: `--arrival normal:S/4`; symmetric normal rows: `--arrival symnormal:S/8`).\n",
        ctx.seed
    );
    out.csv.push(("table2.csv".into(), csv));
    Ok(())
}

/// Table 2's spread rows → the fit of each normal reading ([`NormalFit`]), in
/// [`TABLE2_DISTRIBUTIONS`] order.
fn normal_fit(rows: &[SpreadRow]) -> Vec<NormalFit> {
    let uniform_work = |s: u64| {
        rows.iter()
            .find(|r| r.dist == "uniform" && r.spread == s)
            .map_or(f64::NAN, |r| r.work)
    };
    let rel = |ours: f64, paper: f64| (ours - paper).abs() / paper;
    let mut fits = Vec::new();
    for d in TABLE2_DISTRIBUTIONS.iter().skip(1) {
        let mine: Vec<&SpreadRow> = rows.iter().filter(|r| r.dist == d.csv).collect();
        if mine.is_empty() {
            continue;
        }
        let mean = |f: &dyn Fn(&SpreadRow) -> f64| {
            mine.iter().map(|r| f(r)).sum::<f64>() / mine.len() as f64
        };
        fits.push(NormalFit {
            label: d.label,
            latency: mean(&|r| rel(r.latency, r.paper.0)),
            work: mean(&|r| rel(r.work, r.paper.1)),
            output_spread: mean(&|r| rel(r.output_spread, r.paper.2)),
            work_ratio: mean(&|r| r.work / uniform_work(r.spread)),
        });
    }
    fits
}

/// The paper's normal work over its uniform work, averaged over the spreads measured here.
fn paper_work_ratio(rows: &[SpreadRow]) -> Option<f64> {
    let ratios: Vec<f64> = rows
        .iter()
        .filter(|r| r.dist == "uniform")
        .filter_map(|r| {
            let i = published::TABLE2_SPREADS
                .iter()
                .position(|&x| x == r.spread)?;
            Some(published::TABLE2_NORMAL[i].1 / published::TABLE2_UNIFORM[i].1)
        })
        .collect();
    (!ratios.is_empty()).then(|| ratios.iter().sum::<f64>() / ratios.len() as f64)
}

/// The paragraph under Table 2 that says which normal reading fits the paper's normal column,
/// with the numbers; `None` without both readings measured.
pub(super) fn normal_fit_text(facts: &Facts) -> Option<String> {
    let [half, sym] = facts.normal_fit.as_slice() else {
        return None;
    };
    let pct = |x: f64| format!("{:.0} %", 100.0 * x);
    let total = |f: &NormalFit| f.latency + f.work + f.output_spread;
    let better = if total(sym) <= total(half) { sym } else { half };
    Some(format!(
        "Which normal fits the paper's normal column: mean relative distance from it over \
         the spread rows, latency / work / output spread: {} {} / {} / {}, {} {} / {} / {}. \
         Normal work over uniform work at the same spread: the paper {:.2}, {} {:.2}, {} \
         {:.2}. The {} fits better (the smaller sum of the three distances).",
        half.label,
        pct(half.latency),
        pct(half.work),
        pct(half.output_spread),
        sym.label,
        pct(sym.latency),
        pct(sym.work),
        pct(sym.output_spread),
        facts.paper_work_ratio.unwrap_or(f64::NAN),
        half.label,
        half.work_ratio,
        sym.label,
        sym.work_ratio,
        better.label,
    ))
}

pub(super) fn off_baseline(
    ctx: &mut Ctx<'_>,
    scale: &Scale,
    out: &mut Output,
) -> Result<(), PointError> {
    let procs = scale.off_procs;
    let topology = best(Collective::Allreduce, procs, Roots::PerK)?;
    let budget = 400 * u64::from(procs) + 1_000_000;
    let mut csv = String::from(
        "procs,k,roots,arrival,imbalance,runs,budget_events,budget_exhausted,inconsistent,\
         incomplete_mean,latency_from_last_start_mean,work_mean,events_max\n",
    );
    let mut md = String::new();
    let _ = writeln!(
        md,
        "## Without the imbalance extension (`--imbalance off`)\n\n\
         The baseline the extension improves on: the arrivals are the driver's, so a late \
         process is unreachable until it arrives; its parent may suspect it, and then its \
         operand is lost, or, in an Allreduce, the late process asks for the result forever and \
         the run never quiesces. Such a run is stopped at an event budget ({budget} events here, \
         `400·P + 10^6`; the `events` columns of the CSV show how far below it the runs with the \
         extension stay) and counted, not dropped. Allreduce, P = {procs}, {}-nomial with R = {}, uniform arrivals, {} runs \
         per point. `exhausted`: runs stopped at the budget; `inconsistent`: quiesced runs whose \
         result misses a live operand or that left a live process without the result.\n",
        topology.kind().k(),
        topology.roots(),
        scale.off_runs
    );
    let _ = writeln!(
        md,
        "| arrival | imbalance | exhausted | inconsistent | latency | work |\n|---|---|---|---|---|---|"
    );
    let mut jobs = Vec::new();
    for &s in &scale.off_spreads {
        for alg5 in [false, true] {
            let mut p = FtcoPoint::new(topology, Collective::Allreduce);
            p.arrival = uniform_arrival(s);
            p.alg5 = alg5;
            p.max_events = Some(budget);
            let imbalance = if alg5 { "alg5" } else { "off" };
            let label = format!("off baseline P={procs} uniform:{s} {imbalance}");
            jobs.push((label, p, scale.off_runs));
        }
    }
    let results = ctx.batch(&jobs)?;
    let mut done = results.iter();
    for &s in &scale.off_spreads {
        for alg5 in [false, true] {
            let imbalance = if alg5 { "alg5" } else { "off" };
            let stats = done
                .next()
                .ok_or_else(|| PointError("baseline: a result is missing".into()))?;
            let pp = f64::from(procs);
            let _ = writeln!(
                csv,
                "{procs},{},{},uniform:{s},{imbalance},{},{budget},{},{},{:.4},{:.4},{:.4},{}",
                topology.kind().k(),
                topology.roots(),
                stats.runs(),
                stats.budget_exhausted,
                stats.inconsistent,
                stats.mean("incomplete"),
                stats.mean("latency_from_last_start"),
                stats.mean("messages") / pp,
                stats.metric("events").max(),
            );
            let _ = writeln!(
                md,
                "| uniform:{s} | {imbalance} | {} / {} | {} | {} | {} |",
                stats.budget_exhausted,
                stats.runs(),
                stats.inconsistent,
                f1(stats.mean("latency_from_last_start")),
                f2(stats.mean("messages") / pp),
            );
        }
    }
    let _ = writeln!(
        md,
        "\n(Latency and work of exhausted runs are those at the budget.) `ftcoll sweep` has no \
         budget option: with `--imbalance off` and an arrival spread a point can run into the \
         driver's default budget (`64·P·max(P, 64) + 10^6` events) and the sweep stops with an \
         error naming the point; the reproduction needs only this small baseline, so it runs it \
         with its own budget and counts the stopped runs.\n"
    );
    out.markdown.push_str(&md);
    out.csv.push(("imbalance_off_baseline.csv".into(), csv));
    Ok(())
}
