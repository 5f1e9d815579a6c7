pub mod jet;
