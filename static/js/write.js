// Claim writing: the writing page (claim-form.js, with the entailed claim's evidence), and `n`
// for the next task wherever a "next" form is shown.
(function () {
  "use strict";

  // `n` opens the next task wherever a "next" form is shown (workspace, pair page).
  const nextForm = document.getElementById("next-form");
  const root = document.getElementById("write-page");
  if (!root) {
    const stale = document.querySelector("[data-clear-drafts]");
    if (stale) {
      for (const id of stale.dataset.clearDrafts.split(",")) {
        if (id) localStorage.removeItem(`sciver-draft-${id}`);
      }
    }
    if (nextForm) {
      const button = nextForm.querySelector("button");
      window.pageKeys.add([
        {
          keys: "n",
          help: button ? button.textContent.replace(/\s+n$/, "").trim().toLowerCase() : "next",
          run: () => nextForm.requestSubmit(),
        },
      ]);
    }
    return;
  }

  window.claimForm(root, {
    fields: ["entailed", "refuted", "explanation", "perturbation_kind", "suggestion", "reference_note"],
    entailedEvidence: true,
    startEvidence: () =>
      Array.from(document.querySelectorAll("input.ev")).filter((b) => b.checked).map((b) => b.value),
  });

  // The reason box for a claim naming a table or figure not among its evidence: shown with that
  // warning (recomputed as the writer types and marks), or while it holds a reason.
  const reason = document.getElementById("reference-reason");
  document.body.addEventListener("htmx:afterSwap", (event) => {
    if (!reason || event.detail.target.id !== "warnings") return;
    const warned = event.detail.target.querySelector('[data-code="reference_mismatch"]') !== null;
    reason.hidden = !warned && !document.getElementById("id_reference_note").value.trim();
  });
})();
