"""pytest-mockllm: run llmconform's mockllm from pytest.

The plugin (pytest_mockllm.plugin, registered under the pytest11 entry point)
gives a ``mockllm`` fixture; :class:`Mockllm` and :func:`find_binary` can be
used without pytest.
"""

from .server import (
    BinaryNotFound,
    Mockllm,
    MockllmError,
    PortInUse,
    TraceError,
    find_binary,
)

__all__ = [
    "BinaryNotFound",
    "Mockllm",
    "MockllmError",
    "PortInUse",
    "TraceError",
    "find_binary",
]
