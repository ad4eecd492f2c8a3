"""Evaluation tools: the arena (matches between strategies, decided by empirical Bernstein races), the
parametric-strategy optimisers, and the Hangman evaluation. Served strategies are read from their stores
through ``games.<game>.store``, never through the server."""
