"""Fixtures shared by tests/ and e2e/ live in tests/fixtures.py."""

# tests.clean_tree fails a run that leaves `git status` changed (see its docstring).
pytest_plugins = ["tests.fixtures", "tests.image_build", "tests.clean_tree", "tests.parallel"]
