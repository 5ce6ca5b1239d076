"""The language of a prompt, offline; undetermined rather than guessed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from arena_api import language
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


_TEXTS = [
    "What is the capital of Australia?",
    "Wie spät ist es in Berlin?",
    "Привет, как дела?",
    "Γεια σου κόσμε, τι κάνεις;",
    "مرحبا كيف حالك اليوم",
    "Jak się masz dzisiaj?",
    "今日はいい天気ですね。",
    "def foo(): return 1",
    "",
]


def test_the_mapped_model_ranks_every_language_as_the_librarys_own(tmp_path: Path) -> None:
    cache = language.prepare_model(tmp_path / "model")
    assert cache is not None
    mapped, loaded = language._mapped(cache), language._narrowed()
    assert isinstance(mapped.nb_ptc, np.memmap)
    for text in _TEXTS:
        assert mapped.rank(text) == loaded.rank(text)


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    (tmp_path / "not-a-folder").write_text("")
    assert language.prepare_model(tmp_path / "not-a-folder" / "model") is None


def test_a_prepared_cache_is_reused_as_it_is(tmp_path: Path) -> None:
    cache = language.prepare_model(tmp_path / "model")
    assert cache is not None
    written = {f.name: f.stat().st_mtime_ns for f in cache.iterdir()}
    assert language.prepare_model(cache) == cache
    assert {f.name: f.stat().st_mtime_ns for f in cache.iterdir()} == written
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".language-")]
