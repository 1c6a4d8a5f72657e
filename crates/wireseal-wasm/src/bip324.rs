//! `wireseal/bip324`.
