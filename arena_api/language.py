"""The language a prompt is written in, offline: ``py3langid``.

Why ``py3langid``: it is maintained (a 2026 release of the ``langid.py`` model, modernised and
faster), runs offline with its model inside the wheel (4.6 MB; nothing is downloaded at run
time), classifies a prompt in about 20 µs with NumPy only, and knows 97 languages.
``lingua-language-detector`` is more accurate on very short texts but holds hundreds of MB of
models in memory; ``langdetect`` is unmaintained since 2021 and nondeterministic unless seeded.

The model's languages are narrowed to the living ones with an ISO 639-1 code: its extra
classes (Nigerian Pidgin, "no linguistic content") and the classical and constructed languages
(Latin, Sanskrit, Esperanto) otherwise claim short technical English ("Write a Python function
for Fibonacci numbers" read as Latin). A prompt the model cannot place with at least
``MIN_PROBABILITY`` (code, numbers, a word or two) is ``und`` (undetermined, as BCP 47 writes
it), never a guess.

Memory: loaded the library's way, the model holds about 95 MB of a server's memory (its
tokenizer's state machine, 37 MB, and the feature weights, 27 MB, twice: all languages and the
narrowed copy). So the narrowed model is written once, uncompressed, to a cache directory
(``$XDG_CACHE_HOME/arena``, else ``~/.cache/arena``; ``arena serve`` writes it before the server
starts) and mapped from there: a classification reads the few pages it needs, the pages are
shared by every process on the host and the kernel may drop them. Where no cache can be
written, the narrowed model is held in memory (about 60 MB) instead.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import mmap
import os
import shutil
import tempfile
import threading
from array import array
from pathlib import Path
from typing import Literal

import numpy as np
import py3langid
from py3langid.langid import MODEL_FILE, LanguageIdentifier

from arena_api.core.categories import UNDETERMINED

__all__ = ["MIN_PROBABILITY", "UNDETERMINED", "detect_language", "model_cache", "prepare_model"]

MIN_PROBABILITY = 0.25
#: The language is read from the prompt's start: its cost grows with the text, its answer not.
SAMPLE_CHARS = 1_000
_NOT_ASKED_IN = frozenset({"la", "sa", "eo"})
#: The cache's layout; a change of it (or of the library) names another directory.
_FORMAT = 1

_lock = threading.Lock()
_identifier: LanguageIdentifier | None = None


def _languages(classes: list[str]) -> list[str]:
    return sorted({c for c in classes if len(c) == 2} - _NOT_ASKED_IN)


def _narrowed() -> LanguageIdentifier:
    """The library's model, loaded its way, narrowed to the languages we name (half a second,
    about 150 MB while it loads)."""
    model = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    model.set_languages(_languages(model.nb_classes))
    # The narrowing keeps the whole model for a later reset, which is never asked for here.
    model._full_model = (model.nb_ptc, model.nb_pc, model.nb_classes)
    return model


def model_cache() -> Path:
    """Where the narrowed model is kept for this version of the library."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    key = hashlib.sha256(f"{py3langid.__version__}|{_FORMAT}|{sorted(_NOT_ASKED_IN)}".encode())
    return base / "arena" / f"language-model-{key.hexdigest()[:16]}"


def prepare_model(cache: Path | None = None) -> Path | None:
    """Write the narrowed model to ``cache`` (``model_cache()``) unless it is there; its path,
    or None when it cannot be written (a read-only home)."""
    cache = cache or model_cache()
    if (cache / "classes.json").is_file():
        return cache
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=cache.parent, prefix=".language-"))
    except OSError:
        return None
    try:
        model = _narrowed()
        np.save(staging / "ptc.npy", np.ascontiguousarray(model.nb_ptc))
        np.save(staging / "pc.npy", np.ascontiguousarray(model.nb_pc))
        _write(staging / "nextmove.u32", array("I", model.tk_nextmove))
        _write(staging / "rowbase.u32", array("I", model._rowbase))
        _write(staging / "output.i32", array("i", model.tk_output))
        # Written last: its presence says the rest is complete.
        (staging / "classes.json").write_text(json.dumps(model.nb_classes))
        os.rename(staging, cache)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        # Another process may have put it there first.
        return cache if (cache / "classes.json").is_file() else None
    return cache


def _write(path: Path, values: array[int]) -> None:
    with path.open("wb") as file:
        values.tofile(file)


def _mapped(cache: Path) -> LanguageIdentifier:
    """The narrowed model, its arrays mapped read-only from ``cache``."""
    model = LanguageIdentifier(
        np.load(cache / "ptc.npy", mmap_mode="r"),
        np.load(cache / "pc.npy"),
        json.loads((cache / "classes.json").read_text()),
        _view(cache / "nextmove.u32", "I"),
        _view(cache / "output.i32", "i"),
        norm_probs=True,
        tk_row=(),
    )
    # The library derives its row offsets from the rows; they are in the cache already.
    model._rowbase = _view(cache / "rowbase.u32", "I")
    return model


def _view(path: Path, code: Literal["I", "i"]) -> memoryview[int]:
    """A read-only mapping of ``path`` as machine integers (indexing gives Python ints)."""
    with path.open("rb") as file:
        mapping = mmap.mmap(file.fileno(), 0, prot=mmap.PROT_READ)
    return memoryview(mapping).cast(code)


def _model() -> LanguageIdentifier:
    """The model, loaded once per process: mapped from the cache, else held in memory."""
    global _identifier
    if _identifier is None:
        with _lock:
            if _identifier is None:
                cache = prepare_model()
                model = None
                if cache is not None:
                    with contextlib.suppress(OSError, ValueError):
                        model = _mapped(cache)
                _identifier = model or _narrowed()
    return _identifier


def detect_language(text: str) -> str:
    """An ISO 639 code (``en``, ``de``, ``zh``, ...), or ``und`` when it cannot be told."""
    sample = text[:SAMPLE_CHARS]
    if sum(ch.isalpha() for ch in sample) < 3:
        return UNDETERMINED
    language, probability = _model().classify(sample)
    return str(language) if probability >= MIN_PROBABILITY else UNDETERMINED
