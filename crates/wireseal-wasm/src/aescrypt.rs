//! `wireseal/aescrypt`.
