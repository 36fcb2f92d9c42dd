//! Paper 004 (admission control of background transfers): the models' Figs. 2–4 and
//! Theorem 5, Section IV's packet-level Figs. 5–9, and the real-TCP testbed run.

pub mod bg_fig2;
pub mod bg_fig3;
pub mod bg_fig4;
pub mod bg_fig5;
pub mod bg_fig6;
pub mod bg_fig7;
pub mod bg_fig8;
pub mod bg_fig9;
pub mod bg_frontier;
pub mod bg_testbed;
pub mod bg_theorem5;
