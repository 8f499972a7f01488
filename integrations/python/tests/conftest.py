import pytest

from pytest_mockllm import find_binary

pytest_plugins = ["pytester"]


@pytest.fixture(scope="session")
def mockllm_binary():
    return find_binary()
