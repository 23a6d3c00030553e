from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self):
        # Connect the receivers that hand a browser's guest player to the account it signs in to.
        from accounts import signals  # noqa: F401
        from accounts.selectors import name_taken
        from accounts.tokens import token_account, token_seat
        from games.auth import register_account_names, register_account_tokens

        # The platform reads "Authorization: Bearer" itself and asks here whose token it is,
        # and whether a guest's name is an account's.
        register_account_tokens(token_account, token_seat)
        register_account_names(name_taken)
