"""What `make build-stores` (full) and the first `make serve` (default) build."""
from builder.jotto import JottoParams

# Ganzfried's Table 1 iteration counts for the full fictitious-play baseline.
DEFAULT = {
    "jotto-en_US80-2-ganzfried": JottoParams(fp_iterations=2000, do_iterations=40),
    "jotto-en_US80-3-ganzfried": JottoParams(fp_iterations=1000, do_iterations=60),
    "jotto-en_US80-4-ganzfried": JottoParams(fp_iterations=200, do_iterations=40),
    "jotto-en_US80-5-ganzfried": JottoParams(fp_iterations=100, do_iterations=30),
}
FULL = {
    "jotto-en_US80-2-ganzfried": JottoParams(fp_iterations=22212, do_iterations=150),
    "jotto-en_US80-3-ganzfried": JottoParams(fp_iterations=10694, do_iterations=300),
    "jotto-en_US80-4-ganzfried": JottoParams(fp_iterations=3568, do_iterations=300),
    "jotto-en_US80-5-ganzfried": JottoParams(fp_iterations=3906, do_iterations=300),
    "jotto-file.sgb-5-distinct1": JottoParams(fp_iterations=300, do_iterations=150),
}
PROFILES = {"default": DEFAULT, "full": FULL}
