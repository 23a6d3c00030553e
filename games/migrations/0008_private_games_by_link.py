import secrets

from django.db import migrations, models


def keys_for_private_games(apps, schema_editor):
    """A Set table made not open was private ("by link only": the lobby's form, solitaire, the
    daily puzzle, the API's default) without a link that said so: each gets its key. Set War
    games (played as they are made) and Square Games (every one was listed on /square/) stay
    anyone's."""
    Game = apps.get_model("games", "Game")
    private = Game.objects.filter(kind="set", is_open=False, is_default=False)
    for pk in private.values_list("pk", flat=True).iterator():
        Game.objects.filter(pk=pk).update(link_key=secrets.token_urlsafe(16))


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_chat"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="link_key",
            field=models.CharField(blank=True, default="", max_length=32),
        ),
        migrations.RunPython(keys_for_private_games, migrations.RunPython.noop),
    ]
