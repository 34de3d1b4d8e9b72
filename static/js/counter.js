// A counter under every text field with a limit (`data-max`, or `maxlength`): "120 / 5,000
// characters", marked once the text is longer than the field takes (the form refuses it,
// naming the limit; the text is never cut). No inline script: the CSP forbids it.
(function () {
  "use strict";
  const number = new Intl.NumberFormat("en-US");

  function limitOf(field) {
    const max = parseInt(field.dataset.max || field.getAttribute("maxlength") || "", 10);
    return Number.isFinite(max) && max > 0 ? max : 0;
  }

  function attach(field) {
    const max = limitOf(field);
    if (!max || field.dataset.counted) return;
    field.dataset.counted = "1";
    const counter = document.createElement("span");
    counter.className = "char-counter small muted";
    counter.setAttribute("aria-live", "polite");
    if (field.id) counter.id = field.id + "-counter";
    const update = function () {
      const length = field.value.length;
      counter.textContent = number.format(length) + " / " + number.format(max) + " characters";
      counter.classList.toggle("over", length > max);
      if (length > max) counter.textContent += " (too long: shorten it)";
    };
    field.insertAdjacentElement("afterend", counter);
    field.addEventListener("input", update);
    update();
  }

  function attachAll(root) {
    root.querySelectorAll("textarea[data-max], input[data-max], textarea[maxlength]").forEach(attach);
  }

  document.addEventListener("DOMContentLoaded", function () { attachAll(document); });
  document.addEventListener("htmx:afterSwap", function (event) { attachAll(event.target); });
})();
