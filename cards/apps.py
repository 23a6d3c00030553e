from django.apps import AppConfig


class CardsConfig(AppConfig):
    """Set and Set War: their engines (cards.engine, pure Python), their rules on the platform,
    the Set toolkit API, Set War's API and pages, and the Set server's text protocol."""

    name = "cards"
    verbose_name = "Set cards"

    def ready(self) -> None:
        # Each kind registers itself with the platform's rules registry, and the documented
        # body of its create request with the games API.
        from cards import rules, serializers  # noqa: F401
        from cards.pages import replay_config
        from cards.setwar import rules as setwar_rules  # noqa: F401
        from games.pages import register_page_config

        # A replay draws and names the cards from the server's words for the table's deck.
        register_page_config("set", replay_config)
