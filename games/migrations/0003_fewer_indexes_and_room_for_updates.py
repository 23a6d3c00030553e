"""Every move writes the game's row and a row of the log: fewer indexes to keep, and on
PostgreSQL room beside each game's row for its next version.

- The foreign keys from a move and a seat to their game lose their own indexes: the unique
  constraints (game, seq) and (game, number) begin with the game and serve the same lookups.
- PostgreSQL: a game's row is rewritten by every move. With pages filled only half by inserts
  (fillfactor 50) the new version fits beside the old one and no index is touched (a HOT
  update); and a state of a few kilobytes stays in the row uncompressed (toast_tuple_target),
  instead of being compressed again on every move.
"""

import django.db.models.deletion
from django.db import migrations, models

ROOM = "ALTER TABLE games_game SET (fillfactor = 50, toast_tuple_target = 8160)"
NO_ROOM = "ALTER TABLE games_game RESET (fillfactor, toast_tuple_target)"


def on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0002_ordering_without_join"),
    ]

    operations = [
        migrations.AlterField(
            model_name="move",
            name="game",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="moves",
                to="games.game",
            ),
        ),
        migrations.AlterField(
            model_name="seat",
            name="game",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="seats",
                to="games.game",
            ),
        ),
        migrations.RunPython(on_postgresql(ROOM), on_postgresql(NO_ROOM)),
    ]
