"""The memory lifecycle (docs/concepts.md, Lifecycle): importance at storage, the forgetting curve with archive and
restore, consolidation of episodes into knowledge, context building, conversation extraction,
and a scheduler to run the jobs on an interval.

Pure parts (``importance``, ``decay``, ``summary``, ``context``, the offline rules of
``conversation``) need no database; ``maintenance`` and ``consolidation`` meet the rest of the
system only through the store. Nothing here imports ``ingest`` or ``recall``: the facade composes
them (it recalls for ``build_context`` and stores extracted memories with ``put_many``).
"""

from .importance import importance_function, score_importance

__all__ = ["importance_function", "score_importance"]
