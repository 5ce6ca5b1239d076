"""Fixtures shared by tests/ and e2e/ live in tests/fixtures.py."""

pytest_plugins = ["tests.fixtures"]
