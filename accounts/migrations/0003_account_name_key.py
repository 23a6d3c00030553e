"""Account names are compared by their confusable skeleton (issue 23): AccountName.folded (NFC,
case-folded) becomes AccountName.key (games.names.name_key), made again for every account."""

from django.conf import settings
from django.db import migrations

from games.names import name_key


def key_every_account(apps, schema_editor):
    """Each account's key, oldest account first; an account that has no name row (a sign-up
    that lost a race before issue 23) gets one. Two accounts whose names look alike (which the
    old rule let through: `ada` and a Cyrillic `аda`) both keep their names and can log in; the
    later one's key is made unique with its id (`key#id`), and the migration names them so an
    admin can rename one. Nothing stops the migration."""
    users = apps.get_model(settings.AUTH_USER_MODEL)
    names = apps.get_model("accounts", "AccountName")
    # First out of the way of every new key (no name's key holds "#"), then each its own.
    for row in names.objects.all():
        names.objects.filter(pk=row.pk).update(key=f"#{row.pk}")
    owners = {}
    for user in users.objects.order_by("pk"):
        key = name_key(user.username)
        if key in owners:
            print(
                f"\n  accounts: {user.username!r} (id {user.pk}) looks like {owners[key]!r}: "
                "both keep their names; rename one in the admin.",
            )
            key = f"{key}#{user.pk}"
        else:
            owners[key] = user.username
        names.objects.update_or_create(user=user, defaults={"key": key})


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_account_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RenameField(model_name="accountname", old_name="folded", new_name="key"),
        migrations.RunPython(key_every_account, migrations.RunPython.noop),
    ]
