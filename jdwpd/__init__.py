"""jdwpd: an out-of-process Java debugger server."""

__version__ = "0.1.0"
