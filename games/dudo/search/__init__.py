"""Search at play time: endgame re-solving (``endgame``), continual depth-limited re-solving
(``continual``), its action-abstracted form cheap enough for large rounds (``abstract_resolve``) and the tables a
store keeps for it (``tables``)."""
