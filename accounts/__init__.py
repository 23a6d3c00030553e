"""Accounts: sign up, log in, log out and change password with django-allauth, and the link from
an account to the browser's player (the platform's guest)."""
