"""Tests mirror the packages (tests/games, tests/builder, tests/server, tests/clients, tests/bench,
tests/research).

These __init__.py files give every test module a unique name (tests.server.test_x), so two directories
may hold test files of the same name; shared fixtures are in tests/conftest.py (import from tests.conftest).
"""
