"""The language of a prompt, offline; undetermined rather than guessed."""

from __future__ import annotations

import pytest

from arena_api.language import detect_language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("What is the capital of Australia?", "en"),
        ("Explain JWTs in simple terms", "en"),
        ("Wie spät ist es in Berlin?", "de"),
        ("Quelle heure est-il à Paris ?", "fr"),
        ("Hola, ¿cómo estás hoy?", "es"),
        ("你好，今天天气怎么样？", "zh"),
        ("今日はいい天気ですね。", "ja"),
        ("12 * 17", "und"),
        ("ok", "und"),
        ("def foo(): return 1", "und"),
    ],
)
def test_a_prompts_language_is_named_or_left_undetermined(text: str, language: str) -> None:
    assert detect_language(text) == language
