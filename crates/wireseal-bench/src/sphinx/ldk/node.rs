//! LDK nodes (`lightning` 0.2.7 `ChannelManager`s) for the Sphinx bench:
//! a logger that drops everything, monitors that persist nothing, no
//! router (routes are given), and the channel set-up between two nodes
//! (open, fund, `channel_ready`). [`super::net`] builds its
//! network from them. A node owns its components: dropping a network frees
//! them (a fuzz target builds one network after another).
//!
//! A node's randomness (session keys, onion padding seeds, channel ids) is
//! [`Entropy`], not its `KeysManager`'s: SHA-256 of a seed the caller may
//! set and a counter, redrawn until it is a valid secret key. A build with
//! `cfg(fuzzing)` replaces LDK's ChaCha20 with a stub and its
//! `KeysManager` then returns all-zero bytes, which LDK's payment code
//! rejects as a session key; [`Entropy`] stays valid there, and reseeded
//! from an input it makes a run depend on that input alone.

use lightning::bitcoin::hashes::{sha256, Hash, HashEngine};
use lightning::bitcoin::secp256k1::{PublicKey, SecretKey};
use lightning::bitcoin::transaction::{Transaction, TxOut, Version};
use lightning::bitcoin::{absolute::LockTime, Amount, Network, Script, Txid};
use lightning::chain::chaininterface::{BroadcasterInterface, ConfirmationTarget, FeeEstimator};
use lightning::chain::chainmonitor::{ChainMonitor, Persist};
use lightning::chain::channelmonitor::{ChannelMonitor, ChannelMonitorUpdate};
use lightning::chain::{BestBlock, ChannelMonitorUpdateStatus, Filter, WatchedOutput};
use lightning::events::{Event, EventsProvider, ReplayEvent};
use lightning::ln::channelmanager::{ChainParameters, ChannelManager};
use lightning::ln::msgs::{
    BaseMessageHandler, ChannelMessageHandler, CommitmentUpdate, Init, MessageSendEvent,
};
use lightning::onion_message::messenger::NullMessageRouter;
use lightning::routing::router::{InFlightHtlcs, Route, RouteParameters, Router};
use lightning::sign::{EntropySource, InMemorySigner, KeysManager, NodeSigner};
use lightning::util::config::{MaxDustHTLCExposure, UserConfig};
use lightning::util::logger::{Logger, Record};
use lightning::util::persist::MonitorName;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::sync::Mutex;

/// Drops every log record.
pub(crate) struct NoLog;
impl Logger for NoLog {
    fn log(&self, _: Record) {}
}
/// A fixed feerate (253 sat per 1000 weight).
pub(crate) struct Fees;
impl FeeEstimator for Fees {
    fn get_est_sat_per_1000_weight(&self, _: ConfirmationTarget) -> u32 {
        253
    }
}
/// Broadcasts nothing.
pub(crate) struct NoBroadcast;
impl BroadcasterInterface for NoBroadcast {
    fn broadcast_transactions(&self, _: &[&Transaction]) {}
}
/// Watches nothing on chain.
pub(crate) struct NoFilter;
impl Filter for NoFilter {
    fn register_tx(&self, _: &Txid, _: &Script) {}
    fn register_output(&self, _: WatchedOutput) {}
}
/// Persists nothing; every update completes at once.
pub(crate) struct NoPersist;
impl Persist<InMemorySigner> for NoPersist {
    fn persist_new_channel(
        &self,
        _: MonitorName,
        _: &ChannelMonitor<InMemorySigner>,
    ) -> ChannelMonitorUpdateStatus {
        ChannelMonitorUpdateStatus::Completed
    }
    fn update_persisted_channel(
        &self,
        _: MonitorName,
        _: Option<&ChannelMonitorUpdate>,
        _: &ChannelMonitor<InMemorySigner>,
    ) -> ChannelMonitorUpdateStatus {
        ChannelMonitorUpdateStatus::Completed
    }
    fn archive_persisted_channel(&self, _: MonitorName) {}
}
/// Routes are given to `send_payment_with_route`; nothing is looked up.
pub(crate) struct NoRouter;
impl Router for NoRouter {
    fn find_route(
        &self,
        _: &PublicKey,
        _: &RouteParameters,
        _: Option<&[&lightning::ln::channel_state::ChannelDetails]>,
        _: InFlightHtlcs,
    ) -> Result<Route, &'static str> {
        Err("no router")
    }
    fn create_blinded_payment_paths<
        T: lightning::bitcoin::secp256k1::Signing + lightning::bitcoin::secp256k1::Verification,
    >(
        &self,
        _: PublicKey,
        _: Vec<lightning::ln::channel_state::ChannelDetails>,
        _: lightning::blinded_path::payment::ReceiveTlvs,
        _: Option<u64>,
        _: &lightning::bitcoin::secp256k1::Secp256k1<T>,
    ) -> Result<Vec<lightning::blinded_path::payment::BlindedPaymentPath>, ()> {
        Err(())
    }
}

