from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self):
        # Connect the receivers that hand a browser's guest player to the account it signs in to.
        from accounts import signals  # noqa: F401
