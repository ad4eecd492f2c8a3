"""The web pages in a real browser: headless Chromium (Debian's, /usr/bin/chromium, installed by `make test`)
driven by Playwright against a real server on loopback. A whole Jotto game and a Dudo game are played with
clicks and keys; every reported jot count and challenge is checked against the shared rules. A screenshot
of each page goes to results/screenshots/ (not committed)."""
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import SMALL_VARIANT
from games.dudo.rules import challenge_outcome

CHROMIUM = "/usr/bin/chromium"
REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "results" / "screenshots"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DUDO = "dudo-m3-1dice"
TIMEOUT_MS = 15_000
REVIEW_MS = 120_000


def jots(a: str, b: str) -> int:
    return sum((Counter(a) & Counter(b)).values())


@pytest.fixture(scope="module")
def web_root(small_store, tmp_path_factory):
    """A store root with the small Jotto store and a one-die Dudo store."""
    from builder.dudo import DudoParams, build_dudo_store

    root = tmp_path_factory.mktemp("web-stores")
    (root / "jotto").mkdir()
    (root / "jotto" / SMALL_VARIANT).symlink_to(small_store[0] / "jotto" / SMALL_VARIANT)
    build_dudo_store(DudoParams(max_dice=1, iterations=100), root)
    from builder.guesswho import GuessWhoParams, build_guesswho_store
    from builder.hangman import HangmanParams, build_hangman_store

    build_guesswho_store(GuessWhoParams(24, budget=2000), root)  # their tables on the operations page
    build_hangman_store(HangmanParams(5, eval_games=2), root)
    return root


@pytest.fixture(scope="module")
def site(web_root, tmp_path_factory):
    """`python -m server` on the web root (gRPC and HTTP on free ports); yields the HTTP base address."""
    tmp = tmp_path_factory.mktemp("web-server")
    ports, log = tmp / "ports.json", tmp / "server.log"
    env = {k: v for k, v in os.environ.items() if k not in ("PROMETHEUS_MULTIPROC_DIR", "GAMESTRATEGY_TOKEN")}
    env["PYTHONPATH"] = str(REPO)
    with open(log, "wb") as fh:
        p = subprocess.Popen([sys.executable, "-m", "server", "--root", str(web_root), "--port", "0", "--http-port", "0",
                              "--workers", "1", "--metrics-port", "-1", "--port-file", str(ports)],
                             cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while not ports.exists():  # the server writes its ports once it listens
            assert p.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.05)
        yield f"http://127.0.0.1:{json.loads(ports.read_text())['http_port']}"
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(30)


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium package (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser, site):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield pg
    ctx.close()
    assert not errors, errors


