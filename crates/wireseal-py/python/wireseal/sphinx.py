"""Lightning BOLT #4 Sphinx onions: build, peel, batch peel, failure packets
and fulfills (hold times with attribution data, the final node's
fulfillment_payload), the reply to an onion that does not peel, onion
messages and blinded paths (hops inside one add no attribution data).

Keys are bytes: 32-byte secp256k1 private keys, 33-byte compressed public keys.
Hops are counted from 1; areas are "payment" (1300 bytes) or "message-large"
(32768), as on the command line.
"""

from ._wireseal import sphinx as _native
__all__ = [n for n in dir(_native) if not n.startswith("_")]
globals().update({n: getattr(_native, n) for n in __all__})
