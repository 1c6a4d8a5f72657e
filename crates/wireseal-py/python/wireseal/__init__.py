"""wireseal: cheap encrypted packets for mesh networks and peer-to-peer protocols.

Six wire formats, byte for byte, backed by the Rust library of the same name:

- :mod:`wireseal.meshtastic`: PKC direct messages (X25519, SHA-256, AES-256-CCM)
  through a shared-secret cache, channel packets (AES-CTR), channel hash, header.
- :mod:`wireseal.meshcore`: MeshCore channels, identities, adverts and direct
  messages, and a strict decoder whose record is the command line's JSON.
- :mod:`wireseal.peat`: peat-btle mesh keys, mesh-wide and per-peer frames, policy.
- :mod:`wireseal.bip324`: the BIP324 v2 transport, sans-IO.
- :mod:`wireseal.sphinx`: Lightning BOLT #4 onions, failures, blinded paths.
- :mod:`wireseal.aescrypt`: AES Crypt files v0-v3, a drop-in for pyAesCrypt 6.1.1.

Every error is a :class:`wireseal.Error` (itself a :class:`ValueError`), with one
subclass per situation: :class:`AuthError` for a failed tag, HMAC or password,
:class:`TruncatedError`, :class:`TooLongError`, and so on. Calls that do real
work release the GIL, so Python threads run them in parallel.
"""

import os as _os

from ._wireseal import (
    __version__,
    _after_fork,
    AuthError,
    Batch,
    BufferTooSmallError,
    Error,
    InvalidKeyError,
    LimitError,
    MalformedError,
    InvalidInputError,
    PolicyError,
    ReplayError,
    StateError,
    TooLongError,
    TruncatedError,
    UnsupportedVersionError,
)
from . import aescrypt, bip324, meshcore, meshtastic, peat, sphinx

# A child made by fork (multiprocessing's default start method on Linux)
# copies the nonce buffers of its parent's sealers; this makes every one of
# them refill from the OS before its next nonce.
if hasattr(_os, "register_at_fork"):
    _os.register_at_fork(after_in_child=_after_fork)

__all__ = [
    "__version__",
    "AuthError",
    "Batch",
    "BufferTooSmallError",
    "Error",
    "InvalidKeyError",
    "LimitError",
    "MalformedError",
    "InvalidInputError",
    "PolicyError",
    "ReplayError",
    "StateError",
    "TooLongError",
    "TruncatedError",
    "UnsupportedVersionError",
    "aescrypt",
    "bip324",
    "meshcore",
    "meshtastic",
    "peat",
    "sphinx",
]
