//! `exp`, `ln` and their accurate-near-zero forms for the `no_std` core (`core` has no
//! transcendental functions and the crate takes no math dependency). Public so that the lab's
//! analytical curves compute with the same functions as the gossip plan. Range reduction plus
//! series: relative error of a few ulp, checked against `std` by the unit test below.

/// `ln 2` split as in fdlibm: a high part with trailing zero bits and the rest.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const LN2: f64 = core::f64::consts::LN_2;

/// `2·atanh(s) = 2(s + s³/3 + s⁵/5 + …)` for `|s| <= 0.172`: `ln((1 + s)/(1 − s))`.
fn two_atanh(s: f64) -> f64 {
    let s2 = s * s;
    let mut term = s;
    let mut sum = s;
    let mut k = 1.0;
    while term.abs() > 1e-18 * sum.abs() && k < 60.0 {
        term *= s2;
        k += 2.0;
        sum += term / k;
    }
    2.0 * sum
}

/// Natural logarithm; `-inf` at 0, NaN below.
pub fn ln(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return f64::INFINITY;
    }
    let (mut x, mut e) = (x, 0i64);
    if x < f64::MIN_POSITIVE {
        x *= 2f64.powi_exact(54);
        e -= 54;
    }
    let bits = x.to_bits();
    e += ((bits >> 52) & 0x7ff) as i64 - 1023;
    // Mantissa in [1, 2), then in [sqrt(1/2), sqrt(2)).
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > core::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let ef = e as f64;
    ef * LN2_HI + (two_atanh((m - 1.0) / (m + 1.0)) + ef * LN2_LO)
}

/// `ln(1 + x)`, accurate for small `x`; `-inf` at `x = -1`.
pub fn ln_1p(x: f64) -> f64 {
    if x.abs() < 0.25 {
        two_atanh(x / (2.0 + x))
    } else {
        ln(1.0 + x)
    }
}

/// `e^x`.
pub fn exp(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > 709.78 {
        return f64::INFINITY;
    }
    if x < -745.2 {
        return 0.0;
    }
    let kf = x / LN2;
    let k = (if kf >= 0.0 { kf + 0.5 } else { kf - 0.5 }) as i64;
    let r = (x - k as f64 * LN2_HI) - k as f64 * LN2_LO;
    scale(exp_small(r), k)
}

/// `e^r` for `|r| <= 0.35` by Taylor series.
fn exp_small(r: f64) -> f64 {
    let mut term = 1.0;
    let mut sum = 1.0;
    let mut i = 1.0;
    while i < 30.0 {
        term *= r / i;
        sum += term;
        if term.abs() < 1e-18 * sum {
            break;
        }
        i += 1.0;
    }
    sum
}

/// `y · 2^k`.
fn scale(y: f64, k: i64) -> f64 {
    let mut y = y;
    let mut k = k;
    while k > 1000 {
        y *= 2f64.powi_exact(1000);
        k -= 1000;
    }
    while k < -1000 {
        y *= 2f64.powi_exact(-1000);
        k += 1000;
    }
    y * 2f64.powi_exact(k as i32)
}

/// `e^x − 1`, accurate for small `x` (the series without its leading 1).
pub fn exp_m1(x: f64) -> f64 {
    if x.abs() >= 0.35 {
        return exp(x) - 1.0;
    }
    let mut term = x;
    let mut sum = x;
    let mut i = 2.0;
    while i < 30.0 {
        term *= x / i;
        sum += term;
        if term.abs() < 1e-18 * sum.abs() {
            break;
        }
        i += 1.0;
    }
    sum
}

/// Exact powers of two by bit construction (`core` has no `powi`).
trait PowExact {
    fn powi_exact(self, k: i32) -> f64;
}

impl PowExact for f64 {
    fn powi_exact(self, k: i32) -> f64 {
        debug_assert!(self == 2.0);
        if (-1022..=1023).contains(&k) {
            f64::from_bits(((k + 1023) as u64) << 52)
        } else if (-1074..-1022).contains(&k) {
            // Subnormal: the bit 1074 + k of the mantissa.
            f64::from_bits(1u64 << (k + 1074))
        } else if k < -1074 {
            0.0
        } else {
            f64::INFINITY
        }
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan())
            || a == b
            || (a - b).abs() <= 4.0 * f64::EPSILON * b.abs().max(1e-300)
    }

    #[test]
    fn agree_with_std() {
        let mut xs = std::vec::Vec::new();
        let mut x: f64 = 1e-300;
        while x < 1e300 {
            xs.push(x);
            xs.push(1.0 + x.min(1e-3));
            x *= 1.37;
        }
        for &x in &xs {
            assert!(close(ln(x), x.ln()), "ln {x}: {} vs {}", ln(x), x.ln());
        }
        let mut t = -740.0;
        while t < 705.0 {
            assert!(close(exp(t), t.exp()), "exp {t}: {} vs {}", exp(t), t.exp());
            t += 0.913;
        }
        for &y in &[1e-17, 1e-9, 3e-5, 0.01, 0.2, 0.3, 0.5, 2.0, 30.0] {
            for s in [1.0, -1.0] {
                let y = s * y;
                assert!(close(ln_1p(y), y.ln_1p()), "ln_1p {y}");
                assert!(close(exp_m1(y), y.exp_m1()), "exp_m1 {y}");
            }
        }
        assert_eq!(ln_1p(-1.0), f64::NEG_INFINITY);
        assert_eq!(exp_m1(f64::NEG_INFINITY), -1.0);
    }
}
