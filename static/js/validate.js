// The validation page: the validator's choices and edits autosave on the server as a draft
// (a reload puts them back), leaving with changes not saved yet asks first, and the keys:
// `Ctrl+Enter` submit, `j`/`k` piece of context, `x`/`Space` evidence, `1`–`5` criteria,
// `t`/`s`/`l`/`p` claim, subset, label and explanation, `Esc` leave a text box.
(function () {
  "use strict";

  const root = document.getElementById("validate-page");
  if (!root) return;
  const form = document.getElementById("validate-form");
  const editable = root.dataset.editable === "1";
  const state = document.getElementById("draft-state");
  let current = null;
  let timer = null;
  let retry = null;
  let dirty = false; // changes the server has not got yet
  let submitting = false;

  const field = (name) => form.elements.namedItem(name);
  const boxes = () => Array.from(document.querySelectorAll("input[name=evidence]"));
  const pieces = () => Array.from(document.querySelectorAll(".piece"));
  const criteria = () => Array.from(form.querySelectorAll("input[name=criteria_failed]"));
  const typing = (t) => t.matches("textarea, select, input:not([type=checkbox]):not([type=radio])");
  const control = (t) => t.matches("input, button, select, textarea, summary, a[href]");

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

  function say(text, offline) {
    if (!state) return;
    state.textContent = text;
    state.classList.toggle("offline", !!offline);
  }

  async function save() {
    clearTimeout(retry);
    try {
      const response = await fetch(root.dataset.draftUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRFToken": field("csrfmiddlewaretoken").value },
        body: JSON.stringify({ version: parseInt(root.dataset.version, 10), draft: collect() }),
        credentials: "same-origin",
      });
      const data = await response.json().catch(() => ({}));
      if (response.ok) {
        if (!timer) dirty = false; // nothing changed while the draft was on its way
        say(`Draft saved ${data.saved_at}.`, false);
      } else {
        say(`${data.error || "The draft was not saved."} Keep this page open to keep your changes.`, true);
      }
    } catch (error) {
      say("Offline: not saved yet; saved when the connection returns. Keep this page open.", true);
      retry = setTimeout(save, 5000);
    }
  }

  function refresh() {
    for (const box of boxes()) box.closest(".piece").classList.toggle("evidence", box.checked);
  }

  function changed() {
    refresh();
    if (!editable || submitting) return;
    dirty = true;
    say("Unsaved changes…", false);
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      save();
    }, 600);
  }

  document.addEventListener("change", (event) => {
    if (event.target.closest("#validate-page")) changed();
  });
  form.addEventListener("input", (event) => {
    if (event.target.matches("textarea")) changed();
  });
  form.addEventListener("submit", (event) => {
    if (submitting) {
      event.preventDefault(); // a double press: the first submission is on its way
      return;
    }
    submitting = true;
    dirty = false; // the submission carries everything a pending autosave would
    clearTimeout(timer);
    clearTimeout(retry);
  });
  window.addEventListener("beforeunload", (event) => {
    if (dirty && !submitting) event.preventDefault();
  });
  window.addEventListener("online", () => dirty && editable && save());

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

  function move(step) {
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

  document.addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      event.preventDefault();
      if (editable) form.requestSubmit();
      return;
    }
    if (event.key === "Escape" && typing(event.target)) {
      event.target.blur();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    const focus = (name) => () => field(name) && field(name).focus();
    const actions = {
      j: () => move(1),
      k: () => move(-1),
      x: () => current && toggle(current.querySelector("input[name=evidence]")),
      t: focus("text"),
      s: focus("subset"),
      l: focus("label"),
      p: focus("explanation"),
    };
    // Space on a focused box or button is that control's own; on a piece it marks the piece.
    if (event.key === " " && !control(event.target)) actions[" "] = actions.x;
    if (/^[1-5]$/.test(event.key)) actions[event.key] = () => toggle(criteria()[parseInt(event.key, 10) - 1]);
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  });

  refresh();
})();
