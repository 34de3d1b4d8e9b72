// Inputs marked data-select-on-focus select their whole text when focused (one-time links).
// A file, not an onfocus attribute: the Content-Security-Policy allows no inline handler.
document.addEventListener("focusin", (event) => {
  if (event.target instanceof HTMLInputElement && event.target.hasAttribute("data-select-on-focus")) {
    event.target.select();
  }
});
