from django.db import migrations, models


def mark_protocol_seats(apps, schema_editor):
    """Seats that could be played by name before (at open tables, held by no browser session,
    no account and no computer) stay playable by name; a token client's seat joined from now on
    is not."""
    Seat = apps.get_model("games", "Seat")
    Seat.objects.filter(
        game__is_open=True,
        is_computer=False,
        player__session_key="",
        player__user__isnull=True,
    ).update(protocol=True)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0003_fewer_indexes_and_room_for_updates"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="protocol",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(mark_protocol_seats, migrations.RunPython.noop),
    ]