static LOG: NoLog = NoLog;
static FEES: Fees = Fees;
static BROADCAST: NoBroadcast = NoBroadcast;
static FILTER: NoFilter = NoFilter;
static PERSIST: NoPersist = NoPersist;
static ROUTER: NoRouter = NoRouter;
static MESSAGES: NullMessageRouter = NullMessageRouter {};

/// The chain monitor of a node.
pub(crate) type Monitor = ChainMonitor<
    InMemorySigner,
    &'static NoFilter,
    &'static NoBroadcast,
    &'static Fees,
    &'static NoLog,
    &'static NoPersist,
    Arc<KeysManager>,
>;
/// A node's randomness: `SHA-256(seed || counter)`, the counter moving on
/// until the hash is a valid secp256k1 secret key (every use LDK makes of
/// these bytes, session keys included, accepts one).
pub struct Entropy {
    seed: Mutex<[u8; 32]>,
    counter: AtomicU64,
}

impl Entropy {
    fn new(seed: [u8; 32]) -> Self {
        Self {
            seed: Mutex::new(seed),
            counter: AtomicU64::new(0),
        }
    }

    /// Starts the stream again from `seed`.
    pub fn reseed(&self, seed: [u8; 32]) {
        *self.seed.lock().expect("entropy lock") = seed;
        self.counter.store(0, Ordering::SeqCst);
    }
}

impl EntropySource for Entropy {
    fn get_secure_random_bytes(&self) -> [u8; 32] {
        let seed = *self.seed.lock().expect("entropy lock");
        loop {
            let n = self.counter.fetch_add(1, Ordering::SeqCst);
            let mut e = sha256::Hash::engine();
            e.input(&seed);
            e.input(&n.to_be_bytes());
            let out = sha256::Hash::from_engine(e).to_byte_array();
            if SecretKey::from_slice(&out).is_ok() {
                return out;
            }
        }
    }
}

/// A node's channel manager.
pub(crate) type Manager = ChannelManager<
    Arc<Monitor>,
    &'static NoBroadcast,
    Arc<Entropy>,
    Arc<KeysManager>,
    Arc<KeysManager>,
    &'static Fees,
    &'static NoRouter,
    &'static NullMessageRouter,
    &'static NoLog,
>;

/// An LDK node, its keys, and the messages it has for peers not yet
/// taken.
pub struct Node {
    pub(crate) cm: Manager,
    keys: Arc<KeysManager>,
    entropy: Arc<Entropy>,
    pub(crate) id: PublicKey,
    outbox: RefCell<Vec<MessageSendEvent>>,
}

impl Node {
    /// A node whose keys derive from `[seed; 32]`.
    pub(crate) fn new(seed: u8) -> Self {
        let network = Network::Regtest;
        let keys = Arc::new(KeysManager::new(&[seed; 32], 42, 42, true));
        let entropy = Arc::new(Entropy::new([seed; 32]));
        let monitor = Arc::new(ChainMonitor::new(
            Some(&FILTER),
            &BROADCAST,
            &LOG,
            &FEES,
            &PERSIST,
            Arc::clone(&keys),
            keys.get_peer_storage_key(),
        ));
        let mut config = UserConfig::default();
        config.channel_handshake_config.minimum_depth = 1;
        config.channel_config.max_dust_htlc_exposure =
            MaxDustHTLCExposure::FeeRateMultiplier(50_000_000 / 253);
        config.accept_forwards_to_priv_channels = true;
        let cm = ChannelManager::new(
            &FEES,
            monitor,
            &BROADCAST,
            &ROUTER,
            &MESSAGES,
            &LOG,
            Arc::clone(&entropy),
            Arc::clone(&keys),
            Arc::clone(&keys),
            config,
            ChainParameters {
                network,
                best_block: BestBlock::from_network(network),
            },
            42,
        );
        let id = cm.get_our_node_id();
        Self {
            cm,
            keys,
            entropy,
            id,
            outbox: RefCell::new(Vec::new()),
        }
    }

    /// The node's private key (wireseal's peel needs it).
    pub fn secret(&self) -> [u8; 32] {
        self.keys.get_node_secret_key().secret_bytes()
    }

