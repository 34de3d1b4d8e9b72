// The validation page: the validator's choices and edits autosave on the server as a draft
// (a reload puts them back), leaving with changes not saved yet asks first, and the keys:
// `Ctrl+Enter` submit, `j`/`k` piece of context, `]`/`[` next/previous evidence, `x`/`Space`
// evidence, `1`–`5` criteria, `t`/`s`/`l`/`p` claim, subset, label and explanation, `Esc` leave a
// text box. The context opens scrolled to its first evidence.
(function () {
  "use strict";

  const root = document.getElementById("validate-page");
  if (!root) return;
  const form = document.getElementById("validate-form");
  const context = document.getElementById("context");
  let current = null;

  const field = (name) => form.elements.namedItem(name);
  const boxes = () => Array.from(document.querySelectorAll("input[name=evidence]"));
  const pieces = () => Array.from(document.querySelectorAll(".piece"));
  const evidence = () => pieces().filter((p) => p.classList.contains("evidence"));
  const criteria = () => Array.from(form.querySelectorAll("input[name=criteria_failed]"));

  function collect() {
    const explanation = field("explanation");
    return {
      text: field("text").value,
      subset: field("subset").value,
      label: field("label").value,
      explanation: explanation ? explanation.value : "",
      evidence: boxes().filter((b) => b.checked).map((b) => parseInt(b.value, 10)),
      criteria_failed: criteria().filter((b) => b.checked).map((b) => b.value),
    };
  }

  // A draft kept in this browser, put back.
  function apply(draft) {
    for (const name of ["text", "subset", "label", "explanation"]) {
      if (field(name) && typeof draft[name] === "string") field(name).value = draft[name];
    }
    const chosen = new Set((draft.evidence || []).map(String));
    for (const box of boxes()) box.checked = chosen.has(box.value);
    const failed = new Set(draft.criteria_failed || []);
    for (const box of criteria()) box.checked = failed.has(box.value);
    refresh();
  }

  function refresh() {
    for (const box of boxes()) box.closest(".piece").classList.toggle("evidence", box.checked);
  }

  // Drafts and refusals (static/js/autosave.js): this browser first, then the server; leaving
  // with a change the server has not got asks first.
  const drafts = window.workAutosave({
    root, form, collect, apply, state: document.getElementById("draft-state"), delay: 600,
    guardUnload: true,
  });

  function changed() {
    refresh();
    drafts.changed();
  }

  document.addEventListener("change", (event) => {
    if (event.target.closest("#validate-page")) changed();
  });
  form.addEventListener("input", (event) => {
    if (event.target.matches("textarea")) changed();
  });

  function setCurrent(piece, scroll) {
    if (current) current.classList.remove("current");
    current = piece;
    if (!piece) return;
    piece.classList.add("current");
    if (scroll) {
      piece.scrollIntoView({ block: "nearest" });
      piece.focus({ preventScroll: true });
    }
  }

  // The piece at the top of the context box (its own scroll), the window left where it is
  // unless the box's top is out of it.
  // Images, formulas and fonts above it that arrive later push it down: it is kept there until
  // the person scrolls the context or moves with a key.
  let pinned = null;
  function toTop(piece) {
    context.scrollTop += piece.getBoundingClientRect().top - context.getBoundingClientRect().top - 8;
  }
  function reveal(piece) {
    pinned = piece;
    toTop(piece);
    const top = context.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight - 80) context.scrollIntoView({ block: "start" });
  }
  const resized = new ResizeObserver(() => pinned && toTop(pinned));
  context.addEventListener("load", () => pinned && toTop(pinned), true); // an image, at once
  for (const piece of pieces()) resized.observe(piece);
  for (const name of ["wheel", "touchstart", "mousedown", "keydown"]) {
    context.addEventListener(name, () => (pinned = null), { passive: true });
  }

  // `]`/`[`: the next/previous evidence after the current piece, round the end.
  function jump(step) {
    const marked = evidence();
    if (!marked.length) return;
    const all = pieces();
    const at = current ? all.indexOf(current) : step > 0 ? -1 : all.length;
    const ahead = step > 0 ? marked.filter((p) => all.indexOf(p) > at) : marked.filter((p) => all.indexOf(p) < at).reverse();
    const piece = ahead[0] || (step > 0 ? marked[0] : marked[marked.length - 1]);
    setCurrent(piece, false);
    reveal(piece);
    piece.focus({ preventScroll: true });
  }

  function move(step) {
    pinned = null;
    const list = pieces();
    if (!list.length) return;
    const index = current ? list.indexOf(current) : -1;
    setCurrent(list[Math.min(list.length - 1, Math.max(0, index + step))], true);
  }

  function toggle(box) {
    if (!box || box.disabled) return;
    box.checked = !box.checked;
    box.dispatchEvent(new Event("change", { bubbles: true }));
  }

  document.addEventListener("click", (event) => {
    const piece = event.target.closest(".piece");
    if (piece) setCurrent(piece, false);
  });
  document.addEventListener("focusin", (event) => {
    const piece = event.target.closest && event.target.closest(".piece");
    if (piece && piece !== current) setCurrent(piece, false);
  });

  // The keys (static/js/keys.js). Ctrl+Enter, the fields (`t`/`s`/`l`/`p`) and the criteria
  // (`1`–`5`) are data-key on their elements in the template.
  window.pageKeys.add([
    { keys: "j k", help: "next/previous piece of context", run: (key) => move(key === "j" ? 1 : -1) },
    { keys: "] [", help: "next/previous evidence", run: (key) => jump(key === "]" ? 1 : -1) },
    {
      keys: "x Space",
      label: "x or Space",
      help: "mark/unmark it as evidence",
      run: () => current && toggle(current.querySelector("input[name=evidence]")),
    },
  ]);

  refresh();
  drafts.restoreLocal();
  // The context opens at its first evidence (the page's top stays where it is), the current
  // piece for j/k and `]`.
  const first = evidence()[0];
  if (first) {
    setCurrent(first, false);
    pinned = first;
    toTop(first);
  }
})();
