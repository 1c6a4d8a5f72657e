//! `wireseal/sphinx`.
