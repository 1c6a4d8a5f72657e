//! The plots of the report: what each shows, its axes, and the figures the
//! systems we implement published (the seeds), drawn as reference lines or
//! points beside the curves measured in the run.

/// How the x axis of a plot is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// Linear.
    Linear,
    /// Logarithmic (sizes, counts that grow by powers of two).
    Log,
}

/// A published figure drawn on a plot.
#[derive(Debug, Clone, Copy)]
pub enum Reference {
    /// A horizontal line at `y`, across the plot.
    Line {
        /// What the figure is, with its source.
        label: &'static str,
        /// The value, in the plot's y unit.
        y: f64,
    },
    /// A marked point.
    Point {
        /// What the figure is, with its source.
        label: &'static str,
        /// Where on the x axis.
        x: f64,
        /// The value, in the plot's y unit.
        y: f64,
    },
}

/// One plot: the rows that carry a [`crate::Point`] with this `id` are its
/// data; each row gives a point of its `series` (ours) and, when measured, a
/// point of its baseline's series at the same x.
#[derive(Debug, Clone, Copy)]
pub struct PlotSpec {
    /// File name (`ID.svg`) and the id rows name.
    pub id: &'static str,
    /// Bench section the data comes from.
    pub section: &'static str,
    /// Title above the plot.
    pub title: &'static str,
    /// x axis label, with its unit.
    pub x_label: &'static str,
    /// x axis scale.
    pub x_axis: Axis,
    /// y axis label, with its unit (the rows' unit).
    pub y_label: &'static str,
    /// y axis scale.
    pub y_axis: Axis,
    /// Published figures drawn beside the measured curves.
    pub references: &'static [Reference],
    /// One sentence under the plot saying what it shows.
    pub caption: &'static str,
}

/// What every "all cores vs 1 core" plot shows.
const BATCH_CAPTION: &str =
    "The same batch calls on one thread and on every core: small batches stay on the calling \
     thread (waking the others would cost more than it saves), large ones spread over the cores.";

/// An "all cores vs 1 core" plot: items per second against the batch size.
const fn batch_plot(
    id: &'static str,
    section: &'static str,
    title: &'static str,
    y_label: &'static str,
) -> PlotSpec {
    PlotSpec {
        id,
        section,
        title,
        x_label: "items per batch call",
        x_axis: Axis::Log,
        y_label,
        y_axis: Axis::Log,
        references: &[],
        caption: BATCH_CAPTION,
    }
}

