"""Two-player Dudo (Neller & Hnath 2011): rules, imperfect-recall abstraction, CFR/FSICFR solvers."""