def shot(pg, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def prompt_text(pg) -> str:
    return pg.inner_text("#jotto-prompt" if pg.is_visible("#jotto") else "#dudo-prompt")


def wait_changed(pg, box, before):
    """Wait until the prompt asks its next question (or the game is over); `before`: the prompt's
    question number when the answer was given."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        pg.wait_for_function("([sel, before]) => { const b = document.querySelector(sel);"
                             " return b.dataset.seq !== before || b.closest('section').dataset.state === 'over'; }",
                             arg=[box, before])
    except PlaywrightTimeout:
        shot(pg, "failure")
        log = pg.inner_text(box.replace("prompt", "log"))
        raise AssertionError(f"the page did not move on from {pg.inner_text(box)!r}; transcript:\n{log}") from None


def log_lines(pg, sel):
    return pg.inner_text(sel).splitlines()


def test_a_whole_jotto_game_by_keyboard_and_clicks(page, site):
    pg = page
    pg.goto(site + "/play")
    pg.wait_for_selector("body[data-ready='1']")
    from games.jotto.dictionary import load_dictionary

    d = load_dictionary(SMALL_VARIANT)
    words, common = list(d.words), [bool(c) for c in d.common]
    mine = words[len(words) // 2]  # the person's secret
    pg.select_option("#jotto-variant", SMALL_VARIANT)
    pg.fill("#jotto-seed", "11")
    pg.click("#jotto-new")
    box = "#jotto-prompt"
    pg.wait_for_selector(f"{box} button[data-answer='yes']")
    pg.keyboard.press("y")  # WOULD YOU LIKE TO GO FIRST?
    tried, lied, undone, screenshot_taken = set(), False, False, False
    for _ in range(400):
        if pg.get_attribute("#jotto", "data-state") == "over":
            break
        pg.wait_for_selector(f"{box} .q")
        q = pg.inner_text(f"{box} .q")
        before = pg.get_attribute(box, "data-seq")
        if q == "YOUR TEST WORD:":
            cands = pg.eval_on_selector_all("#jotto-cands-mine li", "ls => ls.map(l => l.textContent.toLowerCase())")
            guess = next(w for w in cands if w not in tried)
            tried.add(guess)
            pg.keyboard.type(guess.upper())
            pg.keyboard.press("Enter")
        elif m := re.fullmatch(r"JOTS IN (\w+) \(0-\d\):", q):
            w = m.group(1).lower()
            if lied and not undone:  # take the wrong answer back, by keyboard: Tab to the undo button
                for _ in range(6):
                    pg.keyboard.press("Tab")
                    if pg.evaluate("document.activeElement.name") == "undo":
                        break
                assert pg.evaluate("document.activeElement.name") == "undo"
                pg.keyboard.press("Enter")
            elif w == mine:
                pg.click(f"{box} button[name='mine']")
            else:
                j = jots(w, mine)
                if not lied:  # a wrong answer first, undone later
                    j, lied = (j + 1) % (len(mine) + 1), True
                pg.keyboard.type(str(j))
                pg.keyboard.press("Enter")
        elif m := re.fullmatch(r"(?:IS YOUR WORD|\d JOTS: SO) (\w+)(?: IS YOUR WORD)?\?", q):
            pg.keyboard.press("y" if m.group(1).lower() == mine else "n")
        elif m := re.fullmatch(r"HOW MANY JOTS DOES (\w+) HAVE\?", q):
            pg.keyboard.type(str(jots(m.group(1).lower(), mine)))
            pg.keyboard.press("Enter")
        elif q.startswith("WHICH ANSWER IS WRONG"):
            pg.keyboard.type("1")
            pg.keyboard.press("Enter")
        elif m := re.fullmatch(r"HOW MANY JOTS DOES (\w+) REALLY HAVE\?", q):
            pg.keyboard.type(str(jots(m.group(1).lower(), mine)))
            pg.keyboard.press("Enter")
            undone = True
        elif q == "WANT TO TAKE BACK AN ANSWER?":
            pg.click(f"{box} button[data-answer='yes']")
        elif q in ("DO YOU WANT ME TO CONTINUE GUESSING YOUR WORD?", "DO YOU WANT TO CONTINUE GUESSING MY WORD?"):
            pg.click(f"{box} button[data-answer='yes']")
        elif q == "ARE YOU SURE THAT'S A WORD?":
            pg.keyboard.press("y")
        else:
            raise AssertionError(f"unexpected question {q!r}")
        if undone and not screenshot_taken:
            shot(pg, "play-jotto")
            screenshot_taken = True
        wait_changed(pg, box, before)
    log = log_lines(pg, "#jotto-log")
    text = "\n".join(log)
    assert pg.get_attribute("#jotto", "data-state") == "over", text
    secret = re.search(r"YOU GOT IT! MY WORD WAS (\w+)", text).group(1).lower()
    assert common[words.index(secret)], "the program's secret is a common word"
    assert re.search(r"I GOT IT IN \d+ GUESS", text), text
    assert "REPLAYING MY DEDUCTION" in text and undone
    # both winning tests reach the board: the person's (the secret) and the program's (the person's word)
    board = pg.eval_on_selector_all("#jotto-board tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    assert secret.upper() in [row[0] for row in board], board
    assert mine.upper() in [row[2] for row in board], board
    # no empty box after the game: the prompt says what to do next (review it, or a new game)
    after = pg.inner_text("#jotto-prompt")
    assert "Review this game" in after or "Press New game" in after, after
    # "W: n JOTS" reports the person's test words and also the person's answers to the program's: when both
    # sides tested the same word, both lines are there, so each of the person's words needs its true count
    # among the lines naming it
    reported: dict[str, set[int]] = {}
    for m in re.finditer(r"^(\w+): (\d) JOTS?", text, re.M):
        reported.setdefault(m.group(1).lower(), set()).add(int(m.group(2)))
    for w in tried - {secret}:
        assert jots(w, secret) in reported.get(w, set()), (w, reported.get(w))
    # "Review this game": one row per test word of the person's, in order, the last the secret found
    pg.click(f"{box} button:has-text('Review this game')")
    # a review is live work: a cold worker starts (and loads the store) first, longer than a move under load
    pg.wait_for_function("() => document.querySelector('#jotto').dataset.state === 'reviewed'", timeout=REVIEW_MS)
    rows = pg.eval_on_selector_all("#jotto-review tr[data-move]", "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    assert len(rows) == len(tried) and rows[-1][1] == secret and rows[-1][2].endswith("→0")
    assert all(float(r[6]) >= 0 for r in rows) and pg.inner_text("#jotto-accuracy").startswith("Accuracy ")
    # the labels say what they judge (expected guesses, before the answer); a labelled winning word says it hit
    legend = pg.inner_text("#jotto-review .review-legend")
    assert "judged before its answer, by the expected guesses" in legend and "glossary" in legend
    assert rows[-1][7] in ("", ) or rows[-1][7].endswith(" (it named the secret)"), rows[-1]
    shot(pg, "play-jotto-review")


def test_a_dudo_game_by_clicks_and_keys(page, site):
    pg = page
    pg.goto(site + "/play#dudo")
    pg.wait_for_selector("body[data-ready='1']")
    assert "press New game to start" in pg.inner_text("#dudo-prompt")  # no empty box before a game
    pg.select_option("#dudo-variant", DUDO)
    pg.fill("#dudo-seed", "4")
    pg.focus("#dudo-new")
    pg.keyboard.press("Enter")
    box = "#dudo-prompt"
    pg.wait_for_selector(f"{box} button[data-answer='yes']")
    pg.click(f"{box} button[data-answer='yes']")  # I open
    pg.wait_for_selector(f"{box} input")
    legal = pg.eval_on_selector_all(f"{box} button[name='claim']", "bs => bs.map(b => b.textContent)")
    assert legal[0] == "1x2" and legal[-1] == "2x1" and "dudo" not in legal  # the 2-dice claim order, weakest first
    pg.keyboard.type("9x9")
    pg.keyboard.press("Enter")
    assert "not a legal claim" in pg.inner_text(f"{box} .err")
    pg.fill(f"{box} input", "")
    pg.keyboard.type("1x3")
    pg.keyboard.press("Enter")
    shot_taken = False
    for _ in range(40):
        if pg.get_attribute("#dudo", "data-state") in ("challenged", "over"):
            break
        pg.wait_for_function("() => ['challenged', 'over'].includes(document.querySelector('#dudo').dataset.state) ||"
                             " document.querySelector('#dudo-prompt input')")
        if pg.get_attribute("#dudo", "data-state") in ("challenged", "over"):
            break
        if not shot_taken:
            shot(pg, "play-dudo")
            shot_taken = True
        before = pg.get_attribute(box, "data-seq")
        if pg.query_selector(f"{box} button[name='dudo']"):
            pg.click(f"{box} button[name='dudo']")  # challenge the program's claim
        else:
            pg.click(f"{box} button[name='claim']")
        wait_changed(pg, box, before)
    pg.wait_for_function("() => document.querySelector('#dudo-verdict').innerText !== ''")
    text = pg.inner_text("#dudo-log")
    claim = re.findall(r"(?:claim|I say:) (\d)x(\d)", text)[-1]
    n, r = int(claim[0]), int(claim[1])
    faces = [int(x) for x in re.findall(r"[⚀-⚅] (\d)", pg.inner_text("#dudo-your-dice") + pg.inner_text("#dudo-my-dice"))]
    assert len(faces) == 2
    count = sum(1 for f in faces if f == r or (r != 1 and f == 1))
    assert f"counting for {'ones' if r == 1 else f'{r}s'}" in text and f": {count}; the claim was {n}." in text
    loser, k = challenge_outcome(n, count)
    challenger_you = "You challenge" in text
    you_lose = (loser == "challenger") == challenger_you
    assert pg.inner_text("#dudo-verdict").endswith(f"{'you lose' if you_lose else 'I lose'} {k}.")
    # the panel's dice counts are those after the challenge (one die each: the loser has none left)
    assert pg.inner_text("#dudo-count") == ("You: 0 dice. Me: 1 die." if you_lose else "You: 1 die. Me: 0 dice.")
    # the verdict line reads as bad news when you lose, good news when I do
    verdict_class = pg.eval_on_selector_all("#dudo-log div", "ds => ds.filter(d => / lose \\d/.test(d.textContent))"
                                            ".map(d => d.className)")
    assert verdict_class == ["err" if you_lose else "good"], verdict_class
    shot(pg, "play-dudo-challenge")
    pg.wait_for_function("() => document.querySelector('#dudo').dataset.state === 'over'")
    assert ("you win the game" if not you_lose else "I win the game") in pg.inner_text("#dudo-log")
    # "Review this game": one row per move of yours (your claims, your challenge), each with its loss and
    # label; a click on a move shows its alternatives with their values
    mine = re.findall(r"^You claim (\d+x\d)", text, re.M) + (["dudo"] if challenger_you else [])
    pg.click(f"{box} button:has-text('Review this game')")
    # a review is live work: a cold worker starts (and loads the store) first, longer than a move under load
    pg.wait_for_function("() => document.querySelector('#dudo').dataset.state === 'reviewed'", timeout=REVIEW_MS)
    rows = pg.eval_on_selector_all("#dudo-review tr[data-move]", "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    assert [r[2] for r in rows] == mine and all(float(r[8]) >= 0 for r in rows)
    assert all(r[10] == "fsicfr" for r in rows)    # whose probabilities: the stored rows' (no search on this store)
    assert pg.inner_text("#dudo-accuracy").startswith("Accuracy ")
    assert pg.query_selector("#dudo-review svg polyline") is not None
    assert "judged by your win probability after it" in pg.inner_text("#dudo-review .review-legend")
    pg.click("#dudo-review tr[data-move='0']")
    alts = pg.inner_text("#dudo-review tr.alternatives:not([hidden])")
    assert rows[0][6] in alts  # the best move is among the alternatives shown
    shot(pg, "play-dudo-review")


def test_dudo_claims_at_five_dice_each_stay_in_view(page, site):
    """At 5 dice each 60 claims are legal: the whole claim prompt stays within 1280x900, and any legal claim
    can still be typed."""
    pg = page
    pg.goto(site + "/play#dudo")
    pg.wait_for_selector("body[data-ready='1']")
    pg.evaluate("""async () => {
        const m = await import('/static/dudo.js'), p = await import('/static/prompt.js');
        const $ = (s) => document.querySelector(s);
        const d = new m.Dudo($('#dudo'), new p.Log($('#dudo-log')), new p.Prompt($('#dudo-prompt')));
        d.rules = await (await fetch('/play/rules/dudo.json')).json();
        window.claimed = null;
        d.askClaim(10, []).then((c) => { window.claimed = c; });
    }""")
    pg.wait_for_selector("#dudo-prompt input")
    assert "Legal claims: 60" in pg.inner_text("#dudo-prompt")
    boxes = pg.eval_on_selector_all("#dudo-prompt button, #dudo-prompt input, #dudo-prompt .hint",
                                    "es => es.map(e => e.getBoundingClientRect().bottom)")
    assert len(boxes) > 3 and max(boxes) <= 900, boxes
    pg.keyboard.type("10x1")
    pg.keyboard.press("Enter")
    pg.wait_for_function("() => window.claimed !== null")
    assert pg.evaluate("window.claimed") == [10, 1]


def test_operations_page_renders_every_variant(page, site):
    import urllib.request

    def post(method):
        req = urllib.request.Request(f"{site}/v1/{method}", data=b"{}", method="POST")
        return json.loads(urllib.request.urlopen(req, timeout=30).read())

    variants = [v["variant"] for v in post("ListVariants")["variants"]]
    stats = {v["variant"]: v for v in post("GetStats")["variants"]}
    assert {SMALL_VARIANT, DUDO} <= set(variants) and any(v.startswith("guesswho") for v in variants)
    assert any(v.startswith("hangman") for v in variants)
    pg = page
    pg.goto(site + "/ops")
    pg.wait_for_selector("body[data-ready='1']")
    pg.wait_for_function("() => Number(document.body.dataset.live) >= 2")  # two readings of the metrics: rates
    for v in variants:
        sec = pg.locator(f"section[aria-label='{v}']")
        assert sec.locator("h3").inner_text() == v
        facts = sec.locator("table.facts").inner_text()
        assert stats[v]["storeVersion"] in facts and stats[v]["codeVersion"] in facts
        certified = any("value_lower" in s["figures"] for s in stats[v]["strategies"])
        if v.startswith("jotto"):  # a certified bracket, or a line saying there is none
            assert ("value bracket (certified)" in facts) and (("not certified" in facts) != certified), facts
        plots = sec.locator("img[data-plot]")
        want = {"jotto": ["fp", "double_oracle", "guessers"], "dudo": ["exploitability"]}.get(v.split("-")[0])
        if want is not None:
            assert plots.evaluate_all("is => is.map(i => i.dataset.plot)") == want
        assert all(w > 100 for w in plots.evaluate_all("is => is.map(i => i.naturalWidth)"))
    rounds = pg.locator(f"section[aria-label='{DUDO}'] table[aria-label^='Rounds']").inner_text()
    r = next(s for s in stats[DUDO]["strategies"] if s["strategy"] == "round 1v1")
    assert "1v1" in rounds and r["labels"]["br_kind"] in rounds and f"{r['figures']['exploitability']:.4f}" in rounds
    assert "perfect-recall improvement (sampled lower bound)" in rounds
    # each round's headline figure with its kind, the figures' units, and where the words are defined
    head = pg.eval_on_selector_all(f"section[aria-label='{DUDO}'] table[aria-label^='Rounds'] tr",
                                   "rs => rs.map(r => [...r.cells].slice(0, 4).map(c => c.textContent))")
    assert head[0][1] == "headline: the round's figure (win probability, both seats summed)" and head[0][2] == "its kind"
    assert head[1] == ["1v1", f"{r['figures'][r['headline']]:.4f}", r["headlineKind"], r["labels"]["served"]]
    assert "value (the opener's win probability)" in rounds
    for v in variants:
        sec = pg.locator(f"section[aria-label='{v}']")
        assert "glossary" in sec.locator("p.note").last.inner_text()
        for s in stats[v]["strategies"]:
            if s["headline"] and not v.startswith("dudo"):
                assert f"{s['headline']} = " in sec.inner_text() and s["headlineKind"] in sec.inner_text()
    gw = next(v for v in variants if v.startswith("guesswho"))
    gw_facts = pg.locator(f"section[aria-label='{gw}'] table.facts").inner_text()
    assert "dictionary sha256" not in gw_facts and "candidates a player starts with\t24" in gw_facts, gw_facts
    assert "vs_optimal (win probability)" in pg.locator(f"section[aria-label='{gw}']").inner_text()
    # no header of any table overlaps its neighbour: each stays within its cell
    over = pg.eval_on_selector_all("section.variant th", "hs => hs.filter(h => h.scrollWidth > h.clientWidth + 1)"
                                   ".map(h => h.textContent)")
    assert over == [], over
    # no number is broken across lines
    broken = pg.eval_on_selector_all("section.variant td", "ds => ds.filter(d => /^[-0-9.e+ /]+$/.test(d.textContent))"
                                     ".filter(d => { const r = document.createRange(); r.selectNodeContents(d);"
                                     " return r.getClientRects().length > 1; }).map(d => d.textContent)")
    assert broken == [], broken
    calls = pg.inner_text("#live-calls")
    assert "ListVariants" in calls and "GetStats" in calls  # the page's own calls, counted by the metrics
    assert "Rates over the last" in pg.inner_text("main")
    # every table fits the 1280-pixel page: nothing cut off at the right edge
    widths = pg.eval_on_selector_all("section.variant table", "ts => ts.map(t => [t.getAttribute('aria-label'), "
                                     "t.scrollWidth, t.clientWidth, t.getBoundingClientRect().right])")
    for label, scroll, client, right in widths:
        assert scroll <= client + 1 and right <= 1280, (label, scroll, client, right)
    shot(pg, "ops")


def test_a_searched_rounds_served_cell_says_its_figures_are_the_stored_rows(page, site):
    """A round served by search whose figures beside are the stored rows' (its rows_figures label, as GetStats gives
    it for the large searched rounds) says so in its served cell; a round without the label shows its served label
    alone. The one-die store has no searched round, so the page's GetStats gets the label added on the way."""
    rows = "exploitability, improved_exploitability, br_opener, br_other: of the stored rows (strategy fsicfr)"

    def with_rows_figures(route):
        reply = route.fetch()
        body = reply.json()
        for v in body["variants"]:
            for s in v["strategies"]:
                if v["variant"] == DUDO and s["strategy"] == "round 1v1":
                    s["labels"]["rows_figures"] = rows
        route.fulfill(response=reply, json=body)

    page.route("**/v1/GetStats", with_rows_figures)
    page.goto(site + "/ops")
    page.wait_for_selector("body[data-ready='1']")
    cells = page.eval_on_selector_all(f"section[aria-label='{DUDO}'] table[aria-label^='Rounds'] tr",
                                      "rs => rs.slice(1).map(r => [r.cells[0].textContent, r.cells[3].textContent])")
    assert dict(cells)["1v1"].endswith(f"; {rows}") and dict(cells)["1v1"] != f"; {rows}", cells


