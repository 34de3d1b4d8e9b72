"""Turn parsed tables (and inline SVG figures) into PNG images, with Chromium or with Pillow.

`renderer` opens one (Chromium when it starts, else Pillow); `chromium` drives a headless
browser over `markup`'s page; `pillow` draws a table from its cell grids; `limits` holds what
both refuse before laying anything out, and the errors they raise; `mathtext` spells simple
inline TeX as text for both. Pure: no Django, no database."""
