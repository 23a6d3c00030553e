from django.apps import AppConfig


class GamesConfig(AppConfig):
    """The games platform: players, games, seats and the move log."""

    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from django.core import checks

        from games import limits, metrics

        checks.register(limits.check_settings, checks.Tags.compatibility)
        checks.register(metrics.check_settings, checks.Tags.compatibility)
