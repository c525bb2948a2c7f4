"""What every test run starts from, whichever directory its tests live in.

An operator's ``TRUNCATION_CORE_*`` variables configure every Truncator, and an unknown one is a
configuration error. A developer's shell or a CI runner may hold some; the suite must not depend on
them, so they are removed before any test is collected. A test that wants one sets it itself.

Which tests are slow (left out of ``make test-fast``) is decided here too, for every test
directory, by the plugin in tests/fastloop.py.
"""

import os

import pytest

#: The store contract's tests run from several test directories (tests/store_contract.py):
#: their asserts explain themselves as a test module's do.
pytest.register_assert_rewrite("store_contract")

#: Marks the tests that ``make test-fast`` leaves out, by measurement (tests/fastloop.py).
pytest_plugins = ["fastloop"]


def pytest_configure() -> None:
    for name in [name for name in os.environ if name.startswith("TRUNCATION_CORE_")]:
        del os.environ[name]
