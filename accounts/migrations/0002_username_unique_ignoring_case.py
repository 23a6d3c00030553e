"""Account names are unique ignoring case in the database too, and the name look-ups that ignore
case (username__iexact: a sign-up, a guest's name at a table, /u/<name>) are served by an index.

PostgreSQL: a unique index on UPPER(username), the expression Django's iexact compares. SQLite:
a unique index with the NOCASE collation, which, like SQLite's iexact, folds ASCII letters only.
"""

from django.conf import settings
from django.db import migrations

INDEX = "accounts_username_ci"


def _table(apps) -> str:
    return apps.get_model(settings.AUTH_USER_MODEL)._meta.db_table


def create(apps, schema_editor):
    table = schema_editor.quote_name(_table(apps))
    if schema_editor.connection.vendor == "postgresql":
        sql = f"CREATE UNIQUE INDEX IF NOT EXISTS {INDEX} ON {table} (UPPER(username::text))"
    else:
        sql = f"CREATE UNIQUE INDEX IF NOT EXISTS {INDEX} ON {table} (username COLLATE NOCASE)"
    schema_editor.execute(sql)


def drop(apps, schema_editor):
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        # After auth's last migration: on SQLite, a migration that alters auth_user rebuilds the
        # table and would drop this index.
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(create, drop)]
