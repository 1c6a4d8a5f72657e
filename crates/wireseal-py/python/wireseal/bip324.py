"""BIP324 v2 encrypted transport for Bitcoin P2P, sans-IO: feed received
bytes, get decoded contents; get the bytes to send."""

from ._wireseal import bip324 as _native

__all__ = [n for n in dir(_native) if not n.startswith("_")]
globals().update({n: getattr(_native, n) for n in __all__})
