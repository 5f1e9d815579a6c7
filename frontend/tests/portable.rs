//! The special cases of the functions of `frontend::portable`; their
//! accuracy is in `accuracy.rs`.

use frontend::portable::{erf, maximum, minimum, sign};

#[test]
fn min_max_follow_ieee_2019() {
    assert!(minimum(f64::NAN, 1.0).is_nan());
    assert!(maximum(1.0, f64::NAN).is_nan());
    assert!(minimum(0.0, -0.0).is_sign_negative());
    assert!(maximum(-0.0, 0.0).is_sign_positive());
    assert_eq!(minimum(2.0, 3.0), 2.0);
    assert_eq!(maximum(2.0, 3.0), 3.0);
}

#[test]
fn sign_keeps_zero_and_nan() {
    assert_eq!(sign(-3.0), -1.0);
    assert_eq!(sign(0.5), 1.0);
    assert!(sign(-0.0).is_sign_negative() && sign(-0.0) == 0.0);
    assert!(sign(f64::NAN).is_nan());
}

#[test]
fn erf_special_values() {
    assert_eq!(erf(f64::INFINITY), 1.0);
    assert_eq!(erf(f64::NEG_INFINITY), -1.0);
    assert!(erf(f64::NAN).is_nan());
    assert!(erf(-0.0).is_sign_negative() && erf(-0.0) == 0.0);
    assert_eq!(erf(5e-324), 5e-324 * std::f64::consts::FRAC_2_SQRT_PI);
    assert_eq!(erf(30.0), 1.0);
    assert_eq!(erf(-7.0), -1.0);
}
