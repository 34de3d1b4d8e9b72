"""Charts drawn on the server as inline SVG (pure: the standard library only)."""
