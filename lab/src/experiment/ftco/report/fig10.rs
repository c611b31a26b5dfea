//! FTCO Fig. 10 (§5.2): inactive nodes against as many run-time faults, latency and work.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

use ftcoll::protocols::ftco::EtaRule;
use ftcoll::topology::ftco::{Collective, Roots};
use ftcoll_sim::scenario::FaultSpec;

use super::{best, f1, f2, Ctx};
use crate::experiment::ftco::{
    Chart, ChartSeries, FtcoPoint, Output, RuntimeFaults, Scale, FAULT_ETA, L,
};
use crate::experiment::PointError;

pub(super) fn fig10(ctx: &mut Ctx<'_>, scale: &Scale, out: &mut Output) -> Result<(), PointError> {
    let procs = scale.fig10_procs;
    let topology = best(Collective::Allreduce, procs, Roots::PerK)?;
    let ff = topology
        .fault_free_latency(Collective::Allreduce, L)
        .map_err(|e| PointError(format!("{e}")))?;
    let mut csv = String::from(
        "procs,k,roots,inactive,runtime_faults,crash_from,crash_to,runs,latency_mean,latency_std,\
         latency_p95,latency_max,work_mean,work_keepalive_mean,longest_queue_max,incomplete_mean,\
         budget_exhausted,eta\n",
    );
    let mut md = String::new();
    let _ = writeln!(
        md,
        "## Fig. 10: inactive nodes and run-time faults\n\n\
         Allreduce, P = {procs}, multi-root {}-nomial with R = {}, fault-free latency {ff}. \
         Rows: inactive nodes (failed before the operation); columns: run-time faults, each a \
         random non-root that is not inactive, crashing at a step uniform in 1..={ff} (during \
         the fault-free operation; the paper does not say when its run-time faults happen). \
         Mean latency (steps) over {} runs, then mean work (messages per node). ETA rule `{}` \
         (as in Fig. 8–9); the last row repeats the first with the exact fault-free ETA. The \
         paper's claims: run-time faults cost more than inactive nodes, and the longest queue \
         stays small (at most 130 in its runs).\n",
        topology.kind().k(),
        topology.roots(),
        scale.fig10_runs,
        FAULT_ETA
    );
    let counts = &scale.fig10_counts;
    let header: String = counts.iter().map(|c| format!(" {c} run-time |")).collect();
    let _ = writeln!(
        md,
        "| inactive |{header}\n|---|{}",
        "---|".repeat(counts.len())
    );
    let mut series = Vec::new();
    let mut longest = 0u64;
    let mut means = Vec::new();
    let mut jobs = Vec::new();
    // Rows: every inactive count under the fault experiments' rule, then no inactive node
    // under the exact ETA.
    let rows: Vec<(u32, EtaRule)> = counts
        .iter()
        .map(|&c| (c, FAULT_ETA))
        .chain([(0, EtaRule::Exact)])
        .collect();
    for &(inactive, eta) in &rows {
        for &runtime in counts {
            let mut p = FtcoPoint::new(topology, Collective::Allreduce);
            p.eta = eta;
            p.inactive = if inactive == 0 {
                FaultSpec::None
            } else {
                FaultSpec::Count(inactive)
            };
            p.runtime = RuntimeFaults {
                count: runtime,
                from: 1,
                to: ff,
            };
            let runs = if inactive == 0 && runtime == 0 {
                1
            } else {
                scale.fig10_runs
            };
            let label = format!("Fig. 10 P={procs} inactive={inactive} run-time={runtime}");
            jobs.push((label, p, runs));
        }
    }
    let results = ctx.batch(&jobs)?;
    let mut done = results.iter().zip(&jobs);
    for &(inactive, eta) in &rows {
        let mut row = if eta == FAULT_ETA {
            format!("| {inactive} |")
        } else {
            format!("| {inactive}, {eta} ETA |")
        };
        let mut points = Vec::new();
        for &runtime in counts {
            let (stats, job) = done
                .next()
                .ok_or_else(|| PointError("Fig. 10: a result is missing".into()))?;
            let runs = job.2;
            let pp = f64::from(procs);
            let lat = stats.metric("latency");
            longest = longest.max(stats.metric("longest_queue").max());
            let _ = writeln!(
                csv,
                "{procs},{},{},{inactive},{runtime},1,{ff},{runs},{:.4},{:.4},{},{},{:.4},{:.4},{},{:.4},{},{eta}",
                topology.kind().k(),
                topology.roots(),
                lat.mean(),
                lat.std(),
                lat.percentile(0.95),
                lat.max(),
                stats.mean("messages") / pp,
                stats.mean("keepalive") / pp,
                stats.metric("longest_queue").max(),
                stats.mean("incomplete"),
                stats.budget_exhausted,
            );
            let _ = write!(
                row,
                " {} ({} msgs/node) |",
                f1(lat.mean()),
                f2(stats.mean("messages") / pp)
            );
            points.push((f64::from(runtime) + 1.0, lat.mean()));
            means.push((inactive, runtime, eta, lat.mean()));
        }
        let _ = writeln!(md, "{row}");
        let name = if eta == FAULT_ETA {
            format!("{inactive} inactive")
        } else {
            format!("{inactive} inactive, {eta} ETA")
        };
        series.push(ChartSeries::line(name, points));
    }
    let mean_of = |i: u32, r: u32, eta: EtaRule| {
        means
            .iter()
            .find(|m| m.0 == i && m.1 == r && m.2 == eta)
            .map_or(0.0, |m| m.3)
    };
    let mut more = (0u32, 0u32);
    let mut more_exact = (0u32, 0u32);
    for &c in counts.iter().filter(|&&c| c > 0) {
        more.1 += 1;
        more.0 += u32::from(mean_of(0, c, FAULT_ETA) > mean_of(c, 0, FAULT_ETA));
        more_exact.1 += 1;
        more_exact.0 += u32::from(mean_of(0, c, EtaRule::Exact) > mean_of(c, 0, FAULT_ETA));
    }
    ctx.facts.fig10_more = more;
    ctx.facts.fig10_more_exact = more_exact;
    let _ = writeln!(
        md,
        "\nRun-time faults cost more than as many inactive nodes in {} of {} counts (row 0 \
         against column 0). Longest queue over every run: {longest} (the paper: at most 130).\n",
        more.0, more.1
    );
    out.markdown.push_str(&md);
    out.csv.push(("fig10_inactive_and_runtime.csv".into(), csv));
    out.charts.push(Chart {
        file: "fig10_inactive_and_runtime.svg".into(),
        title: format!("FTCO Fig. 10: Allreduce latency, P = {procs}"),
        x_label: "run-time faults + 1".into(),
        y_label: "mean latency (steps)".into(),
        series,
        log_x: true,
        log_y: false,
    });
    Ok(())
}
