from django.apps import AppConfig


class SquareGameConfig(AppConfig):
    """The Square Game: the engine (squaregame.engine, pure Python) and its Django commands."""

    name = "squaregame"
    verbose_name = "Square Game"