/// Every plot, in report order.
pub const PLOTS: &[PlotSpec] = &[
    PlotSpec {
        id: "meshtastic-senders",
        section: "meshtastic",
        title: "Meshtastic PKC open: cost per packet vs distinct senders",
        x_label: "distinct senders in the traffic",
        x_axis: Axis::Log,
        y_label: "µs per packet",
        y_axis: Axis::Log,
        references: &[],
        caption:
            "Each cache capacity holds its cost near one AES-CCM open while the senders fit, \
                  then rises toward the uncached path (an X25519 per packet) as its hit rate falls.",
    },
    PlotSpec {
        id: "meshtastic-payload",
        section: "meshtastic",
        title: "Meshtastic PKC open: cached vs uncached by payload size",
        x_label: "payload bytes",
        x_axis: Axis::Linear,
        y_label: "µs per packet",
        y_axis: Axis::Log,
        references: &[],
        caption:
            "A cached open costs the AES-CCM pass over the payload; the uncached open adds the \
                  X25519 and SHA-256 that the firmware repeats for every packet.",
    },
    PlotSpec {
        id: "meshtastic-ram",
        section: "meshtastic",
        title: "Meshtastic shared-secret cache: RAM by capacity",
        x_label: "cache capacity (peers)",
        x_axis: Axis::Log,
        y_label: "bytes",
        y_axis: Axis::Log,
        references: &[Reference::Point {
            label: "firmware cache PR: ~2.4 kB",
            x: 16.0,
            y: 2400.0,
        }],
        caption:
            "What each capacity costs in memory, beside the firmware pull request's own figure.",
    },
    batch_plot(
        "meshtastic-batch",
        "meshtastic",
        "Meshtastic PKC batch open: all cores vs 1 core",
        "packets/s",
    ),
    batch_plot(
        "gateway-batch",
        "meshtastic",
        "Gateway decode_batch: all cores vs 1 core",
        "packets/s",
    ),
    PlotSpec {
        id: "peat-docs",
        section: "peat",
        title: "peat-btle: documents per second by document size",
        x_label: "document bytes",
        x_axis: Axis::Log,
        y_label: "documents/s",
        y_axis: Axis::Log,
        references: &[
            Reference::Point {
                label: "peat-btle 0.2.4 debug, encrypt: 51 B 15,625/s",
                x: 51.0,
                y: 15_625.0,
            },
            Reference::Point {
                label: "peat-btle debug, encrypt: 633 B 7,148/s",
                x: 633.0,
                y: 7_148.0,
            },
            Reference::Point {
                label: "peat-btle debug, unencrypted: 633 B 247,743/s",
                x: 633.0,
                y: 247_743.0,
            },
            Reference::Point {
                label: "peat-btle 0.2.4 release, encrypt: 633 B ~205,000/s",
                x: 633.0,
                y: 205_000.0,
            },
        ],
        caption:
            "Mesh-wide ChaCha20-Poly1305 seal and open, one core and all cores, against sending \
                  the same documents unencrypted.",
    },
    batch_plot(
        "peat-batch",
        "peat",
        "peat-btle batch seal + open: all cores vs 1 core",
        "documents/s",
    ),
    PlotSpec {
        id: "embedded-ops",
        section: "embedded",
        title: "Cortex-M4 (QEMU): instructions per operation",
        x_label: "operation: 1 X25519, 2 AES-256-CCM open 200 B, 3 PKC open uncached, \
                  4 PKC open with the key known, 5 XEdDSA verify (key kept)",
        x_axis: Axis::Linear,
        y_label: "instructions",
        y_axis: Axis::Log,
        references: &[
            Reference::Point {
                label: "firmware X25519 (dh2): 2,965,844",
                x: 1.0,
                y: 2_965_844.0,
            },
            Reference::Point {
                label: "firmware AES-256-CCM 200 B: 173,935",
                x: 2.0,
                y: 173_935.0,
            },
            Reference::Point {
                label: "firmware decryptCurve25519 200 B: 3,144,862",
                x: 3.0,
                y: 3_144_862.0,
            },
            Reference::Point {
                label: "firmware, key known: 173,987",
                x: 4.0,
                y: 173_987.0,
            },
        ],
        caption: "The library's portable backend beside the crates it replaced (same run) and \
                  the Meshtastic firmware's own path (rweather Crypto, -Os -flto, GCC 12; \
                  measured outside this project on the same emulated core and meter).",
    },
    PlotSpec {
        id: "bip324-latency",
        section: "bip324",
        title: "BIP324: time per packet vs batch size",
        x_label: "packets per batch",
        x_axis: Axis::Log,
        y_label: "µs per packet",
        y_axis: Axis::Log,
        references: &[
            Reference::Point {
                label: "seed, CPU: 1 packet 17.6 µs",
                x: 1.0,
                y: 17.6,
            },
            Reference::Point {
                label: "seed, CPU: 64 packets 0.5 µs/packet",
                x: 64.0,
                y: 0.5,
            },
            Reference::Line {
                label: "seed, GPU: 63 ns/packet at 1024+",
                y: 0.063,
            },
        ],
        caption:
            "Seal and open of the mixed traffic profile: batching amortises the per-call cost, \
                  and all cores divide the rest.",
    },
    PlotSpec {
        id: "bip324-throughput",
        section: "bip324",
        title: "BIP324: packets per second vs batch size",
        x_label: "packets per batch",
        x_axis: Axis::Log,
        y_label: "packets/s",
        y_axis: Axis::Log,
        references: &[
            Reference::Line {
                label: "seed, CPU: 715,000 packets/s",
                y: 715_000.0,
            },
            Reference::Line {
                label: "seed, GPU: 21 M packets/s",
                y: 21_000_000.0,
            },
        ],
        caption: "The same runs as throughput, against the bip324 crate one packet at a time.",
    },
    batch_plot(
        "bip324-batch",
        "bip324",
        "BIP324 batch seal + open: all cores vs 1 core",
        "packets/s",
    ),
    PlotSpec {
        id: "gpu-seal",
        section: "gpu",
        title: "BIP324 on the GPU: packets sealed per second vs batch size",
        x_label: "packets per batch",
        x_axis: Axis::Log,
        y_label: "packets/s",
        y_axis: Axis::Log,
        references: GPU_REFERENCES,
        caption: "Byte-compatible BIP324 seal (FSChaCha20 lengths, FSChaCha20Poly1305, rekeys, \
                  decoys) end to end from host memory to host memory, on several streams and one, \
                  and the kernels alone, against the library on all cores in the same run.",
    },
    PlotSpec {
        id: "gpu-open",
        section: "gpu",
        title: "BIP324 on the GPU: packets opened per second vs batch size",
        x_label: "packets per batch",
        x_axis: Axis::Log,
        y_label: "packets/s",
        y_axis: Axis::Log,
        references: GPU_REFERENCES,
        caption: "The same for opening: every tag checked before anything is released, packets \
                  found by the length cipher on the host first.",
    },
    PlotSpec {
        id: "gpu-latency",
        section: "gpu",
        title: "BIP324 on the GPU: time per packet vs batch size",
        x_label: "packets per batch",
        x_axis: Axis::Log,
        y_label: "µs per packet",
        y_axis: Axis::Log,
        references: &[
            Reference::Point {
                label: "reference: 1 packet 17.6 µs (not BIP324)",
                x: 1.0,
                y: 17.6,
            },
            Reference::Point {
                label: "reference: 64 packets 0.5 µs/packet (not BIP324)",
                x: 64.0,
                y: 0.5,
            },
            Reference::Line {
                label: "reference: 63 ns/packet at 1024+ (kernel-only, not BIP324)",
                y: 0.063,
            },
        ],
        caption: "End to end, copies included: a GPU round trip costs tens of microseconds, which \
                  large batches spread; below the measured threshold the engine uses the CPU.",
    },
    PlotSpec {
        id: "gpu-goodput",
        section: "gpu",
        title: "BIP324 on the GPU: goodput vs batch size",
        x_label: "packets per batch",
        x_axis: Axis::Log,
        y_label: "MB/s of contents",
        y_axis: Axis::Log,
        references: &[Reference::Line {
            label: "reference: 3.2-3.6 GB/s end to end (not BIP324)",
            y: 3400.0,
        }],
        caption: "Contents bytes of the mixed profile sealed or opened per second, end to end.",
    },
    PlotSpec {
        id: "sphinx-build",
        section: "sphinx",
        title: "Sphinx: onion build time vs hops",
        x_label: "hops",
        x_axis: Axis::Linear,
        y_label: "µs",
        y_axis: Axis::Linear,
        references: &[],
        caption:
            "Linear shared-secret derivation stays on the elliptic-curve floor; the quadratic \
                  derivation and the peers grow faster with the route's length.",
    },
    PlotSpec {
        id: "sphinx-peel",
        section: "sphinx",
        title: "Sphinx: peeling a whole route vs hops",
        x_label: "hops",
        x_axis: Axis::Linear,
        y_label: "µs",
        y_axis: Axis::Linear,
        references: &[],
        caption: "Every hop peels once: one ECDH and one blinding per hop, against the peers.",
    },
    batch_plot(
        "sphinx-batch",
        "sphinx",
        "Sphinx peel_batch: all cores vs 1 core",
        "onions/s",
    ),
    PlotSpec {
        id: "js-size",
        section: "js",
        title: "npm package: what an import loads, gzip",
        x_label: "formats in the package",
        x_axis: Axis::Linear,
        y_label: "bytes (gzip -9)",
        y_axis: Axis::Linear,
        references: &[Reference::Line {
            label: "budget: 400 KiB for all five formats",
            y: 409_600.0,
        }],
        caption: "The package's JavaScript and WebAssembly against @noble/curves, @noble/ciphers \
                  and @noble/hashes, which hold the primitives only.",
    },
    PlotSpec {
        id: "aescrypt-size",
        section: "aescrypt",
        title: "AES Crypt: encryption throughput vs file size",
        x_label: "file bytes",
        x_axis: Axis::Log,
        y_label: "MB/s",
        y_axis: Axis::Log,
        references: &[],
        caption: "The library, the command line and the Python package against pyAesCrypt, with a \
                  plain copy as the bound no encryption can beat.",
    },
    PlotSpec {
        id: "aescrypt-backup",
        section: "aescrypt",
        title: "AES Crypt: backup of a directory of small volumes",
        x_label: "backup size (MiB)",
        x_axis: Axis::Linear,
        y_label: "seconds (wall time)",
        y_axis: Axis::Linear,
        references: &[],
        caption:
            "The backup scenario: encrypting every file of a directory with the command line, \
                  against pyAesCrypt, the copy without encryption at the same durability, and the \
                  floor (the copy plus AES-CBC and HMAC divided over the cores).",
    },
];

/// The reference system's GPU figures: a ChaCha20-Poly1305 kernel that is
/// not BIP324 (no length cipher, no rekeying, no header byte, keys without
/// the network magic), timed without transfers.
const GPU_REFERENCES: &[Reference] = &[
    Reference::Line {
        label: "reference: 21.37M pkt/s tuned, RTX 5060 Ti (kernel-only, not BIP324)",
        y: 21_370_000.0,
    },
    Reference::Line {
        label: "reference: 12.8M pkt/s at 128K batches (kernel-only, not BIP324)",
        y: 12_800_000.0,
    },
    Reference::Line {
        label: "reference: 715K pkt/s on one CPU core (not BIP324)",
        y: 715_000.0,
    },
];
