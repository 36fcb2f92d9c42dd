//! Paper 003 (RuN2C): the PS+PS model's Figs. 1–2 and Section IV's packet-level and
//! real-TCP experiments.

pub mod run2c_fig1;
pub mod run2c_fig2;
pub mod run2c_pin;
pub mod run2c_sim;
pub mod run2c_testbed;
