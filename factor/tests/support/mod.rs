//! Test-only helpers shared by the integration tests.
#![allow(dead_code)]

pub mod accumulations;
pub mod check;
pub mod dual;
pub mod gen;
pub mod guards;
pub mod hyperdual;
pub mod sh;
