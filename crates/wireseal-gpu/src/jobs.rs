//! The jobs: the library's own batch shapes. A seal job is
//! [`wireseal::bip324::batch::OutgoingJob`] (a type per packet, so decoys
//! ride in the same batch), an open job
//! [`wireseal::bip324::batch::OpenJob`].

pub use wireseal::bip324::batch::{Outgoing, OutgoingJob as SealJob};
