"""What every page's template knows: the display choices the browser remembers."""

from __future__ import annotations


def manners(request) -> dict:
    """For a signed-in account's pages: the report dialog's reasons (games.moderation's), its
    mutes and bans in force (a notice that says why and until when), and whether it moderates."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    from games import moderation

    return {
        "report_reasons": list(moderation.REASONS.items()),
        "report_note_max": moderation.NOTE_MAX,
        "my_sanctions": lambda: moderation.sanctions_of(user.pk),
        "is_moderator": lambda: moderation.is_moderator(user),
    }


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
