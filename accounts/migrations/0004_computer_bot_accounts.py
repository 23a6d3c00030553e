"""The built-in computer players become bot accounts of their own (issue 26): one account per
computer speed, named ``Computer_<speed>`` (a number after it where a person has a name like
it), with an unusable password (nobody logs in as it), a name row (so nobody signs up as it, nor
takes the name as a guest), its bot row (games.models.BotAccount, with its speed) and the player
that sits at every computer seat of that speed from now on. Computer seats made before keep
their account-less players: those games stay unrated as they were."""

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.db import migrations

from games.names import name_key

# The speeds of games.planning.COMPUTER_SPEEDS_S as this migration was written.
SPEEDS = ("slow", "medium", "fast", "instant")


def make_computer_accounts(apps, schema_editor):
    users = apps.get_model(settings.AUTH_USER_MODEL)
    names = apps.get_model("accounts", "AccountName")
    bots = apps.get_model("games", "BotAccount")
    players = apps.get_model("games", "Player")
    for speed in SPEEDS:
        if bots.objects.filter(speed=speed).exists():
            continue
        base = f"Computer_{speed}"
        number = 1
        name = base
        while (
            users.objects.filter(username__iexact=name).exists()
            or names.objects.filter(key=name_key(name)).exists()
        ):
            number += 1
            name = f"{base}{number}"
        user = users.objects.create(username=name, password=make_password(None))
        names.objects.update_or_create(user=user, defaults={"key": name_key(name)})
        bots.objects.create(user=user, speed=speed)
        players.objects.create(name=name, user=user, is_computer=True)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_account_name_key"),
        ("games", "0010_bot_accounts"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(make_computer_accounts, migrations.RunPython.noop)]
