// One question at a time, answered with the keyboard or the mouse, and a transcript of the game.
let ids = 0;

export class Log {
  constructor(el) { this.el = el; }
  clear() { this.el.replaceChildren(); }
  say(text, cls = "") {
    const d = document.createElement("div");
    d.textContent = text;
    if (cls) d.className = cls;
    this.el.append(d);
    this.el.scrollTop = this.el.scrollHeight;
  }
}

export class Prompt {
  constructor(box) { this.box = box; this.cancel = null; }

  // No question open: a line that says what to do next instead of an empty box.
  idle(text) {
    this.clear();
    this.box.append(el("span", "idle", text));
  }

  clear() {
    if (this.cancel) this.cancel();
    this.cancel = null;
    this.box.replaceChildren();
  }

  _open(build) {
    this.clear();
    this.box.dataset.seq = ++ids;  // a new question (tests wait for it)
    return new Promise((resolve, reject) => {
      this.cancel = () => reject(new Error("abandoned"));
      build((v) => { this.cancel = null; this.box.replaceChildren(); resolve(v); });
    });
  }

  // Yes / No buttons; the keys Y and N answer too.
  yesNo(question) {
    return this._open((done) => {
      const q = el("span", "q", question);
      const yes = button("Yes (Y)", () => done(true), "primary");
      const no = button("No (N)", () => done(false));
      yes.dataset.answer = "yes"; no.dataset.answer = "no";
      const g = el("div");
      g.setAttribute("role", "group");
      g.setAttribute("aria-label", question);
      g.append(q, yes, " ", no);
      g.addEventListener("keydown", (ev) => {
        if (ev.key === "y" || ev.key === "Y") { ev.preventDefault(); done(true); }
        if (ev.key === "n" || ev.key === "N") { ev.preventDefault(); done(false); }
      });
      this.box.append(g);
      yes.focus();
    });
  }

  // A text field with its label and submit button, and extra buttons that answer {extra: value}.
  // check(text) returns an error message (shown, the field kept) or null.
  text(label, { hint = "", extras = [], check = null, size = 12, submit = "OK", inputmode = "text" } = {}) {
    return this._open((done) => {
      const id = `p${++ids}`;
      const f = el("form");
      const l = el("label", "q", label);
      l.htmlFor = id;
      const i = el("input");
      Object.assign(i, { id, size, autocomplete: "off", spellcheck: false });
      i.setAttribute("inputmode", inputmode);
      i.setAttribute("aria-describedby", `${id}-err ${id}-hint`);
      const err = el("div", "err", "");
      err.id = `${id}-err`;
      err.setAttribute("role", "alert");
      const h = el("span", "hint", hint);
      h.id = `${id}-hint`;
      f.append(l, i, " ", el("button", "primary", submit));
      for (const x of extras) {
        const b = button(x.label, () => done({ extra: x.value }));
        b.type = "button";
        if (x.name) b.name = x.name;
        f.append(" ", b);
      }
      f.append(err, h);
      f.addEventListener("submit", (ev) => {
        ev.preventDefault();
        const t = i.value.trim();
        const bad = check ? check(t) : null;
        if (bad) { err.textContent = bad; i.select(); return; }
        done({ text: t });
      });
      this.box.append(f);
      i.focus();
    });
  }

  // A whole number lo..hi (extras as in text()).
  async number(label, lo, hi, opts = {}) {
    const r = await this.text(label, {
      ...opts, size: 4, inputmode: "numeric",
      check: (t) => (/^\d+$/.test(t) && +t >= lo && +t <= hi) ? (opts.check ? opts.check(+t) : null)
        : `Type a whole number from ${lo} to ${hi}.`,
    });
    return r.extra !== undefined ? r : { value: +r.text };
  }

  // Buttons, one per choice (e.g. the legal claims); resolves with the chosen value.
  choose(label, choices) {
    return this._open((done) => {
      const g = el("div", "legal");
      g.setAttribute("role", "group");
      g.setAttribute("aria-label", label);
      const q = el("div", "q", label);
      this.box.append(q, g);
      for (const c of choices) {
        const b = button(c.label, () => done(c.value), c.primary ? "primary" : "");
        if (c.title) b.title = c.title;
        g.append(b);
      }
      g.querySelector("button")?.focus();
    });
  }
}

export function el(tag, cls = "", text = null) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== null) e.textContent = text;
  return e;
}

export function button(label, onclick, cls = "") {
  const b = el("button", cls, label);
  b.type = "button";
  b.addEventListener("click", onclick);
  return b;
}