def test_the_page_and_its_token_form_work_over_https(browser, web_root, tmp_path):
    """With TLS and a token, the play page loads over HTTPS, asks for the token, and plays with it."""
    from bench.abuse import start_server
    from tests.server.certs import make_certs

    certs = make_certs(tmp_path)
    (tmp_path / "tokens").write_text("page-token-1\n")
    srv = start_server(web_root, ["--tls-cert", str(certs["server"][0]), "--tls-key", str(certs["server"][1]),
                                  "--token-file", str(tmp_path / "tokens")], nofile=None, workdir=tmp_path / "run")
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, ignore_https_errors=True)
    try:
        pg = ctx.new_page()
        pg.set_default_timeout(TIMEOUT_MS)
        pg.goto(f"https://localhost:{srv.ports['http_port']}/play")
        pg.wait_for_selector("#api-token")
        assert pg.evaluate("location.protocol") == "https:"
        pg.fill("#api-token", "page-token-1")
        pg.keyboard.press("Enter")
        pg.wait_for_selector("body[data-ready='1']")
        pg.select_option("#jotto-variant", SMALL_VARIANT)
        pg.click("#jotto-new")
        pg.wait_for_selector("#jotto-prompt button[data-answer='yes']")
        assert not pg.is_visible("#api-token")
    finally:
        ctx.close()
        srv.stop()


