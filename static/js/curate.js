// Curation page: live counts, the proposal, and keyboard operation (the form works without it).
(function () {
  "use strict";
  const form = document.getElementById("curation");
  if (!form) return;
  const minVisuals = parseInt(form.dataset.minVisuals || "3", 10);
  const sections = Array.from(form.querySelectorAll(".cur-section"));
  const byId = new Map(sections.map((s) => [s.dataset.section, s]));
  let current = null;
  let dirty = false;

  function ownKept(box) {
    // A box held off by a removed section keeps its own choice in a hidden own-keep field.
    if (!box.disabled) return box.checked;
    return !!box.parentElement.querySelector("input.own-keep");
  }

  function sectionKept(section) {
    return ownKept(section.querySelector(":scope > .cur-heading input.keep"));
  }

  function hold(box, held) {
    // Inside a removed section an item is removed with it: its box is off and disabled, and
    // its own choice waits in a hidden field (posted, so a save keeps it) until the section
    // comes back. The server renders the same (templates/annotation/curate.html).
    const label = box.parentElement;
    const name = box.dataset.name || "";
    if (held && !box.disabled) {
      if (box.checked) {
        const own = document.createElement("input");
        own.type = "hidden";
        own.className = "own-keep";
        own.name = box.name;
        own.value = box.value;
        box.after(own);
      }
      box.checked = false;
      box.disabled = true;
    } else if (!held && box.disabled) {
      const own = label.querySelector("input.own-keep");
      box.checked = !!own;
      if (own) own.remove();
      box.disabled = false;
    }
    const words = label.querySelector(".w-removed");
    if (words) words.textContent = held ? "removed with its section" : "removed";
    if (name) {
      const capital = name.charAt(0).toUpperCase() + name.slice(1);
      box.setAttribute("aria-label", held ? `${capital}: removed with its section` : `Keep ${name}`);
    }
  }

  function inContext(section) {
    // A section counts only if it and all its ancestors are kept (the server's rule too).
    const seen = new Set();
    let node = section;
    while (node && !seen.has(node)) {
      if (!sectionKept(node)) return false;
      seen.add(node);
      node = byId.get(node.dataset.parent || "");
    }
    return true;
  }

  function refresh() {
    const counts = { tables: 0, charts: 0, not_charts: 0, paragraphs: 0 };
    for (const section of sections) {
      const live = inContext(section);
      const parent = byId.get(section.dataset.parent || "");
      const held = !!parent && !inContext(parent);
      hold(section.querySelector(":scope > .cur-heading input.keep"), held);
      const kept = sectionKept(section);
      section.classList.toggle("removed", !kept || held);
      section.classList.toggle("with-section", held);
      section.classList.toggle("out", !live);
      for (const item of section.querySelectorAll(".cur-element")) {
        const box = item.querySelector("input.keep");
        hold(box, !live);
        const keep = box.checked;
        const notChart = item.querySelector("input.notchart");
        item.classList.toggle("removed", !keep);
        item.classList.toggle("with-section", !live);
        item.classList.toggle("not-chart", !!(notChart && notChart.checked));
        if (!live || !keep) continue;
        const kind = item.dataset.kind;
        if (kind === "table") counts.tables += 1;
        else if (kind === "chart") counts[notChart && notChart.checked ? "not_charts" : "charts"] += 1;
        else counts.paragraphs += 1;
      }
    }
    for (const [key, value] of Object.entries(counts)) {
      const el = form.querySelector(`[data-count="${key}"]`);
      if (el) el.textContent = String(value);
    }
    const visuals = counts.tables + counts.charts;
    const flag = document.getElementById("ctx-ready");
    const ready = visuals >= minVisuals;
    flag.classList.toggle("ready", ready);
    flag.classList.toggle("not-ready", !ready);
    flag.textContent = ready
      ? "Ready for claims: at least three tables/charts."
      : `Not ready for claims: needs at least three tables/charts, has ${visuals}.`;
    const proposalState = document.getElementById("proposal-state");
    if (proposalState) {
      const left = sections.filter((s) => s.dataset.proposed === "root" && sectionKept(s)).length;
      proposalState.textContent = left
        ? `${left} proposed section(s) still kept.`
        : "All proposed sections are removed; restore any with its keep box.";
    }
  }

  function markDirty() {
    dirty = true;
    document.getElementById("dirty-flag").hidden = false;
  }

  function visibleItems() {
    // Items removed with their section are skipped: their boxes are disabled.
    const held = ":scope > .keep-toggle input.keep:disabled";
    return Array.from(form.querySelectorAll("[data-item]")).filter(
      (el) => el.offsetParent !== null && !el.querySelector(held),
    );
  }

  function setCurrent(item, scroll) {
    if (current) current.classList.remove("current");
    current = item;
    if (!item) return;
    item.classList.add("current");
    const box = item.querySelector("input.keep");
    if (box && document.activeElement !== box) box.focus({ preventScroll: true });
    if (scroll) item.scrollIntoView({ block: "center", behavior: "instant" });
  }

  function move(step, headingsOnly) {
    const items = visibleItems().filter((el) => !headingsOnly || el.classList.contains("cur-heading"));
    if (!items.length) return;
    let index = current ? items.indexOf(current) : -1;
    if (index === -1 && current && headingsOnly) {
      // From an element, J goes to the next section's heading, K to its own.
      const own = current.closest(".cur-section").querySelector(".cur-heading");
      index = items.indexOf(own) + (step > 0 ? 0 : 1);
    }
    const next = items[Math.min(items.length - 1, Math.max(0, index + step))];
    setCurrent(next, true);
  }

  function toggle(box) {
    if (!box || box.disabled) return;
    box.checked = !box.checked;
    box.dispatchEvent(new Event("change", { bubbles: true }));
  }

  function acceptProposal() {
    for (const section of sections) {
      if (section.dataset.proposed === "root") {
        const box = section.querySelector(":scope > .cur-heading input.keep");
        const own = box.disabled && box.parentElement.querySelector("input.own-keep");
        if (own) {
          own.remove(); // held by a removed section: its own choice becomes "removed"
          markDirty();
        } else if (box.checked) toggle(box);
      }
    }
    refresh();
  }

  form.addEventListener("change", () => {
    markDirty();
    refresh();
  });
  form.addEventListener("focusin", (event) => {
    const item = event.target.closest("[data-item]");
    if (item && item !== current) setCurrent(item, false);
  });
  form.addEventListener("submit", () => {
    dirty = false;
  });
  window.addEventListener("beforeunload", (event) => {
    if (dirty) event.preventDefault();
  });
  // Saving and its refusals (static/js/autosave.js): the save goes by fetch, and a version
  // saved meanwhile is said at once, with where it differs from these choices, which stay:
  // "Keep mine" saves them as the version after it, "Take version N" opens that one.
  window.workAutosave({
    root: form,
    form,
    versionField: "latest_seen",
    onRefused: (answer) => {
      markDirty();
      const save = document.getElementById("save");
      if (answer.version && save && save.firstChild) {
        save.firstChild.textContent = `Save as version ${parseInt(answer.version, 10) + 1} `;
      }
    },
  });
  document.addEventListener("click", (event) => {
    if (event.target.closest("#take-theirs")) dirty = false; // their version replaces these choices
  });
  const accept = document.getElementById("accept-proposal");
  if (accept) accept.addEventListener("click", acceptProposal);

  // `a` (accept the proposal) and `s` (save) are their buttons' data-key (templates/annotation/curate.html).
  window.pageKeys.add([
    { keys: "j k", help: "next/previous item", run: (key) => move(key === "j" ? 1 : -1, false) },
    { keys: "J K", help: "next/previous section", run: (key) => move(key === "J" ? 1 : -1, true) },
    { keys: "x", help: "remove/restore the item", run: () => current && toggle(current.querySelector("input.keep")) },
    {
      keys: "c",
      help: "not a chart (a figure)",
      run: () => current && toggle(current.querySelector("input.notchart")),
    },
    {
      keys: "t",
      help: "show/hide a table's HTML",
      run: () => {
        const details = current && current.querySelector("details");
        if (details) details.open = !details.open;
      },
    },
  ]);

  refresh();
})();
