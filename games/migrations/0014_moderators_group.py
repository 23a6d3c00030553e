"""The moderators group (games.moderation.MODERATORS) with its own permissions: to moderate, and
to read and close reports, read the log and give sanctions in the admin."""

from django.db import migrations

GROUP = "moderators"
CODENAMES = {
    "moderationlogentry": ["moderate", "view_moderationlogentry"],
    "report": ["view_report", "change_report"],
    "sanction": ["view_sanction", "add_sanction"],
    "chatmessage": ["view_chatmessage"],
}
NAMES = {
    "moderate": "Can act as a moderator: reports, lines, mutes, bans, names",
}


def make_group(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    ContentType = apps.get_model("contenttypes", "ContentType")
    group, _ = Group.objects.get_or_create(name=GROUP)
    for model, codenames in CODENAMES.items():
        content_type, _ = ContentType.objects.get_or_create(app_label="games", model=model)
        for codename in codenames:
            verb, _, noun = codename.partition("_")
            name = NAMES.get(codename, f"Can {verb} {noun or model}")
            permission, _ = Permission.objects.get_or_create(
                content_type=content_type, codename=codename, defaults={"name": name}
            )
            group.permissions.add(permission)


def drop_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0013_moderation"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(make_group, drop_group)]
