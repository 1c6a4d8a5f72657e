"""Meshtastic PKC direct messages, channel packets, channel hash and header.

Byte-compatible with the firmware's ``CryptoEngine``. ``now`` arguments are
milliseconds on the caller's clock (they drive the cache's TTL).
"""

from ._wireseal import meshtastic as _native
__all__ = [n for n in dir(_native) if not n.startswith("_")]
globals().update({n: getattr(_native, n) for n in __all__})
