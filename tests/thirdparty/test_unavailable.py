"""Without the archive (no network on a first run), the kit says so in one sentence: the tests skip with it."""

from __future__ import annotations

import shutil

import pytest

from jdwpd.testing import thirdparty


@pytest.mark.skipif(shutil.which("apt-get") is None, reason="no apt-get on this machine")
def test_no_archive_is_a_clear_unavailable(tmp_path, monkeypatch):
    monkeypatch.setenv("JDWPD_TEST_CACHE", str(tmp_path))
    # port 9 on the loopback: nothing listens, the connection is refused at once
    monkeypatch.setattr(thirdparty, "_machine_deb_entries", lambda: [("http://127.0.0.1:9/debian", "")])
    with pytest.raises(thirdparty.ThirdPartyUnavailable) as info:
        thirdparty.fetch_source.__wrapped__("jsoup")
    message = str(info.value)
    assert "apt-get update" in message and "no network?" in message, message
    assert "\n" not in message
    assert not list((tmp_path / "thirdparty").glob("jsoup_*")), "nothing half-made is left in the cache"


def test_no_apt_sources_is_a_clear_unavailable(tmp_path, monkeypatch):
    monkeypatch.setenv("JDWPD_TEST_CACHE", str(tmp_path))
    monkeypatch.setattr(thirdparty, "_machine_deb_entries", lambda: [])
    with pytest.raises(thirdparty.ThirdPartyUnavailable, match="no Debian bookworm 'deb' entry"):
        thirdparty.fetch_source.__wrapped__("jsoup")
