"""Does an answer name its own model or vendor? A vote after such an answer is not blind.

The names an answer could give itself away by, from the roster: the model's display name, its
provider model id, the vendor behind its provider or its model family, and the family's usual
self-descriptions ("I am ChatGPT", "I'm Claude", "a model by Google DeepMind"). Matching ignores
case and treats spaces, hyphens, dots and underscores alike, so ``GPT 4o mini``, ``gpt-4o-mini``
and ``GPT_4o-Mini`` are one name. Only the answer's *own* names count: an answer that mentions
another model is not a leak.

Pure; ``identity_pattern`` is built once per model and reused for its every answer.
"""

from __future__ import annotations

import re
from functools import lru_cache

from arena_api.core.models import ModelEntry

__all__ = ["identity_pattern", "identity_terms", "names_itself"]

# Family -> the names it answers to: found in the provider model id (or display name).
_FAMILIES: dict[str, tuple[str, ...]] = {
    "gpt": ("openai", "chatgpt", "gpt"),
    "o1": ("openai", "chatgpt"),
    "o3": ("openai", "chatgpt"),
    "o4": ("openai", "chatgpt"),
    "chatgpt": ("openai", "chatgpt", "gpt"),
    "claude": ("anthropic", "claude"),
    "gemini": ("google", "gemini", "deepmind"),
    "gemma": ("google", "gemma", "deepmind"),
    "llama": ("meta ai", "llama"),
    "mistral": ("mistral",),
    "mixtral": ("mistral", "mixtral"),
    "qwen": ("alibaba", "qwen", "tongyi"),
    "deepseek": ("deepseek",),
    "phi": ("microsoft",),
    "command": ("cohere",),
    "grok": ("xai", "grok"),
    "yi": ("01.ai",),
}
# Provider -> its vendor's names, whatever the model (a host proxy or vLLM serves anyone's).
_PROVIDERS: dict[str, tuple[str, ...]] = {
    "openai": ("openai",),
    "google": ("google", "gemini"),
}
_SEPARATORS = re.compile(r"[\s\-_.:/]+")


def _normal(text: str) -> str:
    return _SEPARATORS.sub(" ", text.casefold()).strip()


def identity_terms(model: ModelEntry) -> tuple[str, ...]:
    """Every name ``model``'s answers could give it away by, normalised, longest first."""
    terms = {_normal(model.display_name), _normal(model.provider_model_id)}
    # "llama3.2:3b" names llama too; "openai/gpt-4o" names gpt-4o too.
    terms.add(_normal(model.provider_model_id.rsplit("/", 1)[-1].split(":", 1)[0]))
    haystack = f"{model.provider_model_id} {model.display_name}".casefold()
    for family, names in _FAMILIES.items():
        if re.search(rf"(?<![a-z0-9]){re.escape(family)}", haystack):
            terms.update(_normal(n) for n in names)
    terms.update(_PROVIDERS.get(model.provider, ()))
    return tuple(sorted((t for t in terms if len(t) >= 3), key=lambda t: (-len(t), t)))


@lru_cache(maxsize=1024)
def identity_pattern(model: ModelEntry) -> re.Pattern[str] | None:
    """One pattern matching any of ``model``'s names as whole words (None: it has none)."""
    terms = identity_terms(model)
    if not terms:
        return None
    words = "|".join(re.escape(t).replace(r"\ ", " ") for t in terms)
    return re.compile(rf"(?<![a-z0-9])(?:{words})(?![a-z0-9])")


def names_itself(answer: str, model: ModelEntry) -> bool:
    """Whether ``answer`` names ``model``, its family or its vendor."""
    pattern = identity_pattern(model)
    return bool(pattern and pattern.search(_normal(answer)))
