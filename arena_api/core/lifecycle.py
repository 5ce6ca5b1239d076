"""A model's place in the roster: ``active`` models are matched; ``paused`` ones are held back
for now; ``archived`` ones have left the roster (or are known only from imported votes). Paused
and archived models keep their history on the board, marked, and are never matched.

Where a status comes from (``arena_api.db.repository.seed_roster``, at every start): a model the
roster file lists takes the file's status (``active`` unless it says otherwise); a model the file
no longer lists is archived, never deleted; a model known only from an import (provider
``imported``) is left as it is.

Part of the shared kernel (the schema's constraint names the statuses): it imports nothing.
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "ACTIVE",
    "ARCHIVED",
    "IMPORTED_PROVIDER",
    "MODEL_STATUSES",
    "PAUSED",
    "STATUS_NOTES",
    "ModelStatus",
]

ModelStatus = Literal["active", "paused", "archived"]
ACTIVE: ModelStatus = "active"
PAUSED: ModelStatus = "paused"
ARCHIVED: ModelStatus = "archived"
MODEL_STATUSES: tuple[ModelStatus, ...] = (ACTIVE, PAUSED, ARCHIVED)
#: The provider of a model known only from another arena's votes: nothing can answer as it.
IMPORTED_PROVIDER = "imported"

#: What a board's mark says about a model that is not matched (the page's tooltip, the chat's
#: caption): the same words everywhere.
STATUS_NOTES: dict[ModelStatus, str] = {
    PAUSED: "paused: not matched for now",
    ARCHIVED: "archived: no longer in the roster, history kept",
}
