//! How a check's verdict is printed: one JSON line (serde_json) or text, and the exit status.

use super::*;

/// One line of JSON (serde_json; our types always serialize).
pub(crate) fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).expect("a derived Serialize of strings and numbers")
}

/// `seconds` rounded to the millisecond, as the JSON outputs state run times.
pub(crate) fn milliseconds(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}

/// What a check's count counts and what its counterexample is: unique states and a shortest
/// (or minimized) counterexample, except for the asynchronous model's `dpor` engine (events,
/// and the first run found) and `transactions` engine (the reduced model's states, and the
/// first run found).
#[derive(Clone, Copy)]
pub(crate) struct Counted {
    pub(crate) unit: &'static str,
    /// The unit in "no violation found within N …".
    pub(crate) within: &'static str,
    pub(crate) counterexample: &'static str,
}

pub(crate) const UNIQUE: Counted = Counted {
    unit: "unique states",
    within: "states",
    counterexample: "shortest counterexample",
};

pub(crate) const REDUCED: Counted = Counted {
    unit: "states of the model reduced to transactions",
    within: "reduced states",
    counterexample: "counterexample (the first run found)",
};

pub(crate) const EVENTS: Counted = Counted {
    unit: "events (states visited, repeated across runs)",
    within: "events",
    counterexample: "counterexample (the first run found)",
};

/// Prints a check's verdict (JSON or text) and returns the exit status: 0 decided, 3 partial.
pub(crate) fn print_result(
    result: &ftcoll_verify::CheckResult,
    name: &str,
    crashes: u32,
    timing: &str,
    format: Format,
    counted: Counted,
) -> ExitCode {
    // Written at once, ignoring a closed pipe (`| head`): output is not worth a panic.
    let mut out = String::new();
    let first = result.violations.first();
    let verdict = result.verdict();
    let unresolved = result.unresolved();
    let within = |stop: Stop| {
        format!(
            "no violation found within {} {} (budget: {stop})",
            result.states, counted.within
        )
    };
    if format == Format::Json {
        #[derive(serde::Serialize)]
        struct Checked<'a> {
            protocol: &'a str,
            crashes: u32,
            timing: &'a str,
            verdict: &'static str,
            property: Option<&'static str>,
            violated: Vec<&'static str>,
            unresolved: Vec<&'static str>,
            budget: Option<&'static str>,
            states: usize,
            seconds: f64,
            trace: &'a [String],
        }
        let checked = Checked {
            protocol: name,
            crashes,
            timing,
            verdict: verdict.as_str(),
            property: first.map(|v| v.property),
            violated: result.violations.iter().map(|v| v.property).collect(),
            unresolved,
            budget: result.stopped.map(|s| s.as_str()),
            states: result.states,
            seconds: milliseconds(result.seconds),
            trace: first.map_or(&[], |v| &v.trace),
        };
        let _ = writeln!(out, "{}", json(&checked));
    } else {
        let _ = writeln!(out, "{}, f = {}, crashes {}:", name, crashes, timing);
        for &property in &result.properties {
            match result.stopped {
                _ if result.cut_by_horizon.contains(&property) => {
                    let _ = writeln!(
                        out,
                        "  partial   {property} — undecided: some run is still busy at the horizon"
                    );
                }
                _ if result.violated(property) => {
                    let _ = writeln!(out, "  VIOLATED  {property}");
                }
                None => {
                    let _ = writeln!(out, "  holds     {property}");
                }
                Some(stop) => {
                    let _ = writeln!(out, "  partial   {property} — {}", within(stop));
                }
            }
        }
        let _ = writeln!(
            out,
            "  {} {} in {:.3} s",
            result.states, counted.unit, result.seconds
        );
        if let Some(stop) = result.stopped {
            let _ = writeln!(
                out,
                "  verdict: {} (the {stop} budget stopped the search; a counterexample is a definite violation, anything else is unknown beyond these states)",
                verdict.as_str()
            );
        }
        if let Some(v) = first {
            let _ = writeln!(out, "{} for \"{}\":", counted.counterexample, v.property);
            for line in &v.trace {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    if verdict == Verdict::Partial {
        ExitCode::from(EXIT_PARTIAL)
    } else {
        ExitCode::SUCCESS
    }
}
