"""The Square Game in the admin: a picture of the board, the save file, and importing a save.

`SquareGameAdminMixin` adds to the Game admin (staff only, like all of it):

- on a Square game's page, a picture of its board (each seat's segments in its colour, closed
  squares shaded) and a button that downloads the game as the original save file;
- on the list of games, "Import a Square Game save": an upload form at
  ``admin/games/game/import-save/`` that turns a save file into a live game which continues.
"""

from __future__ import annotations

import json

from django import forms
from django.contrib import admin, messages
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from games import services
from games.admin import GameAdmin
from games.errors import GameError, RuleError
from games.models import Game
from games.rules import get_rules
from squaregame.api import save_response, square_game
from squaregame.rules import SAVE_PLAYERS_DEFAULT, board_svg, clean_save

MAX_SAVE_BYTES = 1_000_000
SQUARE_FIELDS = ("board_picture", "save_link")


class SaveImportForm(forms.Form):
    save_file = forms.FileField(
        label="Save file",
        help_text='A Square Game save in the original JSON format ({"board": [], "moves": '
        "[...]}), as downloaded from a game.",
    )
    players = forms.TypedChoiceField(
        choices=[(n, str(n)) for n in (2, 3, 4)],
        coerce=int,
        initial=SAVE_PLAYERS_DEFAULT,
        help_text="A save does not record how many played; the original loaded saves with 4.",
    )

    def clean_save_file(self):
        upload = self.cleaned_data["save_file"]
        if upload.size > MAX_SAVE_BYTES:
            raise forms.ValidationError(
                f"The file is too large ({upload.size} bytes); a save is at most "
                f"{MAX_SAVE_BYTES} bytes."
            )
        try:
            data = json.loads(upload.read().decode("utf-8"))
        except UnicodeDecodeError:
            raise forms.ValidationError("The file is not text (UTF-8): is it a save?") from None
        except json.JSONDecodeError as error:
            raise forms.ValidationError(
                f"The file is not valid JSON: {error.msg} at line {error.lineno} column "
                f"{error.colno}."
            ) from None
        except RecursionError:
            message = "The file is not a save: its JSON is nested too deeply."
            raise forms.ValidationError(message) from None
        try:
            return clean_save(data)
        except RuleError as error:
            raise forms.ValidationError(str(error)) from None


class SquareGameAdminMixin:
    """Hook the Square Game's picture, save download and save import into a Game admin."""

    change_list_template = "admin/games/game/square_change_list.html"

    def get_readonly_fields(self, request, obj=None):
        return (*super().get_readonly_fields(request, obj), *SQUARE_FIELDS)

    def get_fields(self, request, obj=None):
        fields = [f for f in super().get_fields(request, obj) if f not in SQUARE_FIELDS]
        if obj is None or obj.kind != Game.Kind.SQUARE:
            return fields
        at = fields.index("state_pretty") if "state_pretty" in fields else len(fields)
        return [*fields[:at], *SQUARE_FIELDS, *fields[at:]]

    @admin.display(description="board")
    def board_picture(self, game: Game) -> str:
        if game.kind != Game.Kind.SQUARE or not game.state:
            return "-"
        view = get_rules(game.kind).view(game.state, None, 0)
        # board_svg builds the SVG from numbers and escaped names only.
        return mark_safe(f'<div class="square-board-admin">{board_svg(view)}</div>')

    @admin.display(description="save file")
    def save_link(self, game: Game) -> str:
        if game.kind != Game.Kind.SQUARE or not game.pk:
            return "-"
        url = reverse("admin:games_game_square_save", args=[game.pk])
        return format_html(
            '<a class="button" href="{}">Download the game as a Square Game save file</a>', url
        )

    def get_urls(self):
        site = self.admin_site
        return [
            path(
                "import-save/",
                site.admin_view(self.import_save_view),
                name="games_game_square_import",
            ),
            path(
                "<int:game_id>/save/",
                site.admin_view(self.save_view),
                name="games_game_square_save",
            ),
            *super().get_urls(),
        ]

    def save_view(self, request, game_id: int):
        try:
            game = square_game(game_id)
        except GameError as error:
            messages.error(request, error.message)
            return redirect("admin:games_game_changelist")
        return save_response(game)

    def import_save_view(self, request):
        """Upload a save file; it becomes a new live game at the loaded position."""
        form = SaveImportForm(request.POST or None, request.FILES or None)
        status = 200
        if request.method == "POST":
            status = 400
            if form.is_valid():
                try:
                    game = services.game_create(
                        kind=Game.Kind.SQUARE,
                        options={
                            "players": form.cleaned_data["players"],
                            "save": form.cleaned_data["save_file"],
                        },
                    )
                except GameError as error:
                    form.add_error("save_file", error.message)
                else:
                    moves = len(form.cleaned_data["save_file"]["moves"])
                    messages.success(
                        request,
                        f"Imported the save as {game}: {moves} moves loaded; it waits for "
                        f"{game.options['players']} players to join at /square/{game.pk}/.",
                    )
                    return redirect("admin:games_game_change", game.pk)
        context = {
            **self.admin_site.each_context(request),
            "title": "Import a Square Game save",
            "form": form,
            "opts": self.model._meta,
        }
        return TemplateResponse(
            request, "admin/games/game/square_import.html", context, status=status
        )


# The games' admin, with the Square Game's board, save and import added (games.admin registers
# the platform's; this app, installed after it, extends it).
admin.site.unregister(Game)


@admin.register(Game)
class GameAdminWithSquares(SquareGameAdminMixin, GameAdmin):
    pass
