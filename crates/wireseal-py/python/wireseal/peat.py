"""peat-btle BLE-mesh encryption: genesis, mesh-wide frames, per-peer E2EE
sessions and the encryption policy. ``now`` is milliseconds on the caller's clock.
"""

from ._wireseal import peat as _native
__all__ = [n for n in dir(_native) if not n.startswith("_")]
globals().update({n: getattr(_native, n) for n in __all__})