def test_the_play_page_says_what_is_still_being_built_and_drops_the_line_when_done(page, site, web_root):
    """A build beside the server (its progress file): the page names the variants to come and how far along;
    when the build ends, its next poll of ListVariants removes the line."""
    from games.buildprogress import BuildProgress, VariantProgress, progress_path

    BuildProgress([VariantProgress("jotto-en_US80-5-ganzfried", "building", 100.0, 40.0),
                   VariantProgress("jotto-en_US80-4-ganzfried", "building", None, 5.0),
                   VariantProgress("dudo-5dice-default", "planned", 400.0)]).write(web_root)
    try:
        pg = page
        pg.goto(site + "/play")
        pg.wait_for_selector("body[data-ready='1']")
        line = pg.locator("#building")
        assert line.is_visible()
        text = line.inner_text()
        # a store with no estimate says so
        assert text.startswith("Still being built: jotto-en_US80-5-ganzfried (about 40%, about 1 min left), "
                               "jotto-en_US80-4-ganzfried (no estimate yet), dudo-5dice-default (waiting)"), text
        done = BuildProgress.start([("jotto-en_US80-5-ganzfried", 100.0)])
        done.state = "done"
        done.write(web_root)
        pg.wait_for_selector("#building", state="hidden", timeout=30_000)
    finally:
        progress_path(web_root).unlink(missing_ok=True)


