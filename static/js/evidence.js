// Shared by the writing, re-perturbation and review pages (loaded before their own scripts).
(function () {
  "use strict";

  // One element, one box: the whole context (loaded on demand) replaces an element the page
  // already shows (e.g. evidence marked earlier, under "Other evidence you marked") with a line
  // pointing at it, as the server does for what it knew when it rendered the context.
  window.dropRepeatedEvidence = function (container) {
    for (const item of Array.from(container.querySelectorAll(".ev-item"))) {
      const above = Array.from(document.querySelectorAll(`.ev-item[data-ev="${item.dataset.ev}"]`))
        .find((other) => !container.contains(other));
      if (!above) continue;
      const line = document.createElement("p");
      line.className = "muted small shown-above";
      const link = document.createElement("a");
      link.href = `#${above.id}`;
      const box = item.querySelector("input[aria-label]");
      link.textContent = box ? box.getAttribute("aria-label").replace(/^[^:]*: /, "") : above.id;
      line.append(link, " — shown above");
      item.replaceWith(line);
    }
  };
})();
