//! JSON output helpers: non-finite numbers are written as strings.

use serde_json::Value;

/// A number as JSON: finite values as numbers, others as `"nan"`, `"inf"`,
/// `"-inf"`.
pub fn number(v: f64) -> Value {
    if v.is_nan() {
        Value::from("nan")
    } else if v.is_infinite() {
        Value::from(if v > 0.0 { "inf" } else { "-inf" })
    } else {
        Value::from(v)
    }
}

/// A vector of numbers as a JSON array.
pub fn numbers(v: &[f64]) -> Value {
    Value::Array(v.iter().map(|x| number(*x)).collect())
}

/// A list of strings as a JSON array.
pub fn strings(v: &[String]) -> Value {
    Value::Array(v.iter().map(|s| Value::from(s.as_str())).collect())
}

/// A matrix as a JSON array of rows.
pub fn matrix(rows: &[Vec<f64>]) -> Value {
    Value::Array(rows.iter().map(|r| numbers(r)).collect())
}
