"""MeshCore packets (firmware v1.17.1): channels, identities, the strict decoder
and the packets a node sends.

``Decoder.decode`` returns the library's record of a packet as a dict: exactly
the JSON object ``wireseal meshcore decode --json`` prints for it. A packet the
firmware drops raises the exception class of its kind (``TruncatedError``,
``TooLongError``, ``MalformedError``, ``UnsupportedVersionError``) with the
library's message, and the library's finer reason (``path_too_long``,
``payload_too_short``, ...) as its ``reason`` attribute. ``Decoder.decode_batch``
decodes many packets with the GIL released and returns, in input order, each
packet's dict or the exception ``decode`` would raise for it.
"""

from ._wireseal import meshcore as _native
__all__ = [n for n in dir(_native) if not n.startswith("_")]
globals().update({n: getattr(_native, n) for n in __all__})
