"""``python -m launcher``: the server at once and the missing default stores built beside it (``make serve``).

A package of its own because it runs both sides of the one-way architecture: it starts ``python -m server``
and ``python -m builder`` as processes and imports neither (pyproject.toml, [tool.importlinter]); it reads
only the build's progress file (``games.buildprogress``) to refresh the server the moment a store is published.
"""
