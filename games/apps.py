from django.apps import AppConfig


class GamesConfig(AppConfig):
    """The games platform: players, games, seats and the move log."""

    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from django.core import checks
        from django.db.models.signals import post_save

        from games import (
            limits,
            metrics,
            moderation,
            tournaments,  # noqa: F401 (its hook on games' ends)
        )
        from games.models import Player

        checks.register(limits.check_settings, checks.Tags.compatibility)
        checks.register(metrics.check_settings, checks.Tags.compatibility)
        # A player made for a banned account (its first game after the ban) is banned too.
        post_save.connect(
            moderation.hold_ban_of_new_player, sender=Player, dispatch_uid="games-hold-ban"
        )
