"""Independent oracles the tests check the product against; none of them is served or used by a build.
``exact_check``: a store's figures recomputed from its rows alone; ``lp``: the sequence-form linear program of a
small round (its exact value); ``cfr`` and ``fsicfr``: vanilla CFR and the FSICFR of Neller & Hnath 2011
(Algorithms 1 and 2 of the paper), as written there."""
