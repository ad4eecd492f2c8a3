"""Work on a published Dudo store, as the server's live pool runs it: endgame re-solves (``endgame_store``),
searched moves on the exact rounds (``searched_store``) and on the large ones (``large_search``), rounds the
store does not hold (``live_solve``), game reviews scored move by move (``move_scoring``) and the forkserver's
warm-up (``warm``); beside them a round's responder figure against the store's served policy (``respond``). The
pool itself is ``server.live``."""