def test_the_operations_page_shows_the_build_and_adds_the_stores_published_later(page, site, web_root):
    """/ops says what is still being built and, without a reload, shows a store published after it loaded."""
    from games.buildprogress import BuildProgress, VariantProgress, progress_path

    BuildProgress([VariantProgress("dudo-2dice-late", "building", None, 5.0, work_fraction=0.4, work_remaining=30.0)]
                  ).write(web_root)
    try:
        pg = page
        pg.goto(site + "/ops")
        pg.wait_for_selector("body[data-ready='1']")
        pg.wait_for_function("() => !document.querySelector('#building').hidden", timeout=30_000)
        assert pg.inner_text("#building").startswith("Still being built: dudo-2dice-late (about 40%, about 30 s left)")
        assert pg.locator("section[aria-label='dudo-m3-2dice-late']").count() == 0
        from builder.dudo import DudoParams, build_dudo_store
        build_dudo_store(DudoParams(max_dice=1, iterations=20, label="late"), web_root)
        done = BuildProgress.start([("dudo-2dice-late", 10.0)])
        done.state = "done"
        done.write(web_root)
        late = DudoParams(max_dice=1, iterations=20, label="late").variant
        pg.wait_for_selector(f"section[aria-label='{late}']", timeout=60_000)
        pg.wait_for_function("() => document.querySelector('#building').hidden", timeout=30_000)
    finally:
        progress_path(web_root).unlink(missing_ok=True)


