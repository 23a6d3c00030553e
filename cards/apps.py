from django.apps import AppConfig


class CardsConfig(AppConfig):
    """The Set card games: the engine (cards.engine, pure Python) and its Django commands."""

    name = "cards"
    verbose_name = "Set cards"
