//! `wireseal/peat`.
