"""The ``parameters`` a store's manifest records for a build's parameters: one definition for every
builder and for the check of present stores against a profile (``builder.stale``)."""
from __future__ import annotations

from dataclasses import asdict


def recorded_parameters(params) -> dict:
    """Dudo's ``manifest_parameters``, a parameters class's own ``as_dict`` (Jotto's), else every field."""
    from games.dudo.build.params import DudoParams, manifest_parameters
    if isinstance(params, DudoParams):
        return manifest_parameters(params)
    if hasattr(params, "as_dict"):
        return params.as_dict()
    return asdict(params)