def test_a_bad_seed_is_said_plainly_and_a_huge_one_is_kept_whole(page, site):
    """1e30 is no seed: the page says so in a sentence (not the parser's error) and starts no game; the largest
    seed, 2**64 - 1, is kept to the last digit."""
    pg = page
    pg.goto(site + "/play#jotto")
    pg.wait_for_selector("body[data-ready='1']")
    pg.select_option("#jotto-variant", SMALL_VARIANT)
    pg.fill("#jotto-seed", "1e30")
    pg.click("#jotto-new")
    status = pg.inner_text("#status")
    assert status.startswith('The seed "1e30" is not a whole number from 0 to 18446744073709551615'), status
    assert pg.get_attribute("#jotto", "data-state") == "idle" and pg.inner_text("#jotto-log") == ""
    pg.fill("#jotto-seed", "7")
    pg.click("#jotto-new")
    pg.wait_for_selector("#jotto-prompt button[data-answer='yes']")
    assert pg.inner_text("#status") == ""      # the message goes once the seed is right
    pg.click("#tab-dudo")
    pg.select_option("#dudo-variant", DUDO)
    pg.fill("#dudo-seed", str(2**64 - 1))
    pg.click("#dudo-new")
    pg.wait_for_selector("#dudo-prompt button[data-answer='yes']")
    assert f"seed {2**64 - 1}." in pg.inner_text("#dudo-log")


