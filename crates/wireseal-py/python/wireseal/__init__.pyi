from . import aescrypt as aescrypt
from . import bip324 as bip324
from . import meshcore as meshcore
from . import meshtastic as meshtastic
from . import peat as peat
from . import sphinx as sphinx

__version__: str

class Error(ValueError):
    """Base class of every wireseal error (a subclass of ValueError)."""

class AuthError(Error):
    """A tag, HMAC or password check failed (opaque)."""

class TruncatedError(Error):
    """The input is shorter than the smallest valid encoding, or ended early."""

class TooLongError(Error):
    """The input is longer than the format allows."""

class BufferTooSmallError(Error):
    """A caller-supplied output buffer is too small."""

class ReplayError(Error):
    """The packet or onion was accepted before."""

class InvalidKeyError(Error):
    """A key is malformed, of the wrong length, weak or otherwise unusable."""

class MalformedError(Error):
    """The input breaks a structural rule of its format."""

class UnsupportedVersionError(MalformedError):
    """A version byte this library does not know or cannot write."""

class LimitError(Error):
    """A configured or protocol limit was reached."""

class PolicyError(Error):
    """The input is well formed, but a policy refuses it (strict mode, below the encryption policy, not addressed to us)."""

class InvalidInputError(Error):
    """An argument is out of range or unusable (a name, a number, a size)."""

class StateError(Error):
    """The object is in the wrong state for this call."""

class Batch:
    """Worker threads for batch calls; results equal one at a time, in order."""
    def __init__(self, threads: int | None = None) -> None: ...
    @property
    def threads(self) -> int: ...

__all__: list[str]