    /// Starts the node's randomness again from `seed`.
    pub fn reseed(&self, seed: [u8; 32]) {
        self.entropy.reseed(seed);
    }

    /// Its pending events, handled.
    pub(crate) fn events(&self) -> Vec<Event> {
        let out = RefCell::new(Vec::new());
        let handler = |e: Event| -> Result<(), ReplayEvent> {
            out.borrow_mut().push(e);
            Ok(())
        };
        self.cm.process_pending_events(&handler);
        out.into_inner()
    }

    /// The pending messages for `to` (the others stay pending).
    pub(crate) fn msgs_to(&self, to: &Node) -> Vec<MessageSendEvent> {
        let mut outbox = self.outbox.borrow_mut();
        outbox.extend(self.cm.get_and_clear_pending_msg_events());
        let (mine, rest) = outbox
            .drain(..)
            .partition(|m| msg_node(m).is_none_or(|n| n == to.id));
        *outbox = rest;
        mine
    }

    /// Its HTLC update for `to`.
    pub(crate) fn update_to(&self, to: &Node) -> CommitmentUpdate {
        for m in self.msgs_to(to) {
            if let MessageSendEvent::UpdateHTLCs { updates, .. } = m {
                return updates;
            }
        }
        panic!("LDK node has no HTLC update for its peer");
    }
}

fn msg_node(m: &MessageSendEvent) -> Option<PublicKey> {
    Some(match m {
        MessageSendEvent::SendOpenChannel { node_id, .. }
        | MessageSendEvent::SendAcceptChannel { node_id, .. }
        | MessageSendEvent::SendFundingCreated { node_id, .. }
        | MessageSendEvent::SendFundingSigned { node_id, .. }
        | MessageSendEvent::SendChannelReady { node_id, .. }
        | MessageSendEvent::SendRevokeAndACK { node_id, .. }
        | MessageSendEvent::UpdateHTLCs { node_id, .. } => *node_id,
        _ => return None,
    })
}

/// Opens a channel from `a` to `b`; returns its funding transaction.
pub(crate) fn open(a: &Node, b: &Node) -> Transaction {
    let init = |n: &Node| Init {
        features: n.cm.init_features(),
        networks: None,
        remote_network_address: None,
    };
    a.cm.peer_connected(b.id, &init(b), true).unwrap();
    b.cm.peer_connected(a.id, &init(a), false).unwrap();
    a.cm.create_channel(b.id, 1_000_000, 0, 42, None, None)
        .unwrap();
    for m in a.msgs_to(b) {
        if let MessageSendEvent::SendOpenChannel { msg, .. } = m {
            b.cm.handle_open_channel(a.id, &msg);
        }
    }
    for m in b.msgs_to(a) {
        if let MessageSendEvent::SendAcceptChannel { msg, .. } = m {
            a.cm.handle_accept_channel(b.id, &msg);
        }
    }
    let mut tx = None;
    for e in a.events() {
        if let Event::FundingGenerationReady {
            temporary_channel_id,
            output_script,
            ..
        } = e
        {
            let t = Transaction {
                version: Version::TWO,
                lock_time: LockTime::ZERO,
                input: Vec::new(),
                output: vec![TxOut {
                    value: Amount::from_sat(1_000_000),
                    script_pubkey: output_script,
                }],
            };
            a.cm.funding_transaction_generated(temporary_channel_id, b.id, t.clone())
                .unwrap();
            tx = Some(t);
        }
    }
    for m in a.msgs_to(b) {
        if let MessageSendEvent::SendFundingCreated { msg, .. } = m {
            b.cm.handle_funding_created(a.id, &msg);
        }
    }
    for m in b.msgs_to(a) {
        if let MessageSendEvent::SendFundingSigned { msg, .. } = m {
            a.cm.handle_funding_signed(b.id, &msg);
        }
    }
    a.events();
    b.events();
    tx.expect("LDK asks for the funding transaction")
}

/// Exchanges `channel_ready` between `a` and `b`.
pub(crate) fn ready(a: &Node, b: &Node) {
    for (x, y) in [(a, b), (b, a)] {
        for m in x.msgs_to(y) {
            if let MessageSendEvent::SendChannelReady { msg, .. } = m {
                y.cm.handle_channel_ready(x.id, &msg);
            }
        }
    }
    for (x, y) in [(a, b), (b, a)] {
        for m in x.msgs_to(y) {
            if let MessageSendEvent::SendChannelReady { msg, .. } = m {
                y.cm.handle_channel_ready(x.id, &msg);
            }
        }
    }
    a.events();
    b.events();
}
