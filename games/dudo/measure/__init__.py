"""What a strategy is worth: exact best responses and exploitability (``exploit``), the bounds a store
states beyond exact reach (``bound``, ``lbr``), the exact best response to a searched policy (``search_walk``) and
the responders against any policy: the sampled one on the rows' tables (``responder``) and the one that looks
ahead at the policy's own replies (``lookahead``)."""
