//! One JSON object per decoded packet (the library's record: Meshtastic's
//! [`PacketRecord`], MeshCore's [`Decoded`](wireseal::meshcore::Decoded)) to
//! a writer, standard output by default.

use super::{Context, Handled, Item, Sink, SinkError};
use std::io::Write;
use wireseal::meshtastic::record::PacketRecord;

/// JSON lines to a writer.
pub struct JsonLines {
    out: std::io::BufWriter<Box<dyn Write + Send>>,
    line: Vec<u8>,
}

impl JsonLines {
    /// To standard output.
    pub fn stdout() -> Self {
        Self::to(Box::new(std::io::stdout()))
    }

    /// To `out`.
    pub fn to(out: Box<dyn Write + Send>) -> Self {
        Self {
            out: std::io::BufWriter::with_capacity(64 << 10, out),
            line: Vec::with_capacity(512),
        }
    }

    fn closed(e: std::io::Error) -> SinkError {
        match e.kind() {
            std::io::ErrorKind::BrokenPipe => SinkError::Closed("json-lines"),
            _ => SinkError::failed("json-lines", e),
        }
    }
}

impl Sink for JsonLines {
    fn name(&self) -> &'static str {
        "json-lines"
    }

    fn handle(&mut self, item: &Item<'_>, cx: &mut dyn Context) -> Result<Handled, SinkError> {
        self.line.clear();
        match (&item.packet, &item.meshcore) {
            (Some(p), _) => wireseal_io::record::write_json(
                &PacketRecord::new(p.decoder, p.decoded),
                &mut self.line,
            ),
            (None, Some(m)) => super::meshcore_json(m.decoded, &mut self.line),
            (None, None) => return Ok(Handled::Done),
        }
        self.line.push(b'\n');
        self.out.write_all(&self.line).map_err(Self::closed)?;
        cx.counters().json_lines.bump();
        Ok(Handled::Done)
    }

    fn flush(&mut self) -> Result<(), SinkError> {
        self.out.flush().map_err(Self::closed)
    }

    fn close(&mut self) {
        let _ = self.out.flush();
    }
}
