"""The hosted API as an engine: the same jobs, sent to the service."""

from app.engines.remote.engine import RemoteConfig, RemoteEngine, request_for

__all__ = ["RemoteConfig", "RemoteEngine", "request_for"]
