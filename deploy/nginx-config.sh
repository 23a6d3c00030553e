#!/bin/sh
# Print nginx's configuration for this deployment: deploy/nginx/setgames.conf.template with the
# SETGAMES_* names and DJANGO_STATIC_ROOT of the environment filled in (envsubst, Debian's
# gettext-base); nginx's own $variables are left alone. A name the template uses and the
# environment lacks is an error.
#
#   set -a; . /etc/setgames/setgames.env; set +a
#   deploy/nginx-config.sh > /etc/nginx/conf.d/setgames.conf && nginx -t && systemctl reload nginx
set -eu
template="$(dirname "$0")/nginx/setgames.conf.template"
names=$(grep -o '\${[A-Z0-9_]*}' "$template" | sort -u)
for name in $names; do
  bare=${name#??}; bare=${bare%?}
  if ! env | grep -q "^$bare="; then
    echo "nginx-config.sh: $bare is not set (see deploy/setgames.env.example)" >&2
    exit 1
  fi
done
exec envsubst "$(echo $names)" < "$template"
