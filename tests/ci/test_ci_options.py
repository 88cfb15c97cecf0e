"""jdwpd ci's [limits]: the API's Limits, its defaults unless the TOML says otherwise (no JVM)."""

import argparse

import pytest

from jdwpd import api
from jdwpd.ci.args import add_arguments
from jdwpd.ci.options import settings_from
from jdwpd.usage import UsageError


def _settings(tmp_path, toml: str):
    config = tmp_path / "jdwpd.toml"
    config.write_text(toml)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return settings_from(parser.parse_args(["--config", str(config), "--out", str(tmp_path / "out"), "--", "true"]))


def test_limits_default_to_the_apis(tmp_path):
    assert _settings(tmp_path, "").limits == api.Limits()


def test_limits_from_the_toml(tmp_path):
    assert _settings(tmp_path, "[limits]\ndepth = 1\nstring = 10\n").limits == api.Limits(depth=1, string=10)


@pytest.mark.parametrize("key", ["fields", "colour"])
def test_limits_the_toml_does_not_offer(tmp_path, key):
    with pytest.raises(UsageError, match=f"unknown limits {key}"):
        _settings(tmp_path, f"[limits]\n{key} = 1\n")
