"""The fast path's settings: one record, read from one environment variable, in one place.

``JDWPD_FAST`` is the A/B switch (docs/options.md): unset or ``on`` is the default, ``off`` turns
off every mechanism that has a slower twin (the reply memo with its prefill and fast lane, the
spin before sleeping, the warm-up), and ``name=value`` items, comma-separated, change one field
over what comes before them: ``JDWPD_FAST=off,spin_us=150`` measures the spin alone,
``JDWPD_FAST=lane_after_hits=0`` is the tests' stress mode for the lane's hand-overs.

The rest of the layer (inline starts, non-blocking I/O, the writer, locals read ahead) has no
slower twin left to compare with: it is not switched.
"""

from __future__ import annotations

import os
from typing import Any

import attrs

ENVIRONMENT_VARIABLE = "JDWPD_FAST"


@attrs.frozen
class FastSettings:
    # The reply memo (memo.py): the session's reader and its fast lane answer repeated questions
    # from remembered reply bytes, and prefill.py offers a class walk's next answers to it.
    memo: bool = True
    # Memo answers in a row after which the reader hands the socket to the fast lane (lane.py);
    # 0 hands it over at every chance.  Without the memo there is no lane.
    lane_after_hits: int = attrs.field(default=2, validator=attrs.validators.ge(0))
    # How long the event loop and a fast lane poll without sleeping while a conversation is under
    # way (spin.py); 0 never spins.
    spin_us: int = attrs.field(default=150, validator=attrs.validators.ge(0))
    # Codecs made before a debugger's first command (warmup.py).
    warmup: bool = True
    # Offer Jdwpd.PushStops (docs/extensions.md): a held stop's stack and top locals go with its
    # event to a session that asks (the Python API does), instead of two round trips.
    push_stops: bool = True

    @classmethod
    def parse(cls, text: str) -> FastSettings:
        """``on``, ``off``, and ``name=value`` items over them, comma-separated (ValueError if not)."""
        fields = {a.name: a.type for a in attrs.fields(cls)}
        values: dict[str, Any] = {}  # each field's own type, as parsed for it
        for item in (i.strip() for i in text.split(",")):
            if item in ("", "on"):
                continue
            if item == "off":
                values.update(memo=False, spin_us=0, warmup=False, push_stops=False)
                continue
            name, sep, raw = item.partition("=")
            name, raw = name.strip(), raw.strip()
            if not sep or name not in fields:
                raise ValueError(f"{ENVIRONMENT_VARIABLE}: {item!r} is not on, off or one of "
                                 f"{', '.join(n + '=' for n in fields)}")
            if fields[name] == "bool":
                if raw not in ("0", "1", "on", "off", "true", "false"):
                    raise ValueError(f"{ENVIRONMENT_VARIABLE}: {name} takes on or off, not {raw!r}")
                values[name] = raw in ("1", "on", "true")
            else:
                try:
                    values[name] = int(raw)
                except ValueError:
                    raise ValueError(f"{ENVIRONMENT_VARIABLE}: {name} takes a whole number, not {raw!r}") from None
        return cls(**values)

    @classmethod
    def from_environ(cls) -> FastSettings:
        return cls.parse(os.environ.get(ENVIRONMENT_VARIABLE, ""))

    @property
    def lane(self) -> bool:
        return self.memo


# Read once, when the daemon imports the layer: a process measures one setting.
FAST = FastSettings.from_environ()
