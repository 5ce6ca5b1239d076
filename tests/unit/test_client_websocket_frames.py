"""The client's sans-IO WebSocket framing (``arena_client._websocket``): lengths, masking,
fragmentation, and bytes that arrive in pieces or several frames at once."""

from __future__ import annotations

import pytest

from arena_client._websocket import (
    BINARY,
    CLOSE,
    CONTINUATION,
    PING,
    PONG,
    TEXT,
    FrameReader,
    encode_frame,
)
from arena_client.errors import ConnectionLost

MASK = b"\x37\xfa\x21\x3d"


def frames_of(data: bytes, max_message: int = 1 << 22) -> list[tuple[int, bytes]]:
    reader = FrameReader(max_message)
    reader.feed(data)
    frames = []
    while (frame := reader.next_frame()) is not None:
        frames.append(frame)
    return frames


@pytest.mark.parametrize(
    ("size", "header"),
    [
        pytest.param(125, bytes([0x81, 125]), id="7-bit"),
        pytest.param(126, bytes([0x81, 126, 0, 126]), id="16-bit"),
        pytest.param(65_535, bytes([0x81, 126, 0xFF, 0xFF]), id="16-bit-max"),
        pytest.param(65_536, bytes([0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0]), id="64-bit"),
    ],
)
def test_a_frame_carries_its_length_in_the_shortest_form(size: int, header: bytes) -> None:
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)

    frame = encode_frame(TEXT, payload)

    assert frame == header + payload
    assert frames_of(frame) == [(TEXT, payload)]


def test_a_client_frame_is_masked_with_its_key() -> None:
    frame = encode_frame(TEXT, b"Hello", mask=MASK)

    assert frame[:2] == bytes([0x81, 0x80 | 5]) and frame[2:6] == MASK
    assert frame[6:] == bytes(b ^ MASK[i % 4] for i, b in enumerate(b"Hello"))
    assert frames_of(frame) == [(TEXT, b"Hello")]


def test_the_rfc_example_of_a_masked_hello_is_decoded() -> None:
    """RFC 6455 section 5.7: a masked single-frame "Hello"."""
    frame = bytes.fromhex("818537fa213d7f9f4d5158")

    assert frames_of(frame) == [(TEXT, b"Hello")]


def test_a_fragmented_message_is_reassembled_around_a_control_frame() -> None:
    data = (
        encode_frame(TEXT, b'{"a":', fin=False)
        + encode_frame(PING, b"p")
        + encode_frame(CONTINUATION, b" [1, ", fin=False, mask=MASK)
        + encode_frame(CONTINUATION, b"2]}")
    )

    assert frames_of(data) == [(PING, b"p"), (TEXT, b'{"a": [1, 2]}')]


def test_several_frames_in_one_read_are_all_kept() -> None:
    data = (
        encode_frame(TEXT, b"one")
        + encode_frame(BINARY, b"two")
        + encode_frame(PONG, b"")
        + encode_frame(CLOSE, (1000).to_bytes(2, "big"))
    )

    assert frames_of(data) == [(TEXT, b"one"), (BINARY, b"two"), (PONG, b""), (CLOSE, b"\x03\xe8")]


def test_a_frame_split_across_reads_waits_for_its_last_byte() -> None:
    frame = encode_frame(TEXT, b"x" * 70_000)
    reader = FrameReader()
    seen = []

    for at in range(0, len(frame), 4_099):
        reader.feed(frame[at : at + 4_099])
        seen.append(reader.next_frame())

    assert seen[:-1] == [None] * (len(seen) - 1)
    assert seen[-1] == (TEXT, b"x" * 70_000)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        pytest.param(encode_frame(CONTINUATION, b"x"), "websocket_protocol_error", id="stray-cont"),
        pytest.param(
            encode_frame(TEXT, b"a", fin=False) + encode_frame(TEXT, b"b"),
            "websocket_protocol_error",
            id="new-message-inside-fragments",
        ),
        pytest.param(bytes([0x83, 0]), "websocket_protocol_error", id="unknown-opcode"),
        pytest.param(bytes([0xC1, 0]), "websocket_protocol_error", id="extension-bit"),
        pytest.param(encode_frame(PING, b"x" * 126), "websocket_protocol_error", id="long-ping"),
        pytest.param(
            bytes([0x81, 127]) + (1 << 40).to_bytes(8, "big"),
            "websocket_message_too_large",
            id="huge-length-refused-at-once",
        ),
        pytest.param(
            encode_frame(TEXT, b"x" * 600, fin=False) + encode_frame(CONTINUATION, b"y" * 600),
            "websocket_message_too_large",
            id="too-large-once-reassembled",
        ),
    ],
)
def test_a_broken_stream_is_a_protocol_failure(data: bytes, code: str) -> None:
    with pytest.raises(ConnectionLost) as failure:
        frames_of(data, max_message=1_000)

    assert failure.value.code == code
