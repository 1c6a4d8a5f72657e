//! The shapes of the rows the API reads: each struct's fields are named as
//! the columns of its queries, and read by those names.

use super::columns::row_shape;

row_shape! {
    /// A node, with its signing status as a rank (`signing`, see
    /// `query::SIGNING`).
    Node {
        node: i64,
        long_name: Option<String>,
        short_name: Option<String>,
        public_key: Option<Vec<u8>>,
        identity: Option<String>,
        key_conflicts: i64,
        renumbered_from: Option<i64>,
        renumbered_to: Option<i64>,
        first_seen_ms: i64,
        last_seen_ms: i64,
        signing: Option<i64>,
    }
}

row_shape! {
    /// A key a node announced, and when it was first seen.
    Key {
        public_key: Vec<u8>,
        first_seen_ms: i64,
    }
}

row_shape! {
    /// Packets counted by signature status.
    SignatureCount {
        signature: Option<String>,
        packets: i64,
    }
}

row_shape! {
    /// One of our nodes.
    OurNode {
        our_node: i64,
    }
}

row_shape! {
    /// A packet's payload and when it was first seen.
    Payload {
        payload: Option<Vec<u8>>,
        first_seen_ms: i64,
    }
}

row_shape! {
    /// A packet as `/api/packets` lists it.
    Packet {
        from_node: i64,
        packet_id: i64,
        to_node: i64,
        channel_id: String,
        channel_name: Option<String>,
        decryption: String,
        portnum: Option<i64>,
        text: Option<String>,
        signature: Option<String>,
        identity: Option<String>,
        error: Option<String>,
        our_node: Option<i64>,
        first_seen_ms: i64,
        payload: Option<Vec<u8>>,
    }
}

row_shape! {
    /// A reception of a packet, with how many gateways heard the packet in
    /// all (`heard`).
    Reception {
        from_node: i64,
        packet_id: i64,
        heard: i64,
        gateway_id: String,
        rx_time_ms: i64,
        rssi: Option<i64>,
        snr: Option<f64>,
        hop_start: Option<i64>,
        hop_limit: Option<i64>,
        relay_node: i64,
    }
}

row_shape! {
    /// Packets of one channel in one minute (minutes since the epoch).
    MinuteCount {
        minute: i64,
        channel_id: String,
        packets: i64,
    }
}

row_shape! {
    /// Packets of one channel.
    ChannelCount {
        channel_id: String,
        packets: i64,
    }
}

row_shape! {
    /// A count.
    Count {
        n: i64,
    }
}

row_shape! {
    /// A MeshCore node.
    McNode {
        public_key: Vec<u8>,
        name: Option<String>,
        node_type: Option<String>,
        lat_e6: Option<i64>,
        lon_e6: Option<i64>,
        advert_timestamp: Option<i64>,
        signature: Option<String>,
        first_seen_ms: i64,
        last_heard_ms: i64,
    }
}

row_shape! {
    /// A MeshCore packet as `/api/packets` lists it.
    McPacket {
        hash: i64,
        payload_type: String,
        route: String,
        payload_len: i64,
        channel_hash: Option<i64>,
        channel_name: Option<String>,
        src_hash: Option<i64>,
        dst_hash: Option<i64>,
        sender: Option<Vec<u8>>,
        our_key: Option<Vec<u8>>,
        decrypted: i64,
        signature: Option<String>,
        text: Option<String>,
        record: String,
        first_seen_ms: i64,
    }
}

row_shape! {
    /// An observer's reception of a MeshCore packet, with how many
    /// receptions the packet has in all (`heard`).
    McReception {
        hash: i64,
        heard: i64,
        observer_id: String,
        path: String,
        direction: String,
        rx_time_ms: i64,
        snr: Option<f64>,
        rssi: Option<i64>,
    }
}
