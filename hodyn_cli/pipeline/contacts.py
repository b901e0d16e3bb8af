"""What a run on contacts has to tell at its end, gathered chunk by chunk (chunks may be
computed on several threads: each adds one record, a list append): where the active contacts
could not carry the whole base wrench (one or two point contacts take no moment about them),
and where the contact wrenches leave their friction cones or soles (``hodyn check`` reports
the margins)."""

from __future__ import annotations

import numpy as np

from hodyn_cli import api
from hodyn_cli.core.model import Diagnostic
from hodyn_cli.modeling.contacts import Contact

__all__ = ["ContactTally", "RESIDUAL"]

#: a couple left on the base counts when it exceeds this fraction of the contact wrenches
RESIDUAL = 1e-8


class ContactTally:
    """Per chunk (:meth:`add`): the couple the contacts leave on the base, and the samples
    where a contact wrench leaves its friction cone or sole; :meth:`notes` at the end."""

    def __init__(self, contacts: tuple[Contact, ...], source: str = ""):
        self.contacts, self.source = contacts, source
        self.records: list[tuple] = []

    def add(self, W: np.ndarray, wrenches: dict[str, np.ndarray], t) -> None:
        """``W`` (N, 6): the base wrench left over; ``wrenches``: contact name -> (N, size)."""
        scale = max((float(np.abs(F).max(initial=0.0)) for F in wrenches.values()), default=0.0)
        left = np.abs(W).max(axis=1)
        over = left > RESIDUAL * max(scale, 1.0)
        worst = int(np.argmax(left))
        outside = {c.name: int(api.beyond_margins(c, wrenches[c.name]).sum())
                   for c in self.contacts}
        when = None if t is None else float(t[worst])
        self.records.append((int(over.sum()), float(left[worst]), when, outside))

    def notes(self) -> list[Diagnostic]:
        where = f"{self.source}: " if self.source else ""
        out = []
        count = sum(r[0] for r in self.records)
        if count:
            worst = max((r for r in self.records if r[0]), key=lambda r: r[1])
            at = f" at t = {worst[2]:.6g} s" if worst[2] is not None else ""
            out.append(Diagnostic("warning", (
                f"{where}the active contacts cannot carry the whole base wrench at {count} "
                f"sample(s) (one or two point contacts take no moment about them): the couple "
                f"left over, up to {worst[1]:.3g} N m{at}, stays on the base (--base-wrench "
                "writes it); the motion does not fit its contacts there")))
        outside: dict[str, int] = {}
        for r in self.records:
            for name, n in r[3].items():
                outside[name] = outside.get(name, 0) + n
        bad = {k: v for k, v in outside.items() if v}
        if bad:
            out.append(Diagnostic("warning", (
                f"{where}contact wrenches outside their friction cones or soles ("
                + ", ".join(f"{k}: {v} samples" for k, v in bad.items())
                + "): hodyn check --contacts reports the margins")))
        return out
