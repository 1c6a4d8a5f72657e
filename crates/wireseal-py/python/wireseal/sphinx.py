"""Lightning BOLT #4 Sphinx onions: build, peel, batch peel, failure packets,
onion messages and blinded paths.

Keys are bytes: 32-byte secp256k1 private keys, 33-byte compressed public keys.
"""

from ._wireseal import sphinx as _native
__all__ = [n for n in dir(_native) if not n.startswith("_")]
globals().update({n: getattr(_native, n) for n in __all__})
