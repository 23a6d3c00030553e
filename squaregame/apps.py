from django.apps import AppConfig


class SquareGameConfig(AppConfig):
    """The Square Game: the engine (squaregame.engine, pure Python), its rules on the platform,
    its API, pages, admin and commands."""

    name = "squaregame"
    verbose_name = "Square Game"

    def ready(self) -> None:
        # The kind registers itself with the platform's rules registry, and the documented body
        # of its create request with the games API.
        from squaregame import rules, serializers  # noqa: F401
