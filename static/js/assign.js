// Assignment page: select all papers on the page, and show how many are selected.
(function () {
  "use strict";
  const all = document.getElementById("select-all");
  const form = document.getElementById("assign-form");
  if (!all || !form) return;
  const boxes = () => Array.from(form.querySelectorAll('input[name="papers"]'));
  const count = document.getElementById("selected-count");
  function refresh() {
    const n = boxes().filter((b) => b.checked).length;
    count.textContent = n ? `${n} selected.` : "";
    all.checked = n > 0 && n === boxes().length;
  }
  all.addEventListener("change", () => {
    for (const box of boxes()) box.checked = all.checked;
    refresh();
  });
  form.addEventListener("change", (event) => {
    if (event.target.name === "papers") refresh();
  });
  refresh();
})();
