//! The generic retrograde solver.