def test_no_review_is_offered_for_a_game_with_a_word_outside_the_list(page, site):
    """A test word not in the list (the person insisted it is a word): the review values words of the list only,
    so the game ends without offering one and says why."""
    from games.jotto.dictionary import load_dictionary

    words = list(load_dictionary(SMALL_VARIANT).words)
    mine = words[len(words) // 3]
    outside = next(a + b for a in "qxz" for b in "jvw" if a + b not in words)
    pg = page
    pg.goto(site + "/play")
    pg.wait_for_selector("body[data-ready='1']")
    pg.select_option("#jotto-variant", SMALL_VARIANT)
    pg.fill("#jotto-seed", "5")
    pg.click("#jotto-new")
    box = "#jotto-prompt"
    pg.wait_for_selector(f"{box} button[data-answer='yes']")
    pg.keyboard.press("y")
    tried = set()
    for _ in range(300):
        if pg.get_attribute("#jotto", "data-state") == "over":
            break
        pg.wait_for_selector(f"{box} .q")
        q = pg.inner_text(f"{box} .q")
        before = pg.get_attribute(box, "data-seq")
        if q == "YOUR TEST WORD:":
            if outside not in tried:
                guess = outside
            else:
                cands = pg.eval_on_selector_all("#jotto-cands-mine li", "ls => ls.map(l => l.textContent.toLowerCase())")
                guess = next(w for w in cands if w not in tried)
            tried.add(guess)
            pg.keyboard.type(guess.upper())
            pg.keyboard.press("Enter")
        elif m := re.fullmatch(r"JOTS IN (\w+) \(0-\d\):", q):
            w = m.group(1).lower()
            if w == mine:
                pg.click(f"{box} button[name='mine']")
            else:
                pg.keyboard.type(str(jots(w, mine)))
                pg.keyboard.press("Enter")
        elif m := re.fullmatch(r"(?:IS YOUR WORD|\d JOTS: SO) (\w+)(?: IS YOUR WORD)?\?", q):
            pg.keyboard.press("y" if m.group(1).lower() == mine else "n")
        elif m := re.fullmatch(r"HOW MANY JOTS DOES (\w+) HAVE\?", q):
            pg.keyboard.type(str(jots(m.group(1).lower(), mine)))
            pg.keyboard.press("Enter")
        elif q == "ARE YOU SURE THAT'S A WORD?":
            pg.keyboard.press("y")
        elif q.startswith("DO YOU WANT"):
            pg.click(f"{box} button[data-answer='no']")
        else:
            raise AssertionError(f"unexpected question {q!r}")
        wait_changed(pg, box, before)
    assert pg.get_attribute("#jotto", "data-state") == "over"
    # the game asked for a word of its list at the start, and said what the list holds
    assert (f"THINK OF YOURS, A WORD OF MY LIST (THE WORDS OF 2 DIFFERENT LETTERS THAT HAVE NO ANAGRAM: {len(words)} "
            "WORDS); DON'T TELL ME. I FIND ONLY WORDS OF MY LIST.") in pg.inner_text("#jotto-log")
    after = pg.inner_text(box)
    assert pg.query_selector(f"{box} button:has-text('Review this game')") is None, after
    assert f"No review: {outside.upper()} is not in my list" in after, after


def test_a_hangman_game_by_keys_refereed_by_the_shared_rules(page, site):
    """A whole Symmetric Hangman game typed letter by letter: a word outside the list is refused on the page, the
    program asks every letter knowing its own word (never the person's, which no call carries), and the verdict is
    the one games/hangman/game.py reaches on the same letters."""
    from games.hangman.game import ALPHABET, DRAW, WIN, Lexicon, State

    pg = page
    bodies = []
    pg.on("request", lambda r: bodies.append((r.url, r.post_data)) if "/v1/" in r.url else None)
    pg.goto(site + "/play#hangman")
    pg.wait_for_selector("body[data-ready='1']")
    assert pg.is_visible("#hangman") and "press New game to start" in pg.inner_text("#hangman-prompt")
    pg.select_option("#hangman-variant", "hangman-en_US50-5")
    pg.fill("#hangman-seed", "3")
    pg.click("#hangman-new")
    box = "#hangman-prompt"
    pg.wait_for_selector(f"{box} input")
    assert "(5 letters" in pg.inner_text(f"{box} .q")
    for typed, said in (("qqqqq", "QQQQQ is not in my word list"), ("ab", "Words here have 5 letters"),
                        ("pl4nt", "letters a-z only")):
        pg.fill(f"{box} input", typed)
        pg.keyboard.press("Enter")
        assert said in pg.inner_text(f"{box} .err")
    pg.fill(f"{box} input", "plant")
    pg.keyboard.press("Enter")
    pg.wait_for_selector(f"{box} button[data-answer='yes']")
    pg.keyboard.press("y")
    order = iter("etaoinshrdlcumwfgypbvkjxqz")
    for _ in range(30):
        pg.wait_for_function("() => document.querySelector('#hangman').dataset.state === 'over' || "
                             "document.querySelector('#hangman-prompt input')")
        if pg.get_attribute("#hangman", "data-state") == "over":
            break
        asked = set(pg.inner_text("#hangman-asked").lower().split())
        before = pg.get_attribute(box, "data-seq")
        pg.fill(f"{box} input", next(c for c in order if c not in asked))
        pg.keyboard.press("Enter")
        wait_changed(pg, box, before)
    shot(pg, "play-hangman")
    verdict = pg.inner_text("#hangman-verdict")
    program_word = re.search(r"My word for you was ([A-Z]+)\.", verdict).group(1).lower()
    letters = pg.inner_text("#hangman-asked").lower().split()
    lex = Lexicon([program_word, "plant"])
    st = State(lex, (lex.index[program_word], lex.index["plant"]), first=0)
    for c in letters:
        st.ask(ALPHABET.index(c))
    assert st.result is not None
    expected = "a draw" if st.result[0] == DRAW else "You win" if st.result[0] == WIN else "I win"
    assert expected in verdict, (verdict, letters)
    assert pg.inner_text("#hangman-mine").replace(" ", "").lower() == program_word       # shown whole at the end
    assert pg.inner_text("#hangman-yours").replace(" ", "").lower() == st.pattern(1)
    from clients.play.hangman import diagram      # the terminal's drawing of a diagram
    for who, pre, misses in (("your", "#hangman-mine-diagram", st.misses[0]), ("my", "#hangman-yours-diagram",
                                                                                 st.misses[1])):
        assert f"{who} misses {misses}/10" in pg.inner_text("#hangman")
        drawn = [line.rstrip() for line in pg.inner_text(pre).splitlines()]
        assert "\n".join(drawn).rstrip() == "\n".join(line.rstrip() for line in diagram(misses).splitlines()).rstrip()
    letter_calls = [json.loads(b) for u, b in bodies if u.endswith("/v1/SampleMove") and "CHOOSE_LETTER" in b]
    assert letter_calls and all(c["hangman"]["opponentWord"] == program_word for c in letter_calls)
    assert not any("plant" in (b or "") for _, b in bodies)
