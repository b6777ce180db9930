"""Live streams: one follower per live game per process fans its events out to every stream."""

from . import sse, wsframes
from .hub import Full, Hub, Subscription, TooManyForClient, shutdown_all
from .settings import LiveSettings

__all__ = [
    "Full",
    "Hub",
    "LiveSettings",
    "Subscription",
    "TooManyForClient",
    "shutdown_all",
    "sse",
    "wsframes",
]
