"""What every page's template knows: the display choices the browser remembers."""

from __future__ import annotations


def display(request) -> dict[str, str]:
    """Return the theme ("light", "dark" or "auto") and the color-blind marks ("1" or "0").

    The header's buttons remember them in two cookies; the page is drawn with them on <html>, so
    the first paint is already right and no script has to run before it (the CSP forbids inline
    scripts).
    """
    theme = request.COOKIES.get("theme")
    return {
        "display_theme": theme if theme in ("light", "dark") else "auto",
        "display_colorblind": "1" if request.COOKIES.get("colorblind") == "1" else "0",
    }
