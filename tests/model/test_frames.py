import pytest

from jdwpd.daemon.model.frames import frame_depth, make_frame_id
from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode


def test_frame_id_round_trip_and_matches_reference_layout():
    assert [make_frame_id(0, d) for d in range(3)] == [0, 1, 2]  # the reference's first frames
    assert make_frame_id(1, 0) == 65536  # ... and after the thread's first resume
    fid = make_frame_id(3, 7)
    assert frame_depth(fid, 3) == 7


def test_stale_generation_is_invalid_frameid():
    fid = make_frame_id(1, 0)
    with pytest.raises(JdwpError) as e:
        frame_depth(fid, 2)
    assert e.value.code == ErrorCode.INVALID_FRAMEID
